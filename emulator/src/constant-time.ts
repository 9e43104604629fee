import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Compares a secret or signature a client sent with the expected one in constant time. Both are
 * hashed first, so neither how many leading characters matched nor the expected length leaks.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
