/** Field spellings and encodings that several shapes share. */

/** The timestamp fields of §3–§8 (RFC 3339 strings in the canonical shape). */
const TIME_FIELDS = new Set(["created_at", "completed_at", "expires_at"]);

/** An RFC 3339 timestamp field re-encoded by `encode`; other fields and null values pass through. */
export function encodeTime(key: string, value: unknown, encode: (ms: number) => number): unknown {
  return TIME_FIELDS.has(key) && typeof value === "string" ? encode(Date.parse(value)) : value;
}

export const toEpochSeconds = (ms: number): number => Math.floor(ms / 1000);
export const toEpochMillis = (ms: number): number => ms;

export const camelCase = (key: string): string => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
