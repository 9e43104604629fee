import { createHash } from "node:crypto";
import { z } from "zod";

/**
 * A rate limit in front of the management and transcription API, as a platform that publishes none
 * (spec: "not shown") may still enforce: a token bucket per credential presented, refilled at
 * `requestsPerSecond` up to `burst`. A request finding the bucket empty is refused with 429 and a
 * `Retry-After` in whole seconds, before anything is processed (docs/api-contract.md §9.5). Off
 * unless set, so users can try their stacks against a limit and benchmarks can count refusals.
 * With `announce`, answers also carry the limit in the headers of draft-ietf-httpapi-ratelimit-headers,
 * as platforms that do publish theirs send it. `status` and `retryAfter` play fronts that refuse
 * otherwise: 503 without `Retry-After` is nginx's `limit_req` as it comes.
 */

/** The statuses a refusal may have: 429 as the HTTP spec means it, 503 as nginx's `limit_req` sends by default. */
export const REFUSAL_STATUSES = [429, 503] as const;

export type RefusalStatus = (typeof REFUSAL_STATUSES)[number];

export const rateLimitSettingsSchema = z
  .strictObject({
    /** 0 turns the limit off. */
    requestsPerSecond: z.number().min(0).max(100_000).default(0),
    /** Requests a full bucket lets through at once; default one second's worth (at least 1). */
    burst: z.number().int().min(1).max(100_000).optional(),
    /** Send `RateLimit-Policy` and `RateLimit` with every answer that went through the limit. */
    announce: z.boolean().default(false),
    /** The status of a refusal; 503 plays a front that does not say it is a rate limit (nginx's default). */
    status: z.literal(REFUSAL_STATUSES, { error: `must be one of ${REFUSAL_STATUSES.join(", ")}` }).default(429),
    /** Whether a refusal says when to come back; without it a client must pace itself by guesswork. */
    retryAfter: z.boolean().default(true),
  })
  .transform((s) => ({
    requestsPerSecond: s.requestsPerSecond,
    burst: s.burst ?? Math.max(1, Math.ceil(s.requestsPerSecond)),
    announce: s.announce,
    status: s.status,
    retryAfter: s.retryAfter,
  }));

export type RateLimitConfig = z.output<typeof rateLimitSettingsSchema>;

/** What a client sends to `PUT /_emulator/rate-limit` or gives `startEmulator`: every field optional. */
export type RateLimitSettings = z.input<typeof rateLimitSettingsSchema>;

/** Parses the CLI form `<rate>[/<burst>]`, e.g. `10` or `10/20`. */
export function parseRateLimit(text: string): RateLimitSettings {
  const match = /^(\d*\.?\d+)(?:\/(\d+))?$/.exec(text.trim());
  if (match === null) {
    throw new Error(`--rate-limit: "${text}" is not <requests per second>[/<burst>], e.g. 10 or 10/20`);
  }
  const requestsPerSecond = Number(match[1]);
  const burst = match[2] === undefined ? undefined : Number(match[2]);
  const parsed = rateLimitSettingsSchema.safeParse({ requestsPerSecond, ...(burst !== undefined ? { burst } : {}) });
  if (!parsed.success) {
    throw new Error(`--rate-limit: "${text}" is out of range (rate 0 to 100000, burst 1 to 100000)`);
  }
  return { requestsPerSecond, ...(burst !== undefined ? { burst } : {}) };
}

/** Parses the CLI form of `--rate-limit-status`: `429` or `503`. */
export function parseRefusalStatus(text: string): RefusalStatus {
  const status = REFUSAL_STATUSES.find((candidate) => String(candidate) === text.trim());
  if (status === undefined) {
    throw new Error(`--rate-limit-status: "${text}" is not one of ${REFUSAL_STATUSES.join(", ")}`);
  }
  return status;
}

/** What the limit decided for one request. */
export interface Admission {
  /**
   * Absent when the request may go on; else the whole seconds (at least 1) until a token is back,
   * whether or not the refusal is to say so (`retryAfter` in the settings).
   */
  readonly retryAfter?: number;
  /** `RateLimit-Policy` and `RateLimit` for the credential's bucket after this request; empty unless announced. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The answer while the limit is off: every request goes on, nothing is announced. */
const UNLIMITED: Admission = { headers: {} };

interface Bucket {
  tokens: number;
  at: number;
}

/** Past this many keys, buckets that have refilled (the same as no bucket) are forgotten. */
const PRUNE_ABOVE = 1024;

export class RateLimiter {
  private config: RateLimitConfig = rateLimitSettingsSchema.parse({});
  private buckets = new Map<string, Bucket>();
  private allowed = 0;
  private refused = 0;

  /** `now` in milliseconds, injectable so tests need not wait. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Settings and counters, as `GET /_emulator/rate-limit` shows them. */
  get current(): RateLimitConfig & { readonly allowed: number; readonly refused: number } {
    return { ...this.config, allowed: this.allowed, refused: this.refused };
  }

  /** New settings start every key with a full bucket; counters go on (reset() clears them). */
  set(config: RateLimitConfig): void {
    this.config = config;
    this.buckets = new Map();
  }

  reset(): void {
    this.buckets = new Map();
    this.allowed = 0;
    this.refused = 0;
  }

  /**
   * Takes one token from the bucket of the credential in `authorization` (requests without one
   * share a bucket), and says whether the request may go on and what to announce.
   */
  admit(authorization: string | undefined): Admission {
    const { requestsPerSecond: rate, burst, announce } = this.config;
    if (rate === 0) return UNLIMITED;
    // A digest, so the map never holds a credential.
    const key = createHash("sha256")
      .update(authorization ?? "")
      .digest("base64url");
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (this.buckets.size > PRUNE_ABOVE) this.prune(key);
    const admitted = bucket.tokens >= 1;
    if (admitted) {
      bucket.tokens -= 1;
      this.allowed += 1;
    } else {
      this.refused += 1;
    }
    const headers = announce ? announcement(rate, burst, bucket.tokens) : {};
    if (admitted) return { headers };
    return { retryAfter: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)), headers };
  }

  private prune(keep: string): void {
    const { requestsPerSecond: rate, burst } = this.config;
    const now = this.now();
    for (const [key, bucket] of this.buckets) {
      if (key !== keep && bucket.tokens + ((now - bucket.at) / 1000) * rate >= burst) this.buckets.delete(key);
    }
  }
}

/**
 * The limit in the form of draft-ietf-httpapi-ratelimit-headers, which takes whole numbers: the
 * policy as `q` requests per `w` seconds, rounded down so that it never states more than the rate;
 * then what the bucket holds, `r` whole requests now and full again in `t` seconds.
 */
function announcement(rate: number, burst: number, tokens: number): Record<string, string> {
  const window = rate >= 1 ? 1 : Math.ceil(1 / rate);
  const quota = Math.max(1, Math.floor(rate * window));
  const remaining = Math.max(0, Math.floor(tokens));
  const untilFull = Math.max(0, Math.ceil((burst - tokens) / rate));
  return {
    "ratelimit-policy": `"default";q=${quota};w=${window}`,
    ratelimit: `"default";r=${remaining};t=${untilFull}`,
  };
}
