/**
 * The retry stage, around every other: an attempt that failed is made again while its fate allows
 * it (types.ts, `Fate`) and the policy's attempts and time last (retry.ts, contract §2.2), after the
 * server's `Retry-After` or a backoff with jitter, then through the pacing gate again (pace.ts), which
 * may hold it longer. Giving up, it throws the last error with the
 * attempts and the time they took.
 */
import { backoffDelay, notProcessedStatuses, type RetryPolicy } from "../retry.js";
import type { Clock } from "../vocabulary.js";
import type { ApiResponse, Attempt } from "./types.js";

/**
 * An idempotent request answered 2xx with a body that is not JSON (spoiled on the way: a proxy's
 * page, a cut answer) is repeated at most this many times.
 */
const maxUnreadableRepeats = 2;

export async function retrying<T>(
  attempt: Attempt<T>,
  endpoint: string,
  policy: RetryPolicy,
  clock: Clock,
  onRetry?: (message: string) => void,
): Promise<ApiResponse<T>> {
  const started = clock.now();
  let unreadable = 0;
  for (let attempts = 1; ; attempts++) {
    const outcome = await attempt();
    if (outcome.ok) return outcome.response;
    const { error } = outcome;
    if (outcome.fate === "answered") throw error;
    if (outcome.fate === "unreadable" && (!outcome.spoiled || ++unreadable > maxUnreadableRepeats)) throw error;
    const gaveUp = () => error.withDetails({ attempts, elapsedMs: clock.now() - started });
    // A 429 or a 503 was not processed, and may be a limit's refusal (pace.ts, `busyLimitCount`).
    const refused = error.status !== undefined && notProcessedStatuses.has(error.status);
    if (attempts >= (refused ? policy.maxRefusedAttempts : policy.maxAttempts)) throw gaveUp();
    const wait = outcome.retryAfterMs ?? backoffDelay(attempts - 1, policy);
    if (clock.now() - started + wait > policy.maxTotalMs) throw gaveUp();
    const seconds = Math.round(wait / 100) / 10;
    // A refusal's wait may hold every other request too: the pacing gate decides (pace.ts, `holdFor`).
    const asked = outcome.retryAfterMs === undefined ? "" : ", as the platform asked";
    onRetry?.(`${endpoint}: ${error.code}; retrying in ${seconds}s${asked}`);
    await clock.sleep(wait);
  }
}
