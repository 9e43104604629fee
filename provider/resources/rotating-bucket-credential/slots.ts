/**
 * The two credentials of a RotatingBucketCredential as its state holds them, and what an `up` has to
 * do to them, decided from the state, the inputs and the clock alone: `diff` shows it (so a preview
 * shows a due rotation), `update` does it. Pure: no call, no log.
 */
import { fingerprint } from "../../redact.js";
import { sameJson } from "../../tables.js";
import { isUnknown } from "../../vocabulary.js";
import type { RotatingBucketCredentialInputs, RotatingBucketCredentialOutputs, Slot, Status } from "./fields.js";

type Inputs = RotatingBucketCredentialInputs;
type Outputs = RotatingBucketCredentialOutputs;

/** A credential's part: `current` is what applications are told to use, `previous` the other one. */
export type Role = "current" | "previous";

/** One credential as the state holds it. */
export interface Held {
  readonly accessKeyId: string;
  /** Empty when Pulumi does not know it. */
  readonly secretAccessKey: string;
  readonly secretKnown: boolean;
  readonly status: Status;
}

/** A place with no credential in it (its create failed, or it was deleted outside Pulumi). */
export const noCredential: Held = { accessKeyId: "", secretAccessKey: "", secretKnown: false, status: "missing" };

export const otherSlot = (slot: Slot): Slot => (slot === "a" ? "b" : "a");

export function slotOf(outs: Pick<Outputs, "currentSlot">, role: Role): Slot {
  return role === "current" ? outs.currentSlot : otherSlot(outs.currentSlot);
}

export function heldOf(outs: Outputs, role: Role): Held {
  return role === "current"
    ? {
        accessKeyId: outs.accessKeyId ?? "",
        secretAccessKey: outs.secretAccessKey ?? "",
        secretKnown: outs.secretKnown ?? false,
        status: outs.status ?? "missing",
      }
    : {
        accessKeyId: outs.previousAccessKeyId ?? "",
        secretAccessKey: outs.previousSecretAccessKey ?? "",
        secretKnown: outs.previousSecretKnown ?? false,
        status: outs.previousStatus ?? "missing",
      };
}

/** `outs` holding `held` as its `role` credential, with its secret's fingerprint. */
export function withHeld(outs: Outputs, role: Role, held: Held): Outputs {
  const secret = held.secretKnown ? held.secretAccessKey : "";
  return role === "current"
    ? {
        ...outs,
        accessKeyId: held.accessKeyId,
        secretAccessKey: secret,
        secretFingerprint: fingerprint(secret),
        secretKnown: held.secretKnown,
        status: held.status,
      }
    : {
        ...outs,
        previousAccessKeyId: held.accessKeyId,
        previousSecretAccessKey: secret,
        previousSecretFingerprint: fingerprint(secret),
        previousSecretKnown: held.secretKnown,
        previousStatus: held.status,
      };
}

/** The two swapped: the previous credential becomes current, in the other slot. */
export function swapped(outs: Outputs): Outputs {
  const current = heldOf(outs, "current");
  const previous = heldOf(outs, "previous");
  return withHeld(
    withHeld({ ...outs, currentSlot: otherSlot(outs.currentSlot) }, "current", previous),
    "previous",
    current,
  );
}

const unitMs: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const longest = 3650 * unitMs["d"]!;

/**
 * `30d`, `12h`, `1d12h` in milliseconds (`m` minutes, `h` hours, `d` days, `w` weeks), or what is
 * wrong with the text.
 */
export function durationOf(text: string, zeroAllowed = false): number | { readonly problem: string } {
  const form = 'a whole number and a unit, m (minutes), h, d or w, e.g. "30d" or "12h"';
  const trimmed = text.trim();
  if (!/^(\d+[mhdw])+$/.test(trimmed)) return { problem: `must be ${form} (got "${text}")` };
  let ms = 0;
  for (const [, count, unit] of trimmed.matchAll(/(\d+)([mhdw])/g)) ms += Number(count) * unitMs[unit as string]!;
  if (ms === 0 && zeroAllowed) return 0;
  if (ms < unitMs["m"]!) return { problem: `must be at least one minute (got "${text}")` };
  if (ms > longest) return { problem: `must be at most 3650d, ten years (got "${text}")` };
  return ms;
}

/** A duration input known and valid: its milliseconds; anything else (unset, unknown at preview): undefined. */
function knownDuration(text: string | undefined, zeroAllowed = false): number | undefined {
  if (text === undefined || isUnknown(text)) return undefined;
  const ms = durationOf(text, zeroAllowed);
  return typeof ms === "number" ? ms : undefined;
}

/**
 * The default `minimumOverlap`. An hour covers an application that reads the stack's outputs again
 * after each `up` (or at its start, or on a refused request), and a person who reruns a failed `up`
 * after fixing it; it costs a rotation asked for within the hour a wait, never a rotation skipped.
 */
export const defaultMinimumOverlap = "1h";

/**
 * How long a pair stays valid at least once a rotation made it previous: `minimumOverlap`, or by
 * default an hour, but never longer than `rotateAfter` (the schedule would always wait) nor
 * `deactivatePreviousAfter` (the pair stops then anyway); check refuses a `minimumOverlap` set longer.
 */
export function minimumOverlapOf(news: Inputs): { readonly ms: number; readonly text: string } {
  const set = knownDuration(news.minimumOverlap, true);
  if (set !== undefined) return { ms: set, text: news.minimumOverlap as string };
  const bounds = [defaultMinimumOverlap, news.rotateAfter, news.deactivatePreviousAfter].flatMap((text) => {
    const ms = knownDuration(text);
    return ms === undefined || text === undefined ? [] : [{ ms, text }];
  });
  return bounds.reduce((shortest, bound) => (bound.ms < shortest.ms ? bound : shortest));
}

function at(rotatedAt: string, ms: number | undefined): number | undefined {
  const start = Date.parse(rotatedAt);
  return ms === undefined || Number.isNaN(start) ? undefined : start + ms;
}

/** When `rotateAfter` makes the next rotation due after `rotatedAt`, ISO 8601; "" without it. */
export function nextRotationAt(rotatedAt: string, rotateAfter: string | undefined): string {
  const due = at(rotatedAt, knownDuration(rotateAfter));
  return due === undefined ? "" : new Date(due).toISOString();
}

/** Why a rotation is due now, or undefined when it is not. */
export function rotationDue(olds: Outputs, news: Inputs, now: number): string | undefined {
  if (!sameJson(olds.rotateWhenChanged, news.rotateWhenChanged)) return "rotateWhenChanged changed";
  const due = at(olds.rotatedAt, knownDuration(news.rotateAfter));
  if (due !== undefined && now >= due) {
    return `rotateAfter ${news.rotateAfter}: the last rotation was at ${olds.rotatedAt}, due at ${new Date(due).toISOString()}`;
  }
  return undefined;
}

/**
 * Until when (ms) a due rotation waits, or undefined when it may go now: the previous credential
 * became previous at the last rotation, less than the minimum overlap ago. Applications may still use
 * it: the stack's outputs keep the pair of the last `up` that succeeded, so after an `up` that rotated
 * and then failed on another resource they still give this one, and regenerating it would refuse
 * their requests. The pair that was previous since the create was never handed out as current, and
 * one deactivated, missing or with its secret lost works for no one: neither waits.
 */
export function rotationWaitsUntil(olds: Outputs, news: Inputs, now: number): number | undefined {
  if (olds.rotations === 0 || heldOf(olds, "previous").status !== "active") return undefined;
  const until = at(olds.rotatedAt, minimumOverlapOf(news).ms);
  return until !== undefined && now < until ? until : undefined;
}

/** Whether the previous credential is past its grace period (`deactivatePreviousAfter`) at `now`. */
export function pastGrace(olds: Outputs, news: Inputs, now: number): boolean {
  const end = at(olds.rotatedAt, knownDuration(news.deactivatePreviousAfter));
  return end !== undefined && now >= end;
}

/** One thing an `up` does, in order. */
export type Work =
  /** The credential is missing: a new one is created in its place. */
  | { readonly kind: "create"; readonly role: Role }
  /** Its secret is lost: regenerated (and activated), the other credential untouched. */
  | { readonly kind: "regenerate"; readonly role: Role }
  /** It is deactivated and should not be: activated. */
  | { readonly kind: "activate"; readonly role: Role }
  /** The previous credential regenerated and activated, then made current. */
  | { readonly kind: "rotate"; readonly reason: string }
  /** The previous credential is past its grace period: deactivated. */
  | { readonly kind: "deactivatePrevious" }
  /**
   * A rotation is due, but the previous credential became previous less than the minimum overlap
   * ago: nothing is done, and the rotation stays due until the first `up` after `until` (ISO 8601).
   */
  | { readonly kind: "waitForOverlap"; readonly reason: string; readonly until: string; readonly overlap: string };

/**
 * What an `up` at `now` does, in order: repairs first (a credential missing, deactivated or with its
 * secret lost), the current one only when it does not work; then the rotation if one is due and the
 * minimum overlap allows it (else the wait), or the previous credential's deactivation once its grace
 * period has passed.
 */
export function planOf(olds: Outputs, news: Inputs, now: number): Work[] {
  const work: Work[] = [];
  const due = rotationDue(olds, news, now);
  const waitsUntil = due === undefined ? undefined : rotationWaitsUntil(olds, news, now);
  const rotation = waitsUntil === undefined ? due : undefined;
  const retired = rotation === undefined && pastGrace(olds, news, now);
  const current = heldOf(olds, "current").status;
  if (current === "missing") work.push({ kind: "create", role: "current" });
  if (current === "secretLost") work.push({ kind: "regenerate", role: "current" });
  if (current === "inactive") work.push({ kind: "activate", role: "current" });
  const previous = heldOf(olds, "previous").status;
  // A rotation regenerates and activates the previous credential anyway; one past its grace period
  // is about to be deactivated, and a rotation regenerates it before it is used again.
  if (previous === "missing") work.push({ kind: "create", role: "previous" });
  if (rotation === undefined && !retired && previous === "secretLost")
    work.push({ kind: "regenerate", role: "previous" });
  if (rotation === undefined && !retired && previous === "inactive") work.push({ kind: "activate", role: "previous" });
  if (rotation !== undefined) work.push({ kind: "rotate", reason: rotation });
  if (due !== undefined && waitsUntil !== undefined) {
    const until = new Date(waitsUntil).toISOString();
    work.push({ kind: "waitForOverlap", reason: due, until, overlap: minimumOverlapOf(news).text });
  }
  if (retired && previous !== "inactive") work.push({ kind: "deactivatePrevious" });
  return work;
}
