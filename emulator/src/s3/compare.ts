import { timingSafeEqual } from "node:crypto";

/** Compares signatures without leaking, through timing, how many leading characters matched. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}
