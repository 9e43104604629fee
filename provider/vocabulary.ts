/**
 * The words every layer of the provider uses: plain JSON values, what check and diff answer, time
 * as a call sees it, and the marker of a value unknown at preview. This file imports nothing, so
 * any file can import it without closing a circle (test/unit/layers.test.ts).
 */

/** A plain JSON value, as stored in Pulumi state. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A property bag as stored in state (inputs or outputs), without the host's `__provider`. */
export type Props = Record<string, Json>;

/** One validation failure, reported by the engine at preview against the named property. */
export interface CheckFailure {
  readonly property: string;
  readonly reason: string;
}

export interface DiffResult {
  readonly changes: boolean;
  /** Properties whose change requires a new object. */
  readonly replaces: readonly string[];
  /** Properties that changed, replaced or updated in place (for the engine's detailed diff). */
  readonly changed: readonly string[];
  /** Delete the old object before creating its replacement (unique names). */
  readonly deleteBeforeReplace: boolean;
}

/** Time as a call sees it: injected, so that tests of long waits take no real time. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The marker the dynamic-provider host gives an input whose value is not known during preview
 * (an output of a resource not yet created). Kept here so cores can skip validating it.
 */
export const unknownValue = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(value: unknown): boolean {
  return value === unknownValue;
}
