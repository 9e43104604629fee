/** The parts of a path-style S3 request line that routing and signing need. */
import { S3Error } from "./errors.js";

/** Query parameters decoded with decodeURIComponent ('+' stays '+', as SigV4 clients encode spaces as %20). */
class QueryParams {
  private readonly entries: ReadonlyArray<readonly [string, string]>;

  constructor(rawQuery: string) {
    const entries: Array<[string, string]> = [];
    for (const part of rawQuery.split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      const name = eq < 0 ? part : part.slice(0, eq);
      const value = eq < 0 ? "" : part.slice(eq + 1);
      entries.push([decode(name), decode(value)]);
    }
    this.entries = entries;
  }

  get(name: string): string | undefined {
    return this.entries.find(([n]) => n === name)?.[1];
  }

  has(name: string): boolean {
    return this.entries.some(([n]) => n === name);
  }

  toRecord(): Record<string, string | string[]> {
    const record: Record<string, string | string[]> = {};
    for (const [name, value] of this.entries) {
      const existing = record[name];
      if (existing === undefined) record[name] = value;
      else record[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
    return record;
  }
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new S3Error(400, "InvalidURI", "Couldn't parse the specified URI: bad percent-encoding.");
  }
}

export interface RequestTarget {
  readonly method: string;
  /** The path exactly as sent (still percent-encoded). */
  readonly rawPath: string;
  readonly query: QueryParams;
  /** Undefined for the service root ("/"). */
  readonly bucket?: string;
  /** Undefined when the path names only the bucket. */
  readonly key?: string;
}

export function parseTarget(method: string, requestUrl: string): RequestTarget {
  const q = requestUrl.indexOf("?");
  const rawPath = q < 0 ? requestUrl : requestUrl.slice(0, q);
  const query = new QueryParams(q < 0 ? "" : requestUrl.slice(q + 1));
  if (!rawPath.startsWith("/")) throw new S3Error(400, "InvalidURI", "The request path must start with '/'.");
  const rest = rawPath.slice(1);
  if (rest === "") return { method, rawPath, query };
  const slash = rest.indexOf("/");
  const bucket = decode(slash < 0 ? rest : rest.slice(0, slash));
  const key = slash < 0 || slash === rest.length - 1 ? undefined : decode(rest.slice(slash + 1));
  if (key !== undefined && Buffer.byteLength(key) > 1024) {
    throw new S3Error(400, "KeyTooLongError", "Your key is too long: keys are at most 1024 bytes.");
  }
  return { method, rawPath, query, bucket, ...(key === undefined ? {} : { key }) };
}
