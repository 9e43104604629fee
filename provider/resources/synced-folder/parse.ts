/**
 * What a SyncedFolder reads from S3's answers: the listing of its prefix, as the ETag and size of
 * each file's object by the file's path (docs/api-contract.md §7). The listing's entries are read by
 * the objects' reader (s3/answers.ts).
 */
import { readListing, type ListedObject } from "../../s3/answers.js";

export type { ListedObject };

/** The listed objects under `prefix`, by the path after it. */
export function byPath(pages: readonly Parameters<typeof readListing>[0][], prefix: string): Map<string, ListedObject> {
  const found = new Map<string, ListedObject>();
  for (const page of pages) {
    for (const object of readListing(page)) {
      if (object.key.startsWith(prefix)) found.set(object.key.slice(prefix.length), object);
    }
  }
  return found;
}

/** A progress line of the folder's uploads (journal.ts `ProgressLog`): `[bucket, key, sha256, etag]`. */
export interface Arrived {
  readonly bucket: string;
  readonly key: string;
  readonly sha256: string;
  readonly etag: string;
}

export function arrivedLine(a: Arrived): string {
  return JSON.stringify([a.bucket, a.key, a.sha256, a.etag]);
}

export function readArrived(line: string): Arrived | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    if (!Array.isArray(parsed) || parsed.length !== 4 || !parsed.every((v) => typeof v === "string")) return undefined;
    const [bucket, key, sha256, etag] = parsed as string[];
    return { bucket: bucket as string, key: key as string, sha256: sha256 as string, etag: etag as string };
  } catch {
    return undefined;
  }
}
