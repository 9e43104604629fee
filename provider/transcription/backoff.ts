/**
 * Delays between polls and upload retries: short at first so a job that ends soon is seen soon,
 * capped so a long job costs few requests, and jittered so parallel deployments do not poll in step.
 */
export interface BackoffOptions {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Source of randomness in [0, 1); injectable so tests are deterministic. */
  readonly random?: () => number;
}

export const defaultPollBackoff: BackoffOptions = { initialMs: 1_000, maxMs: 15_000 };

/** The delay before attempt `attempt` (0-based): doubling from `initialMs`, capped, ±20 % jitter. */
export function backoffDelay(options: BackoffOptions, attempt: number): number {
  const base = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt, 30));
  const random = options.random ?? Math.random;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** A sleep the caller can cut short (deadline reached). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
