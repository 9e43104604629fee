import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, validationError } from "./api-error.js";
import type { WireAnswer } from "./shapes/shape.js";

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
    "content-length": String(Buffer.byteLength(payload)),
    ...headers,
  });
  res.end(payload);
}

/**
 * Writes a management or transcription answer. When the request body was not (fully) read, e.g.
 * an over-2 GB upload refused up front, the connection is closed after the answer instead of
 * reading the rest.
 */
export function writeAnswer(req: IncomingMessage, res: ServerResponse, answer: WireAnswer): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.body !== undefined) headers["content-length"] = String(Buffer.byteLength(answer.body));
  if (!req.complete) {
    headers["connection"] = "close";
    req.resume();
  }
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

export function sendNoContent(res: ServerResponse): void {
  res.writeHead(204);
  res.end();
}

export function sendApiError(res: ServerResponse, err: ApiError): void {
  sendJson(res, err.status, { error: { code: err.code, message: err.message } }, { ...err.headers });
}

/**
 * Reads a small JSON body. Returns undefined for an empty body, so endpoints that take none
 * (spec §4.1: credentials, apikey) accept both nothing and `{}`.
 */
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
  if (text === "") return undefined;
  const type = req.headers["content-type"];
  if (type !== undefined && !/^application\/json\b/i.test(type)) {
    throw validationError("the body must be JSON: send content-type: application/json");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw validationError("the body is not valid JSON; send a JSON object");
  }
}
