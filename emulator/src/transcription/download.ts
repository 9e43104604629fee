import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { request, type Dispatcher } from "undici";
import { ApiError } from "../api-error.js";
import { JobError, findJobError } from "./errors.js";
import { MAX_MEDIA_BYTES, MAX_REDIRECTS } from "./limits.js";
import { parseFetchableUrl } from "./url-check.js";
import type { AddressPolicy } from "./address-policy.js";

/** Counts bytes and fails once `limit` is passed, so a lying or absent content-length cannot fill the disk. */
export function byteLimit(limit: number, onExceeded: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) return callback(onExceeded());
      return callback(null, chunk);
    },
  });
}

export const tooLargeJobError = (): JobError =>
  new JobError("too_large", "the file is over 2 GB; split it or compress it and send the parts");

/**
 * Downloads `start` to `dest` through the guarded dispatcher, following redirects itself so that
 * every hop is checked by the same rules. Returns the byte count.
 */
export async function downloadTo(
  start: URL,
  dest: string,
  dispatcher: Dispatcher,
  policy: AddressPolicy,
  signal: AbortSignal,
): Promise<number> {
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, { dispatcher, signal, headersTimeout: 30_000, bodyTimeout: 60_000 });
    } catch (err) {
      throw (
        findJobError(err) ??
        new JobError("download_failed", `could not fetch the url (${describe(err)}); check that it is reachable`)
      );
    }
    const { statusCode, headers, body } = response;
    if (statusCode >= 300 && statusCode < 400 && typeof headers.location === "string") {
      body.resume();
      url = nextHop(headers.location, url, policy);
      continue;
    }
    if (statusCode < 200 || statusCode >= 300) {
      body.resume();
      throw new JobError(
        "download_failed",
        `the url answered HTTP ${statusCode}; check that it is public and still valid`,
      );
    }
    const declared = Number(headers["content-length"]);
    if (Number.isFinite(declared) && declared > MAX_MEDIA_BYTES) {
      body.destroy();
      throw tooLargeJobError();
    }
    let size = 0;
    try {
      await pipeline(
        body,
        byteLimit(MAX_MEDIA_BYTES, tooLargeJobError),
        new Transform({
          transform(chunk: Buffer, _e, cb) {
            size += chunk.length;
            cb(null, chunk);
          },
        }),
        createWriteStream(dest),
      );
    } catch (err) {
      await rm(dest, { force: true });
      throw (
        findJobError(err) ?? new JobError("download_failed", `the download broke off (${describe(err)}); try again`)
      );
    }
    return size;
  }
  throw new JobError("download_failed", `the url redirected more than ${MAX_REDIRECTS} times; send the final address`);
}

function nextHop(location: string, from: URL, policy: AddressPolicy): URL {
  try {
    return parseFetchableUrl(new URL(location, from).toString(), "a redirect of url", policy);
  } catch (err) {
    if (err instanceof ApiError) {
      throw new JobError(err.code === "url_not_allowed" ? "url_not_allowed" : "download_failed", err.message);
    }
    throw err;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
    return code ? `${code}` : err.name;
  }
  return "unknown error";
}
