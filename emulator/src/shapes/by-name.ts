import type { Kind } from "../replies.js";
import { camelCase, encodeTime, toEpochMillis } from "./fields.js";
import { buildShape, jsonAnswer } from "./shape.js";

/** The key an object is answered under; the API key is answered bare (`{"apiKey": …}` is its own key). */
const SINGULAR: Partial<Record<Kind, string>> = {
  bucket: "bucket",
  zone: "zone",
  credential: "credential",
  transcript: "transcript",
  upload: "upload",
  upload_receipt: "upload",
};
const PLURAL: Partial<Record<Kind, string>> = { bucket: "buckets", zone: "zones", credential: "credentials" };
const READ_ONE = new Set(["GET /object-storage/buckets/{bucketId}", "GET /dns/zones/{zoneId}"]);

/**
 * A platform that keys everything by name: buckets and zones have no id and are addressed by name
 * in paths, with no route to read one; bodies are keyed by kind, camelCase, epoch-millisecond
 * timestamps; OAuth-style errors; paged lists carry `nextPageToken`; the transcription endpoints
 * take only `Bearer <api key>`.
 */
export const byName = buildShape({
  name: "by-name",
  transcriptionApiKey: "bearer",
  offers: (method, template) => !READ_ONE.has(`${method} ${template}`),
  resolveId: (kind, segment, directory) => (kind === "transcript" ? segment : directory.idByName(kind, segment)),
  fields(kind, value, directory) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === "id" && (kind === "bucket" || kind === "zone")) continue;
      if (key === "bucket_id") out["bucketName"] = directory.bucketName(String(v)) ?? null;
      else if (kind === "credential" && key === "active") out["enabled"] = v;
      else out[camelCase(key)] = encodeTime(key, v, toEpochMillis);
    }
    return out;
  },
  object: (kind, fields) => {
    const key = SINGULAR[kind];
    return key === undefined ? fields : { [key]: fields };
  },
  paging: "token",
  list: (kind, items, page) => ({
    [PLURAL[kind] ?? `${kind}s`]: items,
    ...(page?.nextToken ? { nextPageToken: page.nextToken } : {}),
  }),
  stateSet: (_fields, summary) => jsonAnswer(200, { message: summary }),
  deleted: (summary) => jsonAnswer(202, { message: summary }),
  error: (error) => jsonAnswer(error.status, { error: error.code, error_description: error.message }, error.headers),
});
