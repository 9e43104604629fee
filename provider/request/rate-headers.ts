/**
 * What an answer's rate-limit headers announce (docs/api-contract.md §2.3). The spec shows no rate
 * limit; a platform that has one often says it in headers, in one of the forms in use: the IETF
 * draft's (`RateLimit-Policy: "default";q=100;w=60` with `RateLimit: "default";r=50;t=30`; its
 * earlier versions `RateLimit-Limit: 100, 100;w=60`, `RateLimit-Remaining`, `RateLimit-Reset`, and
 * `RateLimit: limit=100, remaining=50, reset=5`), or the older `X-RateLimit-*` and `X-Rate-Limit-*`
 * (`-Limit`, `-Remaining`, `-Reset` as seconds or as a Unix time, `-Reset-After`). Two things are
 * read from them, the rate and the reset; never required: an answer without them is paced by its
 * refusals (pace.ts).
 */

import { decimalOf, parseRetryAfter } from "../retry.js";

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The prefixes the forms above put before `-limit`, `-remaining`, `-reset` and `-policy`. */
const prefixes = ["ratelimit", "x-ratelimit", "x-rate-limit"] as const;

/** A value above this many seconds is a Unix time (GitHub's `X-RateLimit-Reset`), not a delay. */
const unixTimeAbove = 1_000_000_000;

/** One header's value, joined when it came several times (a list header may be split). */
function valueOf(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * The members of a list header, each its first part and its `;key=value` parameters: the draft's
 * `"default";q=100;w=60`, `100;w=60`, and the dictionary form `limit=100` (a member with a `=` and
 * no parameters, whose key is its name).
 */
function members(text: string): { readonly item: string; readonly params: ReadonlyMap<string, string> }[] {
  return text.split(",").map((member) => {
    const [first = "", ...rest] = member.split(";").map((part) => part.trim());
    const params = new Map<string, string>();
    for (const part of rest) {
      const eq = part.indexOf("=");
      if (eq > 0) params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
    }
    const eq = first.indexOf("=");
    if (rest.length === 0 && eq > 0 && !first.startsWith('"')) {
      params.set(first.slice(0, eq).trim().toLowerCase(), first.slice(eq + 1).trim());
      return { item: "", params };
    }
    return { item: first, params };
  });
}

/**
 * A policy over a longer window is a budget, not a rate: 5,000 an hour lets a deployment of 500
 * calls go at full speed, where pacing it at 1.4 a second would take six minutes. A budget spent
 * is met by refusals and their `Retry-After` (or reset) like any other.
 */
const longestPacedWindowSeconds = 60;

/**
 * The requests per second a policy header allows: its quota over its window (`q`, or the bare
 * number, per `w` seconds, at most `longestPacedWindowSeconds`); the smallest when it names
 * several (10 a second and 300 a minute both apply). Undefined without a window: a quota alone
 * says nothing of a rate.
 */
export function announcedRate(headers: Headers): number | undefined {
  let rate: number | undefined;
  for (const prefix of prefixes) {
    for (const name of [`${prefix}-policy`, `${prefix}-limit`]) {
      const text = valueOf(headers, name);
      if (text === undefined) continue;
      for (const { item, params } of members(text)) {
        const quota = decimalOf(params.get("q") ?? item);
        const window = decimalOf(params.get("w"));
        if (quota === undefined || window === undefined || !(quota > 0) || !(window > 0)) continue;
        if (window > longestPacedWindowSeconds) continue;
        rate = Math.min(rate ?? Infinity, quota / window);
      }
    }
  }
  return rate;
}

/**
 * The wait until the limit lets requests through again, from the reset the headers announce: the
 * draft's `t` parameter or `reset` key, `*-Reset` (seconds, or a Unix time), `*-Reset-After`.
 * `now` is the wall clock's milliseconds, for a Unix time. What a refusal without `Retry-After`
 * waits (classify.ts, pace.ts).
 */
export function announcedResetMs(headers: Headers, now: number): number | undefined {
  const structured = valueOf(headers, "ratelimit");
  if (structured !== undefined) {
    for (const { params } of members(structured)) {
      const seconds = decimalOf(params.get("t") ?? params.get("reset"));
      if (seconds !== undefined) return msFrom(seconds, now);
    }
  }
  for (const prefix of prefixes) {
    const after = decimalOf(valueOf(headers, `${prefix}-reset-after`));
    if (after !== undefined) return after * 1000;
    const reset = decimalOf(valueOf(headers, `${prefix}-reset`));
    if (reset !== undefined) return msFrom(reset, now);
  }
  return undefined;
}

function msFrom(seconds: number, now: number): number {
  return seconds > unixTimeAbove ? Math.max(0, seconds * 1000 - now) : seconds * 1000;
}

/** A refusal's wait (429): its `Retry-After`, else the reset its rate-limit headers announce. */
export function refusalWaitMs(headers: Headers, now: number): number | undefined {
  return parseRetryAfter(headers["retry-after"], now) ?? announcedResetMs(headers, now);
}
