/**
 * Retry timing, shared by the API client, the Transcript upload and its polling: exponential backoff
 * with jitter, bounded in count and in total time, overridden by the server's `Retry-After`, and
 * which statuses are worth repeating.
 */

/**
 * Waits that double from `baseDelayMs` up to `maxDelayMs`, with jitter: `full` (the default) draws
 * between 0 and that ceiling, so that many clients hit by one outage do not retry in lockstep;
 * `near` stays within ±20 % of it, for a poll that should keep to its schedule.
 */
export interface Backoff {
  readonly baseDelayMs: number;
  /** Ceiling of one wait (a longer `Retry-After` is still honoured within `maxTotalMs`). */
  readonly maxDelayMs: number;
  readonly jitter?: "full" | "near";
  /** Source of randomness in [0, 1); injectable so tests are deterministic. */
  readonly random?: () => number;
}

export interface RetryPolicy extends Backoff {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /**
   * Attempts in all when the last was refused with 429 or 503: a refusal says the request was not
   * processed and the platform is busy with this key's other requests, which the pacing gate
   * (request/pace.ts) spaces out; stacks sharing a key can each meet several in a row. A 503 too: a
   * front may refuse with it (nginx's `limit_req` does unless told otherwise), and with 6 attempts
   * requests ran out of them under such a limit (the pacing simulation, one of 12,000). Still within
   * `maxTotalMs`, which bounds a platform that is down.
   */
  readonly maxRefusedAttempts: number;
  /** No retry starts once this much time has passed since the first attempt. */
  readonly maxTotalMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 6,
  maxRefusedAttempts: 30,
  maxTotalMs: 120_000,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
};

/** Statuses worth repeating the same request for (docs/api-contract.md §2.1). */
export const retryableStatuses: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Statuses that say the request was not processed, so that even a create can be repeated: 429
 * (refused by rate limiting) and 503 (service unavailable, refused before work). 502 and 504 come
 * from a gateway that may have forwarded the request: a create must reconcile first.
 */
export const notProcessedStatuses: ReadonlySet<number> = new Set([429, 503]);

/**
 * For a request that carries everything it needs and changes nothing but its own target (the PUT of
 * a Transcript's file to its upload address), a timeout (408) or a server failure (500) is worth
 * repeating too.
 */
export const retryableUploadStatuses: ReadonlySet<number> = new Set([...retryableStatuses, 408, 500]);

/** The wait before retry number `retry` (0 for the first retry). */
export function backoffDelay(
  retry: number,
  backoff: Backoff,
  random: () => number = backoff.random ?? Math.random,
): number {
  const ceiling = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** Math.min(retry, 30));
  return backoff.jitter === "near" ? Math.round(ceiling * (0.8 + 0.4 * random())) : Math.floor(random() * ceiling);
}

/**
 * Parses `Retry-After`: delta seconds (whole, or with a fraction) or an HTTP date. Returns
 * milliseconds to wait (0 for a date in the past), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (header === undefined) return undefined;
  const text = header.trim();
  // RFC 9110 says whole seconds; some servers send a fraction (`0.5`), which is read as meant.
  const seconds = decimalOf(text);
  if (seconds !== undefined) return Math.round(seconds * 1000);
  // An HTTP date names its day and month: V8 would read "0.5" or "-1" as a date in 2000 or 2001,
  // a wait of 0, and every refused call would be sent again at once.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** A number as HTTP headers write one: decimal digits, maybe a fraction, nothing else (no sign, no exponent). */
export function decimalOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  return /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : undefined;
}
