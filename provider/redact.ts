/**
 * Every secret the process has seen (configured API key and JWT, keys and S3 secrets returned by
 * the API) is registered here, and any text shown to a user passes through `redact` first. The
 * contract says the server never echoes secrets; this makes sure of it. What may be shown of a
 * secret is its fingerprint.
 */
import { createHash } from "node:crypto";

const secrets = new Set<string>();

/** Secrets shorter than this are not redacted: they would mangle ordinary words. */
const minLength = 6;

export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= minLength) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join("[redacted]");
  }
  return out;
}

/** Redacts, collapses whitespace and truncates server text to `max` characters. */
export function safeText(text: string, max = 300): string {
  const clean = redact(text).replace(/\s+/g, " ").trim();
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/**
 * What may be shown of a secret: the first 16 hex digits (64 bits) of its SHA-256, "" when the
 * secret is unknown (empty). It changes whenever the secret does, so a diff or a log line can say
 * which secret changed. It gives nothing usable away: the secrets it is taken of are random and long
 * (an S3 secret or an API key carries 240 random bits on the emulator, 160 or more on any platform
 * whose secrets look like AWS's), so some 2^96 or more secrets share each fingerprint, which can
 * neither be reversed nor used to test a guess short of guessing the secret itself. 64 bits keep
 * the secrets of one stack apart (two share a fingerprint with odds of 1 in 2^64).
 */
export function fingerprint(secret: string | undefined): string {
  if (secret === undefined || secret === "") return "";
  return createHash("sha256").update(secret).digest("hex").slice(0, 16);
}
