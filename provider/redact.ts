/**
 * Every secret the process has seen (configured API key and JWT, keys and S3 secrets returned by
 * the API) is registered here, and any text shown to a user passes through `redact` first. The
 * contract says the server never echoes secrets; this makes sure of it.
 */
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
