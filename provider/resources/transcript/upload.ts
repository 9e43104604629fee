import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { request, type Dispatcher } from "undici";
import { systemClock, type Clock } from "../../core.js";
import { backoffDelay, retryableUploadStatuses, type Backoff } from "../../retry.js";
import { readErrorBody } from "../../shapes.js";
import { resolveSourcePath } from "./source.js";

/**
 * Sends a local file to the `uploadUrl` of POST /v1/transcripts/upload (docs/api-contract.md §8.1)
 * as a stream: memory stays flat for a 2 GB file. A transient failure re-sends the file from its
 * first byte, through a freshly opened stream (a consumed stream cannot be rewound).
 *
 * The uploadUrl carries a token: it never appears in a log line or an error message.
 */
export interface UploadOptions {
  readonly dispatcher?: Dispatcher;
  /** Attempts in total, the first included. */
  readonly attempts: number;
  readonly backoff: Backoff;
  /** Called before each retry, with a message that names no URL. */
  readonly onRetry?: (message: string) => void;
  /** Waits between attempts (the call's clock). */
  readonly sleep?: Clock["sleep"];
}

/**
 * Bytes per read of the file. Node's default (64 KiB) costs one read and one socket write per 64 KiB:
 * with 1 MiB, a sixteenth of the calls, and memory still flat (a few chunks in flight).
 */
const READ_CHUNK_BYTES = 1024 * 1024;

export const defaultUploadOptions: UploadOptions = {
  attempts: 5,
  backoff: { baseDelayMs: 1_000, maxDelayMs: 15_000, jitter: "near" },
};

/** Failure of the upload PUT; `status` is set when the server answered. */
export class UploadFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = "UploadFailure";
  }
}

export async function uploadFile(uploadUrl: string, path: string, options: UploadOptions): Promise<void> {
  const absolute = resolveSourcePath(path);
  const sleep = options.sleep ?? systemClock.sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      await putOnce(uploadUrl, absolute, options.dispatcher);
      return;
    } catch (error) {
      const failure = asUploadFailure(error);
      if (!failure.retryable || attempt >= options.attempts) throw failure;
      const delay = backoffDelay(attempt - 1, options.backoff);
      options.onRetry?.(`upload attempt ${attempt} failed (${failure.message}); sending the file again in ${delay} ms`);
      await sleep(delay);
    }
  }
}

async function putOnce(uploadUrl: string, absolutePath: string, dispatcher: Dispatcher | undefined): Promise<void> {
  // Stat per attempt: the length must match the bytes this stream will send.
  const { size } = await stat(absolutePath);
  const body = createReadStream(absolutePath, { highWaterMark: READ_CHUNK_BYTES });
  try {
    const response = await request(uploadUrl, {
      method: "PUT",
      body,
      headers: { "content-type": "application/octet-stream", "content-length": String(size) },
      ...(dispatcher ? { dispatcher } : {}),
    });
    // Drain the body so the connection can be reused; its content is not needed.
    const text = await response.body.text();
    if (response.statusCode >= 200 && response.statusCode < 300) return;
    throw new UploadFailure(
      `the upload endpoint answered ${response.statusCode}${errorCodeOf(text)}`,
      retryableUploadStatuses.has(response.statusCode),
      response.statusCode,
    );
  } finally {
    body.destroy();
  }
}

/** The code of an error body, if any; the message is left out in case it echoes the URL. */
function errorCodeOf(text: string): string {
  const { apiCode } = readErrorBody(text);
  return apiCode !== undefined && /^[a-z_]{1,40}$/.test(apiCode) ? ` ${apiCode}` : "";
}

/** Transport errors are re-described from their code only: undici messages may quote the URL. */
function asUploadFailure(error: unknown): UploadFailure {
  if (error instanceof UploadFailure) return error;
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "EUNKNOWN";
  if (code === "ENOENT" || code === "EACCES" || code === "EISDIR") {
    return new UploadFailure(`cannot read the source file (${code})`, false);
  }
  return new UploadFailure(`connection failed (${code})`, true);
}
