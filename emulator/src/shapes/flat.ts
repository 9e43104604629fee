import { createHash } from "node:crypto";
import type { Kind } from "../replies.js";
import { encodeTime, toEpochSeconds } from "./fields.js";
import { buildShape, emptyAnswer, jsonAnswer, type IdKind } from "./shape.js";

const ID_KINDS: Partial<Record<Kind, IdKind>> = { bucket: "bucket", zone: "zone", transcript: "transcript" };
const RENAMED: Partial<Record<Kind, Readonly<Record<string, string>>>> = {
  credential: { access_key_id: "access_key", secret_access_key: "secret" },
  api_key: { api_key: "key" },
  transcript: { audio_duration: "duration" },
};

const numbers = new Map<string, number>();

/**
 * The number a flat platform shows for one of the emulator's ids: derived from the id (48 bits of
 * its SHA-256), so it is stable across restarts and needs no table of its own.
 */
export function numericId(id: string): number {
  let n = numbers.get(id);
  if (n === undefined) {
    n = parseInt(createHash("sha256").update(id).digest("hex").slice(0, 12), 16);
    numbers.set(id, n);
  }
  return n;
}

/**
 * A platform of bare objects with numeric ids, epoch-second timestamps, terse field names and
 * `status` strings; state changes answer 204, deletes a message, errors plain text, and a refused
 * credential 403.
 */
export const flat = buildShape({
  name: "flat",
  transcriptionApiKey: "raw",
  resolveId(kind, segment, directory) {
    if (!/^\d{1,16}$/.test(segment)) return undefined;
    const wanted = Number(segment);
    for (const id of directory.ids(kind)) if (numericId(id) === wanted) return id;
    return undefined;
  },
  publicId: (_kind, id) => numericId(id),
  fields(kind, value) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if ((key === "id" && ID_KINDS[kind] !== undefined) || key === "bucket_id") out[key] = numericId(String(v));
      else if (kind === "credential" && key === "active") out["status"] = v === true ? "active" : "inactive";
      else out[RENAMED[kind]?.[key] ?? key] = encodeTime(key, v, toEpochSeconds);
    }
    return out;
  },
  object: (_kind, fields) => fields,
  list: (kind, items) => (kind === "credential" ? { credentials: items } : items),
  stateSet: () => emptyAnswer(204),
  deleted: () => jsonAnswer(200, { message: "deleted" }),
  error(error) {
    // A refused credential is "forbidden" here; the challenge header belongs to 401 only.
    const refused = error.status === 401;
    const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8", ...error.headers };
    if (refused) delete headers["www-authenticate"];
    return { status: refused ? 403 : error.status, headers, body: `${error.message}\n` };
  },
});
