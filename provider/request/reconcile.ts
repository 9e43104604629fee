/**
 * Exactly once (contract §2.4): a request that must not be repeated blindly (a create) whose
 * attempt may have been processed, its answer lost or unusable, is not sent again before the
 * caller's `reconcile` looked for what it made. Found: that is the answer. Not found: it did not
 * happen and may be sent again, unless the platform answered 2xx (it was processed for sure). No
 * way to look: an `OutcomeUnknownError` says what to check.
 */
import { type CloudPlatformError, OutcomeUnknownError, UnexpectedResponseError } from "../errors.js";
import type { Attempt, Outcome, RequestOptions } from "./types.js";

/** `attempt` of a non-idempotent request, reconciled after each unknown outcome. */
export function reconciling<T>(
  attempt: Attempt<T>,
  endpoint: string,
  opts: Pick<RequestOptions<T>, "reconcile" | "unknownOutcomeAdvice">,
): Attempt<T> {
  const { reconcile } = opts;
  // An earlier attempt of this request may have been processed, its answer lost or unreadable.
  let unknownBefore = false;
  return async () => {
    const outcome = await attempt();
    if (outcome.ok) return outcome;
    if (outcome.fate === "unknown" || outcome.fate === "unreadable") {
      unknownBefore = true;
      if (reconcile === undefined) throw outcomeUnknownError(endpoint, outcome.error, opts.unknownOutcomeAdvice);
      const found = await reconcile();
      if (found !== undefined) return reconciled(found);
      // The platform answered 2xx, so the request was processed; not finding its object means the
      // answer cannot be trusted either way, and repeating it could make a second one.
      if (outcome.fate === "unreadable") throw outcome.error.withDetails({ hints: [processedNotFound] });
      return outcome;
    }
    // A repeat refused with 409 after an unknown outcome: the earlier attempt may have taken the name.
    if (outcome.error.status === 409 && unknownBefore && reconcile !== undefined) {
      const found = await reconcile();
      if (found !== undefined) return reconciled(found);
    }
    return outcome;
  };
}

const processedNotFound = "It was processed, but what it made was not found: check the dashboard.";

function reconciled<T>(data: T): Outcome<T> {
  return { ok: true, response: { status: 200, headers: {}, data, reconciled: true } };
}

function outcomeUnknownError(endpoint: string, cause: CloudPlatformError, advice?: string): OutcomeUnknownError {
  const what =
    cause instanceof UnexpectedResponseError
      ? `was processed (${cause.status ?? "2xx"}) but its answer could not be read (received keys [${cause.receivedKeys.join(", ")}])`
      : `may have reached the server but no answer arrived (${cause.code})`;
  return new OutcomeUnknownError(
    `${endpoint} ${what}; it was not repeated because repeating it could create a duplicate`,
    advice ?? "Check the object in the dashboard, then run `pulumi up` again.",
    { endpoint, cause, ...(cause.status === undefined ? {} : { status: cause.status }) },
  );
}
