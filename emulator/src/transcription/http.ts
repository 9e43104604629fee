import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "./errors.js";

const MAX_JSON_BODY_BYTES = 1024 * 1024;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload).toString(),
    ...headers,
  });
  res.end(payload);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  sendJson(res, err.status, { error: { code: err.code, message: err.message } });
}

/** Reads a small JSON body; an empty body counts as `{}`. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BODY_BYTES) {
      throw new ApiError(413, "too_large", "the JSON body is over 1 MB; send only the documented fields");
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, "validation_error", "the body is not valid JSON; send a JSON object");
  }
}

/** Drains and discards a request body so the connection can be reused after an early answer. */
export function discardBody(req: IncomingMessage): void {
  req.resume();
}
