/**
 * Reading a successful answer: its body parsed as JSON and read with the caller's reader (through
 * zod, loaded with the first answer read), or the reason it cannot be used, as an
 * `UnexpectedResponseError` that names the endpoint, the status and the keys received, never the
 * values.
 */
import type { z } from "zod";
import { UnexpectedResponseError } from "../errors.js";
import { receivedKeys, type Reader } from "../answers/find.js";
import { ShapeProblem } from "../answers/object.js";
import type { Outcome, Reply } from "./types.js";

/** Whether `status` is a success for this request. @default any 2xx */
export function isExpected(status: number, expected: number | readonly number[] | undefined): boolean {
  if (expected === undefined) return status >= 200 && status < 300;
  return typeof expected === "number" ? status === expected : expected.includes(status);
}

/**
 * A successful reply read with `schema`; without one, its JSON as it is. A body that is not JSON
 * (a proxy's page, a cut answer) is `spoiled`; JSON of a shape the reader cannot use is not: that
 * is the platform's own answer, the same every time.
 */
export function read<T>(reply: Reply, schema: Reader<T> | undefined, endpoint: string): Outcome<T> {
  const success = (data: T): Outcome<T> => ({
    ok: true,
    response: { status: reply.status, headers: reply.headers, data },
  });
  let json: unknown = undefined;
  if (reply.text.trim() !== "") {
    try {
      json = parseJson(reply.text);
    } catch {
      // A request that reads nothing back (a delete) takes any body, but an HTML page: that is a
      // proxy's, which says nothing of what the platform did (a failed delete may hide behind it).
      if (schema === undefined && !isHtml(reply.headers["content-type"])) return success(undefined as T);
      const error = new UnexpectedResponseError(endpoint, [], "the body is not JSON", reply.status);
      return { ok: false, fate: "unreadable", spoiled: true, error };
    }
  }
  if (schema === undefined) return success(json as T);
  const parsed = schemaOf(schema).safeParse(json);
  if (parsed.success) return success(parsed.data);
  const problems = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.code === "custom" ? i.message : i.code}`)
    .join("; ");
  const error = new UnexpectedResponseError(endpoint, receivedKeys(json), problems, reply.status);
  return { ok: false, fate: "unreadable", spoiled: false, error };
}

/**
 * JSON, with integers past 2^53 kept as their digits (a 64-bit id would otherwise lose its last
 * digits and name another object). The third reviver argument is the JSON.parse source text
 * access of ES2025 (Node.js 22 and later).
 */
function parseJson(text: string): unknown {
  return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === "number" && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? "")
      ? context?.source
      : value,
  );
}

function isHtml(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType.join(",") : (contentType ?? "");
  return /text\/html/i.test(value);
}

const schemas = new WeakMap<Reader<unknown>, z.ZodType<unknown>>();

/**
 * The zod schema of a reader, made on its first use: zod (~50 ms of CPU to load) is loaded with the
 * first answer read, not with the provider. A `ShapeProblem` becomes a custom issue.
 */
function schemaOf<T>(r: Reader<T>): z.ZodType<T> {
  let schema = schemas.get(r);
  if (schema === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when first needed
    const { z } = require("zod") as typeof import("zod");
    schema = z.unknown().transform((raw, ctx) => {
      try {
        return r.read(raw);
      } catch (err) {
        if (!(err instanceof ShapeProblem)) throw err;
        ctx.addIssue({ code: "custom", message: err.message });
        return z.NEVER;
      }
    });
    schemas.set(r, schema);
  }
  return schema as z.ZodType<T>;
}
