/** Values as answers spell them, read into what the provider keeps: each parser returns undefined for a value it cannot read. */
import { AnswerObject, isObj } from "./object.js";

export function text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/**
 * An identifier: a non-empty string, or an integer kept as its decimal string (the client parses
 * integers past 2^53 as their digits, so none loses precision).
 */
export function identifier(v: unknown): string | undefined {
  if (typeof v === "number") return Number.isSafeInteger(v) ? String(v) : undefined;
  return text(v);
}

/** A boolean, also spelled `"true"`/`"false"`, `1`/`0` or `"yes"`/`"no"`. */
export function flag(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v !== "string") return undefined;
  const s = v.trim().toLowerCase();
  if (s === "true" || s === "1" || s === "yes") return true;
  if (s === "false" || s === "0" || s === "no") return false;
  return undefined;
}

/** A finite non-negative number, also given as a numeric string. */
export function amount(v: unknown): number | undefined {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : undefined;
}

const rfc3339ish = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const httpDate = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
/** Epoch values at or above this are milliseconds: 10^11 seconds is the year 5138. */
const millisecondsFrom = 1e11;

function iso(ms: number): string | undefined {
  if (!Number.isFinite(ms)) return undefined;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return undefined;
  const s = date.toISOString();
  return s.endsWith(".000Z") ? `${s.slice(0, -5)}Z` : s;
}

/**
 * A point in time as an RFC 3339 UTC string: from RFC 3339 (a space for `T` and a missing zone,
 * read as UTC, tolerated), an HTTP date, or epoch seconds or milliseconds as numbers or digits.
 */
export function timestamp(v: unknown): string | undefined {
  if (typeof v === "number") return v > 0 ? iso(v >= millisecondsFrom ? v : v * 1000) : undefined;
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return timestamp(Number(s));
  if (httpDate.test(s)) return iso(Date.parse(s));
  if (!rfc3339ish.test(s)) return undefined;
  const withT = s.replace(" ", "T");
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(withT) || !withT.includes("T") ? withT : `${withT}Z`;
  return iso(Date.parse(zoned.replace(/([+-]\d{2})(\d{2})$/, "$1:$2")));
}

/** Strings, or objects naming one (`{"name": "ns1…"}`), as a list of strings. */
export function stringList(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const item of v) {
    const s =
      text(item) ??
      (isObj(item) ? new AnswerObject(item).read(["name", "host", "hostname", "value"], text) : undefined);
    if (s === undefined) return undefined;
    out.push(s);
  }
  return out;
}

/** A whole number that is not negative (a page number, an offset). */
export function wholeNumber(v: unknown): number | undefined {
  const n = amount(v);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}
