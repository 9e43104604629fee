import { open, type FileHandle } from "node:fs/promises";
import { request as httpRequest, type Agent, type ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { systemClock, type Clock } from "../../vocabulary.js";
import { backoffDelay, retryableUploadStatuses, type Backoff } from "../../retry.js";
import { readErrorBody } from "../../answers/error-body.js";
import { resolveSourcePath } from "./source.js";

/**
 * Sends a local file to the `uploadUrl` of POST /v1/transcripts/upload (docs/api-contract.md §8.1)
 * as a stream: memory stays flat for a 2 GB file. A transient failure re-sends the file from its
 * first byte, through a freshly opened file and a new connection.
 *
 * The uploadUrl carries a token: it never appears in a log line or an error message.
 */
export interface UploadOptions {
  /**
   * The connections to send through (an `https.Agent` for an https URL).
   * @default Node's global agent of the URL's protocol
   */
  readonly agent?: Agent;
  /** Attempts in total, the first included. */
  readonly attempts: number;
  readonly backoff: Backoff;
  /**
   * An attempt fails when its connection carries nothing either way for this long: a server that
   * stops reading, or never answers once it has the file.
   * @default 300000 (5 minutes)
   */
  readonly idleTimeoutMs?: number;
  /** Called before each retry, with a message that names no URL. */
  readonly onRetry?: (message: string) => void;
  /** Waits between attempts (the call's clock). */
  readonly sleep?: Clock["sleep"];
}

/**
 * Bytes per read of the file, into buffers allocated once per attempt and reused: a buffer is read
 * into again only once the socket has taken its previous bytes. A fresh buffer per read (what a
 * ReadStream does) leaves the file's whole size as garbage, and collecting it cost this process
 * more CPU than sending the bytes, CPU that the receiving server then lacked on a small machine.
 * Two buffers let the next read overlap the write of the previous one.
 */
const CHUNK_BYTES = 1024 * 1024;
const BUFFERS = 2;

/** The answer to a PUT is a small JSON object; more than this is not needed to read its error code. */
const MAX_ANSWER_BYTES = 64 * 1024;

const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

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
  const url = parseUploadUrl(uploadUrl);
  const absolute = resolveSourcePath(path);
  const sleep = options.sleep ?? systemClock.sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      await putOnce(url, absolute, options);
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

/** The URL's own parse errors quote it (token included), so they are replaced, not wrapped. */
function parseUploadUrl(uploadUrl: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(uploadUrl);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new UploadFailure("the platform gave an upload URL that is not an http(s) URL", false);
  }
  return url;
}

async function putOnce(url: URL, absolutePath: string, options: UploadOptions): Promise<void> {
  const file = await open(absolutePath, "r");
  try {
    // Stat per attempt, through the open file: the length must match the bytes this attempt sends.
    const { size } = await file.stat();
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(url, {
      method: "PUT",
      ...(options.agent === undefined ? {} : { agent: options.agent }),
      headers: { "content-type": "application/octet-stream", "content-length": String(size) },
      timeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
    const answer = answerOf(req);
    let settled = false;
    const interrupted = answer.then(
      () => void (settled = true),
      () => void (settled = true),
    );
    let sent = false;
    try {
      sent = await sendFile(req, file, size, interrupted, () => settled);
      const { status, text } = await answer;
      if (status >= 200 && status < 300) return;
      throw new UploadFailure(
        `the upload endpoint answered ${status}${errorCodeOf(text)}`,
        retryableUploadStatuses.has(status),
        status,
      );
    } finally {
      // A body cut short leaves the connection unusable.
      if (!sent) req.destroy();
    }
  } finally {
    await file.close();
  }
}

/**
 * Writes the file's `size` bytes to `req` and ends it; returns false when the request was answered
 * or failed first (the server may answer before it has read everything, e.g. a 413).
 */
async function sendFile(
  req: ClientRequest,
  file: FileHandle,
  size: number,
  interrupted: Promise<void>,
  isInterrupted: () => boolean,
): Promise<boolean> {
  const buffers = Array.from({ length: BUFFERS }, () => Buffer.allocUnsafeSlow(Math.min(CHUNK_BYTES, size)));
  const taken: Promise<void>[] = buffers.map(() => Promise.resolve());
  let offset = 0;
  for (let i = 0; offset < size; i = (i + 1) % buffers.length) {
    await Promise.race([taken[i], interrupted]);
    if (isInterrupted()) return false;
    const buffer = buffers[i]!;
    const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, size - offset), offset);
    if (bytesRead === 0) throw fileChanged();
    offset += bytesRead;
    // Checked before the last bytes go: once they have, the server holds a whole body, cut short.
    if (offset === size && (await file.read(Buffer.alloc(1), 0, 1, size)).bytesRead !== 0) throw fileChanged();
    if (isInterrupted()) return false;
    // A failed write also fails the request ('error'), which `interrupted` reports.
    taken[i] = new Promise((resolve) => req.write(buffer.subarray(0, bytesRead), () => resolve()));
  }
  req.end();
  return true;
}

/** The file changed length while it was sent: a new attempt stats it again. */
const fileChanged = (): UploadFailure => new UploadFailure("the source file changed while it was being sent", true);

/** The status and (the start of) the body of the answer, or the failure of the request. */
function answerOf(req: ClientRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // `on`, not `once`: a second error (e.g. EPIPE after an early answer) must not go unhandled.
    req.on("error", reject);
    req.on("timeout", () => req.destroy(Object.assign(new Error("the connection went idle"), { code: "ETIMEDOUT" })));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let length = 0;
      res.on("data", (chunk: Buffer) => {
        if (length >= MAX_ANSWER_BYTES) return;
        chunks.push(chunk);
        length += chunk.length;
      });
      res.on("error", reject);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
    });
  });
}

/** The code of an error body, if any; the message is left out in case it echoes the URL. */
function errorCodeOf(text: string): string {
  const { apiCode } = readErrorBody(text);
  return apiCode !== undefined && /^[a-z_]{1,40}$/.test(apiCode) ? ` ${apiCode}` : "";
}

/** Transport errors are re-described from their code only: their messages may quote the address. */
function asUploadFailure(error: unknown): UploadFailure {
  if (error instanceof UploadFailure) return error;
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "EUNKNOWN";
  if (code === "ENOENT" || code === "EACCES" || code === "EISDIR") {
    return new UploadFailure(`cannot read the source file (${code})`, false);
  }
  return new UploadFailure(`connection failed (${code})`, true);
}
