/** Limits of spec §8. */
export const MAX_MEDIA_BYTES = 2 * 1024 ** 3;
export const MAX_AUDIO_SECONDS = 6 * 3600;
export const UPLOAD_TTL_MS = 24 * 3600 * 1000;
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_REDIRECTS = 5;

/** US$0.02 per audio hour, charged per started minute (spec §8). */
export function priceUsd(seconds: number): number {
  return roundUsd((Math.ceil(seconds / 60) * 0.02) / 60);
}

/** Keeps sums of tiny prices free of binary-fraction noise. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e12) / 1e12;
}

export function formatUsd(usd: number): string {
  const fixed = usd.toFixed(6).replace(/0+$/, "");
  return fixed.endsWith(".") ? `${fixed}00` : fixed.split(".")[1]!.length < 2 ? `${fixed}0` : fixed;
}
