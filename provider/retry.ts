/**
 * Retry timing: exponential backoff with full jitter (a random wait between 0 and the exponential
 * ceiling, so that many clients hit by one outage do not retry in lockstep), bounded in count and
 * in total time, and overridden by the server's `Retry-After`.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** No retry starts once this much time has passed since the first attempt. */
  readonly maxTotalMs: number;
  readonly baseDelayMs: number;
  /** Ceiling of one backoff wait (a longer `Retry-After` is still honoured within `maxTotalMs`). */
  readonly maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 6,
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

/** Full-jitter backoff before retry number `retry` (0 for the first retry). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * Parses `Retry-After`: delta seconds or an HTTP date. Returns milliseconds to wait (0 for a date in
 * the past), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
