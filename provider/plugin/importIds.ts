/**
 * What `pulumi import` can adopt. An import calls read with an id and no state, and each core's
 * read needs a different minimum: a zone or a bucket is read from its id alone; a credential is
 * listed under its bucket, so its import id names both (`<bucketId>/<accessKeyId>`). An API key
 * cannot be read back at all, and a transcript's inputs (its source) are not on the platform.
 */
import type { Props } from "../core.js";
import { CloudPlatformError } from "../errors.js";

export interface ImportTarget {
  /** The id the core knows the object by. */
  readonly id: string;
  /** The state the core's read needs, beyond the id. */
  readonly state: Props;
}

const unsupported: Record<string, string> = {
  ApiKey:
    "the platform has no endpoint that reads an API key back; create an ApiKey resource instead (it rotates the key)",
  Transcript:
    "a transcript's inputs (its url or source file, language, glossary) are not kept by the platform; " +
    "declare a Transcript resource instead",
};

/** Splits a credential's import id; a plain access key id (already in state) passes through. */
function credentialParts(id: string): { bucketId: string; accessKeyId: string } | undefined {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { bucketId: id.slice(0, slash), accessKeyId: id.slice(slash + 1) };
}

/** The id a core expects, whether the engine hands the import id or the id the core returned. */
export function coreId(type: string, id: string): string {
  if (type !== "BucketCredential") return id;
  return credentialParts(id)?.accessKeyId ?? id;
}

export function importTarget(type: string, id: string): ImportTarget {
  const reason = unsupported[type];
  if (reason !== undefined) {
    throw new CloudPlatformError(
      "CLOUDPLATFORM_IMPORT_UNSUPPORTED",
      `${type} cannot be imported (CLOUDPLATFORM_IMPORT_UNSUPPORTED): ${reason}.`,
    );
  }
  if (type !== "BucketCredential") return { id, state: {} };
  const parts = credentialParts(id);
  if (parts === undefined) {
    throw new CloudPlatformError(
      "CLOUDPLATFORM_IMPORT_ID_INVALID",
      `"${id}" is not a BucketCredential import id (CLOUDPLATFORM_IMPORT_ID_INVALID): use <bucketId>/<accessKeyId>, ` +
        "e.g. `pulumi import cloudplatform:index:BucketCredential writer bkt_123/AKIA...`.",
    );
  }
  // The access key id is the credential's identity: kept in the state like create keeps it.
  return { id: parts.accessKeyId, state: { bucketId: parts.bucketId, accessKeyId: parts.accessKeyId } };
}
