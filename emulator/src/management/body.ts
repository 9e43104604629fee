import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import { validationError } from "../api-error.js";
import { readJsonBody } from "../http-io.js";

/**
 * Reads and validates a JSON body with a strict schema (unknown fields refused). `emptyAs`
 * is what an empty body stands for; without it a body is required.
 */
export async function parseBody<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
  emptyAs?: unknown,
): Promise<z.infer<S>> {
  const raw = await readJsonBody(req);
  if (raw === undefined && emptyAs === undefined) throw validationError("a JSON object body is required");
  const result = schema.safeParse(raw ?? emptyAs);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join(".") : "body";
    const detail = issue.code === "unrecognized_keys" ? `unknown field(s) ${issue.keys.join(", ")}` : issue.message;
    throw validationError(`${field}: ${detail}`);
  }
  return result.data;
}
