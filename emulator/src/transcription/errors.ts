/**
 * A JobError ends a transcript in status `error` with `"<code>: <detail>"` (spec §2); a refused
 * request is an ApiError (../api-error.ts), shared with the management API. Messages never carry
 * secrets (upload tokens, keys).
 */

type JobErrorCode =
  | "url_not_allowed"
  | "download_failed"
  | "too_large"
  | "too_long"
  | "unsupported_media"
  | "insufficient_balance"
  | "engine_failed"
  | "internal";

export class JobError extends Error {
  constructor(
    readonly code: JobErrorCode,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = "JobError";
  }
}

/** Finds a JobError anywhere in a cause chain (undici wraps connect errors). */
export function findJobError(err: unknown): JobError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof JobError) return current;
    if (current instanceof AggregateError) {
      const inner = current.errors.map(findJobError).find((e) => e !== undefined);
      if (inner) return inner;
    }
    current = current.cause;
  }
  return undefined;
}
