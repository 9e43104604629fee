/**
 * RotatingBucketCredential: two S3 credentials of one bucket, in slots `a` and `b`, one of them
 * current. A rotation regenerates the other one (the previous credential, which applications were
 * told to leave at the last rotation), activates it and makes it current: the credential that was
 * current keeps its secret until the next rotation, so an application that picks up the current pair
 * after each `up` never meets a refused request. What is due (a rotation by `rotateWhenChanged` or
 * `rotateAfter`, a repair, the previous credential's deactivation) is decided in `diff` from the
 * state and the clock (slots.ts), so a preview shows it and no refresh is needed.
 *
 * A rotation never regenerates a pair less than `minimumOverlap` after it became previous: the
 * stack's outputs, where applications read the pair, still give it after an `up` that rotated and
 * then failed on another resource. A rotation due sooner waits, with a warning, and stays due.
 *
 * Exactly once: a rotation creates nothing (regenerate, activate, then the swap is the state's
 * alone), and is done again whole by the next `up` when it was interrupted, since the state still
 * says it is due; the current credential is never touched by it. Only a missing credential is
 * created, through the journal (../credential-create.ts), one journal entry per slot.
 */
import { randomUUID } from "node:crypto";
import { requireS3Url, s3EndpointForRead } from "../../config.js";
import type { CallContext, ResourceCore } from "../../contract.js";
import { goneFromState } from "../../contract.js";
import { isNotFound, PartialCreateError } from "../../errors.js";
import { fingerprint } from "../../redact.js";
import { diffInputs, inputsFrom, unknownInputs } from "../../tables.js";
import { isUnknown, type CheckFailure, type Json } from "../../vocabulary.js";
import { deleteCredential, regenerateCredential, setCredentialActive } from "../../platform/bucket-credential/api.js";
import type { Credential } from "../../platform/bucket-credential/parse.js";
import { s3Region } from "../../s3/fields.js";
import { cachedCredentialList, keyRemoved, listOutdated, nameOfBucket, oneAtATime } from "../bucket-facts.js";
import { createOnce, type Creator } from "../credential-create.js";
import { refusedOutright } from "../interrupted.js";
import { requiredBucketId, stringMap } from "../validate.js";
import { probeSecret } from "../../s3/secret-probe.js";
import {
  rotatingBucketCredentialTable as table,
  type RotatingBucketCredentialInputs,
  type RotatingBucketCredentialOutputs,
  type Slot,
} from "./fields.js";
import {
  durationOf,
  heldOf,
  nextRotationAt,
  noCredential,
  planOf,
  slotOf,
  swapped,
  withHeld,
  type Held,
  type Role,
  type Work,
} from "./slots.js";
import { takeOverSlot } from "./take-over.js";

export type { RotatingBucketCredentialInputs, RotatingBucketCredentialOutputs };

type Inputs = RotatingBucketCredentialInputs;
type Outputs = RotatingBucketCredentialOutputs;
type Core = ResourceCore<Inputs, Outputs>;

const roles: readonly Role[] = ["current", "previous"];

/** Whose create the journal records for a slot: one entry per slot, so both are found after a kill. */
const creatorOf = (ctx: CallContext, slot: Slot): Creator => ({ type: table.type, name: `${ctx.name}#${slot}` });

/** How a log line names a credential: its access key id, slot and secret's fingerprint (never the secret). */
function named(outs: Outputs, role: Role): string {
  const held = heldOf(outs, role);
  const id = held.accessKeyId === "" ? "" : `${held.accessKeyId} `;
  const print = held.secretKnown ? `, secret fingerprint ${fingerprint(held.secretAccessKey)}` : "";
  return `${id}(slot ${slotOf(outs, role)}${print})`;
}

/** `named`, with the credential's part: "the current credential CPAK… (slot a, …)". */
const label = (outs: Outputs, role: Role): string => `the ${role} credential ${named(outs, role)}`;

/** A call about the state proves it holds its credentials: their journal entries have done their job. */
function held(ctx: CallContext, outs: Outputs): void {
  for (const role of roles) {
    const { accessKeyId } = heldOf(outs, role);
    if (accessKeyId !== "") ctx.journal.held(table.type, creatorOf(ctx, slotOf(outs, role)).name, accessKeyId);
  }
}

/** The program's inputs, those left out absent (the engine cannot serialize `undefined`). */
function inputsOf(inputs: Inputs): Inputs {
  const { bucketId, rotateAfter, rotateWhenChanged, deactivatePreviousAfter, minimumOverlap, takeOver } = inputs;
  return {
    bucketId,
    ...(rotateAfter === undefined ? {} : { rotateAfter }),
    ...(rotateWhenChanged === undefined ? {} : { rotateWhenChanged }),
    ...(deactivatePreviousAfter === undefined ? {} : { deactivatePreviousAfter }),
    ...(minimumOverlap === undefined ? {} : { minimumOverlap }),
    ...(takeOver === undefined ? {} : { takeOver }),
  };
}

/** `outs` with the program's inputs `inputs` in place of theirs, and the schedule that follows. */
function withInputs(outs: Outputs, inputs: Inputs): Outputs {
  const {
    rotateAfter: _a,
    rotateWhenChanged: _w,
    deactivatePreviousAfter: _d,
    minimumOverlap: _m,
    takeOver: _t,
    ...rest
  } = outs;
  return { ...rest, ...inputsOf(inputs), nextRotationAt: nextRotationAt(outs.rotatedAt, inputs.rotateAfter) };
}

function duration(
  property: string,
  value: Json | undefined,
  failures: CheckFailure[],
  zeroAllowed = false,
): number | undefined {
  if (value === undefined || value === null || isUnknown(value)) return undefined;
  if (typeof value !== "string") {
    failures.push({ property, reason: `${property} must be a string such as "30d" or "12h"` });
    return undefined;
  }
  const ms = durationOf(value, zeroAllowed);
  if (typeof ms === "number") return ms;
  failures.push({ property, reason: `${property} ${ms.problem}` });
  return undefined;
}

function takeOverInput(value: Json | undefined, failures: CheckFailure[]): string[] | undefined {
  if (value === undefined || value === null || isUnknown(value)) return undefined;
  const ids = Array.isArray(value) ? value : [];
  const valid =
    Array.isArray(value) &&
    ids.length >= 1 &&
    ids.length <= 2 &&
    ids.every((id) => isUnknown(id) || (typeof id === "string" && id.trim() !== "")) &&
    (ids.length < 2 || ids[0] !== ids[1] || isUnknown(ids[0]));
  if (!valid) {
    failures.push({
      property: "takeOver",
      reason:
        "takeOver must list one or two different access key ids of credentials of the bucket, e.g. " +
        '["CPAK..."]: the first becomes the current credential',
    });
    return undefined;
  }
  return ids as string[];
}

const check: Core["check"] = (_ctx, _olds, news) => {
  const failures = unknownInputs(table, news);
  const bucketId = requiredBucketId(news["bucketId"], failures);
  const rotateWhenChanged = stringMap("rotateWhenChanged", news["rotateWhenChanged"], failures);
  const period = duration("rotateAfter", news["rotateAfter"], failures);
  const grace = duration("deactivatePreviousAfter", news["deactivatePreviousAfter"], failures);
  if (period !== undefined && grace !== undefined && grace >= period) {
    failures.push({
      property: "deactivatePreviousAfter",
      reason:
        `deactivatePreviousAfter (${String(news["deactivatePreviousAfter"])}) must be shorter than rotateAfter ` +
        `(${String(news["rotateAfter"])}): the next rotation would come first, and the previous credential would ` +
        "never be deactivated",
    });
  }
  const overlap = duration("minimumOverlap", news["minimumOverlap"], failures, true);
  overlapFits(news, overlap, { period, grace }, failures);
  const takeOver = takeOverInput(news["takeOver"], failures);
  const text = (name: string) => (typeof news[name] === "string" ? (news[name] as string) : undefined);
  const rotateAfter = text("rotateAfter");
  const deactivatePreviousAfter = text("deactivatePreviousAfter");
  const minimumOverlap = text("minimumOverlap");
  return {
    inputs: inputsOf({ bucketId, rotateAfter, rotateWhenChanged, deactivatePreviousAfter, minimumOverlap, takeOver }),
    failures,
  };
};

/**
 * A `minimumOverlap` set longer than `rotateAfter` would hold every scheduled rotation back, and one
 * longer than `deactivatePreviousAfter` protects nothing (the pair stops when deactivated): both
 * refused, as the two settings contradict each other. Left out, its default is shortened to fit.
 */
function overlapFits(
  news: Record<string, Json>,
  overlap: number | undefined,
  bounds: { readonly period: number | undefined; readonly grace: number | undefined },
  failures: CheckFailure[],
): void {
  if (overlap === undefined) return;
  const set = `minimumOverlap (${String(news["minimumOverlap"])})`;
  if (bounds.period !== undefined && overlap > bounds.period) {
    failures.push({
      property: "minimumOverlap",
      reason:
        `${set} must not be longer than rotateAfter (${String(news["rotateAfter"])}): every scheduled rotation ` +
        "would wait for it; shorten it or leave it out",
    });
  }
  if (bounds.grace !== undefined && overlap > bounds.grace) {
    failures.push({
      property: "minimumOverlap",
      reason:
        `${set} must not be longer than deactivatePreviousAfter (${String(news["deactivatePreviousAfter"])}): the ` +
        "previous pair stops working when it is deactivated, so waiting longer protects no one; shorten it or leave it out",
    });
  }
}

/** What the log says an `up` is about to do, decided in diff, so a preview shows it too. */
function announce(outs: Outputs, work: Work, news: Inputs): string {
  switch (work.kind) {
    case "create":
      return `${label(outs, work.role)} is missing: this update creates a new one in slot ${slotOf(outs, work.role)}.`;
    case "regenerate":
      return (
        `${label(outs, work.role)} lost its secret (regenerated outside Pulumi, or a regeneration's answer was ` +
        "lost): this update regenerates it."
      );
    case "activate":
      return `${label(outs, work.role)} is deactivated: this update activates it.`;
    case "rotate":
      return (
        `rotation due (${work.reason}): this update regenerates the secret of ${label(outs, "previous")} and ` +
        `makes slot ${slotOf(outs, "previous")} current; ${label(outs, "current")} stays valid as the previous ` +
        "credential until the next rotation."
      );
    case "deactivatePrevious":
      return (
        `deactivatePreviousAfter ${news.deactivatePreviousAfter ?? ""} has passed since the last rotation ` +
        `(${outs.rotatedAt}): this update deactivates ${label(outs, "previous")}.`
      );
    case "waitForOverlap":
      return (
        `rotation due (${work.reason}) waits until ${work.until}: ${label(outs, "previous")} became previous ` +
        `at ${outs.rotatedAt}, less than minimumOverlap ${work.overlap} ago, and applications may still use it ` +
        "(after an up that failed, the stack's outputs still give it). The first up after that time rotates, " +
        'with no change needed; a shorter minimumOverlap ("0m": no wait) lets it rotate sooner.'
      );
  }
}

/** The properties a piece of work changes, for the engine's list of what differs. */
function changedBy(work: Work): string[] {
  if (work.kind === "rotate") return ["currentSlot"];
  if (work.kind === "waitForOverlap") return [];
  if (work.kind === "deactivatePrevious") return ["previousStatus"];
  return [work.role === "current" ? "status" : "previousStatus"];
}

const diff: Core["diff"] = (ctx, _id, olds, news) => {
  held(ctx, olds);
  const inputs = diffInputs(table, olds, news);
  // takeOver is read at create only: the slots' ids change with repairs.
  const changed = inputs.changed.filter((name) => name !== "takeOver");
  if (inputs.replaces.length > 0) return { ...inputs, changed };
  const work = planOf(olds, news, ctx.clock.now());
  for (const w of work) {
    if (w.kind === "waitForOverlap") ctx.log.warn(announce(olds, w, news));
    else ctx.log.info(announce(olds, w, news));
  }
  // A waiting rotation is no change yet: the state keeps the rotateWhenChanged it last rotated for,
  // so the rotation stays due, and a preview shows it once the wait is over.
  const waiting = work.some((w) => w.kind === "waitForOverlap");
  const now = waiting ? changed.filter((name) => name !== "rotateWhenChanged") : changed;
  const all = [...new Set([...now, ...work.flatMap(changedBy)])];
  return { changes: all.length > 0, replaces: [], changed: all, deleteBeforeReplace: false };
};

/**
 * Does `work` against the platform, one step at a time, keeping in `outs` what is true after each,
 * so that a failure leaves the state with what was done (`PartialCreateError`).
 */
class Worker {
  /** Slots whose credential this update created: it has a fresh secret, and is active. */
  private readonly fresh = new Set<Slot>();
  rotated = false;

  constructor(
    private readonly ctx: CallContext,
    private readonly bucketId: string,
    public outs: Outputs,
  ) {}

  async do(work: Work): Promise<void> {
    switch (work.kind) {
      case "create":
        return this.create(work.role);
      case "regenerate":
        await this.regenerate(work.role);
        return this.activate(work.role);
      case "activate":
        return this.activate(work.role);
      case "rotate":
        return this.rotate();
      case "deactivatePrevious":
        return this.deactivatePrevious();
      case "waitForOverlap":
        // diff said why, and the state keeps the rotation due (perform).
        return;
    }
  }

  private set(role: Role, held: Held): void {
    this.outs = withHeld(this.outs, role, held);
  }

  private async create(role: Role): Promise<void> {
    const slot = slotOf(this.outs, role);
    const made = await oneAtATime(this.ctx, this.bucketId, () =>
      createOnce(this.ctx, this.bucketId, creatorOf(this.ctx, slot)),
    );
    const { credential } = made;
    this.set(role, {
      accessKeyId: credential.access_key_id,
      secretAccessKey: credential.secret_access_key,
      secretKnown: true,
      // One an interrupted run made may have been deactivated since.
      status: credential.active === false || (made.adopted && credential.active === undefined) ? "inactive" : "active",
    });
    this.fresh.add(slot);
    this.ctx.log.info(`created ${label(this.outs, role)}.`);
    await this.activate(role);
  }

  /**
   * Regenerates the secret. A failure that may have come after the platform regenerated it leaves
   * the stored secret dead: the state then says `secretLost`, and the next `up` regenerates again.
   */
  private async regenerate(role: Role): Promise<void> {
    const before = heldOf(this.outs, role);
    try {
      const regenerated = await regenerateCredential(this.ctx.client, this.bucketId, before.accessKeyId);
      this.set(role, { ...before, secretAccessKey: regenerated.secret_access_key, secretKnown: true });
    } catch (err) {
      if (isNotFound(err)) this.set(role, noCredential);
      else if (!refusedOutright(err))
        this.set(role, { ...before, secretAccessKey: "", secretKnown: false, status: "secretLost" });
      throw err;
    }
  }

  /** Activates unless the state says it is active (a lost secret does not say it). */
  private async activate(role: Role): Promise<void> {
    if (heldOf(this.outs, role).status !== "active") await this.setActive(role, true);
  }

  private async setActive(role: Role, active: boolean): Promise<void> {
    const now = heldOf(this.outs, role);
    try {
      await setCredentialActive(this.ctx.client, this.bucketId, now.accessKeyId, active);
    } catch (err) {
      if (isNotFound(err)) this.set(role, noCredential);
      throw err;
    }
    this.set(role, { ...now, status: active ? "active" : "inactive" });
  }

  private async rotate(): Promise<void> {
    // One this update created has a fresh secret and is active. Any other is activated whatever the
    // state says: it may have been deactivated since the last refresh, and an inactive credential
    // made current would be an outage.
    if (!this.fresh.has(slotOf(this.outs, "previous"))) {
      await this.regenerate("previous");
      await this.setActive("previous", true);
    }
    const old = named(this.outs, "current");
    this.outs = swapped(this.outs);
    this.outs = {
      ...this.outs,
      rotatedAt: new Date(this.ctx.clock.now()).toISOString(),
      rotations: this.outs.rotations + 1,
    };
    this.rotated = true;
    this.ctx.log.info(
      `rotated: ${named(this.outs, "current")} is current now; ${old}, current until now, stays valid until ` +
        "the next rotation.",
    );
  }

  private async deactivatePrevious(): Promise<void> {
    await this.setActive("previous", false);
    this.ctx.log.info(`deactivated ${label(this.outs, "previous")}: its grace period has passed.`);
  }
}

/**
 * Runs `work` on `outs`; a failure leaves what was done in the state. `rotatedBy`: the
 * rotateWhenChanged the state held before, which it keeps while a rotation it asked for is not done
 * (failed, or waiting for the minimum overlap).
 */
async function perform(
  ctx: CallContext,
  id: string,
  outs: Outputs,
  work: readonly Work[],
  inputs: Inputs,
  rotatedBy: Record<string, string> | undefined,
): Promise<Outputs> {
  const worker = new Worker(ctx, outs.bucketId, outs);
  // An unfinished rotation stays due, and a finished one is not done twice.
  const recorded = (done: boolean): Outputs => {
    const { rotateWhenChanged: _asked, ...rest } = inputs;
    const kept = rotatedBy === undefined ? rest : { ...rest, rotateWhenChanged: rotatedBy };
    return withInputs(worker.outs, done ? inputs : kept);
  };
  try {
    for (const w of work) await worker.do(w);
  } catch (err) {
    throw new PartialCreateError(id, recorded(worker.rotated), err);
  } finally {
    listOutdated(ctx, outs.bucketId);
  }
  return recorded(worker.rotated || !work.some((w) => w.kind === "waitForOverlap"));
}

const create: Core["create"] = async (ctx, inputs) => {
  const s3Endpoint = requireS3Url(ctx.client.settings);
  const bucketName = await nameOfBucket(ctx, inputs.bucketId);
  const id = randomUUID();
  const empty = {
    bucketId: inputs.bucketId,
    currentSlot: "a",
    bucketName,
    s3Endpoint,
    region: s3Region,
    rotations: 0,
    rotatedAt: new Date(ctx.clock.now()).toISOString(),
  } as Outputs;
  let outs = withInputs(withHeld(withHeld(empty, "current", noCredential), "previous", noCredential), inputs);
  const taken = inputs.takeOver ?? [];
  for (const [index, role] of roles.entries()) {
    const accessKeyId = taken[index];
    if (accessKeyId === undefined) continue;
    try {
      outs = withHeld(outs, role, await takeOverSlot(ctx, inputs.bucketId, accessKeyId));
    } catch (err) {
      if (index === 0) throw err;
      throw new PartialCreateError(id, outs, err);
    }
  }
  // The credentials to create, and a taken-over one to activate, are what an up of this state does.
  const work = planOf(outs, inputs, ctx.clock.now());
  try {
    return { id, outs: await perform(ctx, id, outs, work, inputs, inputs.rotateWhenChanged) };
  } catch (err) {
    // Nothing exists yet: a plain failure, and the next up creates again (the journal finds what was made).
    const nothing = (o: object) => roles.every((role) => heldOf(o as Outputs, role).accessKeyId === "");
    if (err instanceof PartialCreateError && nothing(err.outs)) throw err.cause ?? err;
    throw err;
  }
};

/** The credential `held` as its bucket's list shows it now: missing, deactivated or active, and whether its secret works. */
async function seen(
  ctx: CallContext,
  outs: Outputs,
  role: Role,
  listed: readonly Credential[],
  s3Url: string | undefined,
): Promise<Held> {
  const before = heldOf(outs, role);
  const live = listed.find((c) => before.accessKeyId !== "" && c.access_key_id === before.accessKeyId);
  if (live === undefined) {
    if (before.status !== "missing")
      ctx.log.warn(`${label(outs, role)} was deleted outside Pulumi; the next up creates a new one.`);
    return { ...noCredential, accessKeyId: before.accessKeyId };
  }
  if (live.active === false) {
    const intended = role === "previous" && before.status === "inactive";
    if (!intended && before.status !== "inactive")
      ctx.log.warn(`${label(outs, role)} was deactivated outside Pulumi; the next up activates it.`);
    return { ...before, status: "inactive" };
  }
  if (before.status === "inactive") ctx.log.warn(`${label(outs, role)} was activated outside Pulumi.`);
  const status = before.status === "secretLost" ? "secretLost" : "active";
  if (!before.secretKnown || s3Url === undefined) return { ...before, status };
  const verdict = await probeSecret(s3Url, s3Region, outs.bucketName, before);
  if (verdict !== "superseded") return { ...before, status };
  ctx.log.warn(
    `${label(outs, role)} was regenerated outside Pulumi: its stored secret is refused; the next up regenerates it.`,
  );
  return { ...before, secretAccessKey: "", secretKnown: false, status: "secretLost" };
}

const read: Core["read"] = async (ctx, id, state) => {
  held(ctx, state);
  let listed: Credential[];
  try {
    listed = await cachedCredentialList(ctx, state.bucketId);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return goneFromState(ctx, `bucket ${state.bucketId}, and both credentials with it,`);
  }
  const settings = ctx.client.settings;
  const [current, previous] = await Promise.all(roles.map((role) => seen(ctx, state, role, listed, settings.s3Url)));
  const s3Endpoint = s3EndpointForRead(state.s3Endpoint, settings, (m) => ctx.log.warn(m));
  const outs = withHeld(withHeld({ ...state, s3Endpoint }, "current", current as Held), "previous", previous as Held);
  return { id, outs, inputs: inputsFrom(table, outs) };
};

const update: Core["update"] = async (ctx, id, olds, news) => {
  held(ctx, olds);
  return perform(ctx, id, olds, planOf(olds, news, ctx.clock.now()), news, olds.rotateWhenChanged);
};

const remove: Core["delete"] = async (ctx, _id, state) => {
  for (const role of roles) {
    const { accessKeyId } = heldOf(state, role);
    if (accessKeyId === "") continue;
    await deleteCredential(ctx.client, state.bucketId, accessKeyId);
    keyRemoved(ctx, state.bucketId, accessKeyId);
  }
};

const importing: Core["importing"] = {
  supported: false,
  reason:
    "it is two credentials and a schedule, not one object; declare it with `takeOver: [<accessKeyId>, <accessKeyId>]` " +
    "to take over existing credentials of the bucket",
};

const operations = { check, diff, create, read, update, delete: remove };

export const rotatingBucketCredentialCore: Core = { table, importing, ...operations };
