/** What the answer of a create or a delete means for the object. */
import { isNotFound } from "../errors.js";

/** What a create produced, and whether it was found after an unknown outcome rather than answered. */
export interface Created<T> {
  readonly value: T;
  /**
   * Found by its name after an answer was lost or unreadable: made by this request, or by an earlier
   * one that took the same name (an interrupted run), so nothing is known of its history.
   */
  readonly reconciled: boolean;
}

/** Resolves true when done (any 2xx, whatever its body), false when the object was already gone (404, 410). */
export async function ignoreNotFound(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
