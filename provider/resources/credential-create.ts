/**
 * A credential's create, exactly once (docs/api-contract.md §2.4), for every resource that makes
 * credentials (a BucketCredential, each slot of a RotatingBucketCredential). A credential has
 * nothing but an access key id the platform picks, so an earlier attempt is found by what the
 * bucket's list shows before and after: the creates of one bucket run one at a time in this process
 * (`oneAtATime`), and the recovery journal keeps the "before" for the next run.
 */
import type { CallContext } from "../contract.js";
import { OutcomeUnknownError, isNotFound } from "../errors.js";
import type { JournalEntry } from "../journal.js";
import { currentKeys, keyAdded, keysUnknown } from "./bucket-facts.js";
import { createCredential, listCredentials, regenerateCredential } from "../platform/bucket-credential/api.js";
import type { Credential, CredentialWithSecret } from "../platform/bucket-credential/parse.js";
import { platformOf } from "./interrupted.js";

/**
 * Whose create the journal records: a resource's type and logical name, or a part of one (a slot of
 * a RotatingBucketCredential is `<name>#a`). Each has its own entry, so a resource that makes two
 * credentials finds both after an interrupted run.
 */
export interface Creator {
  readonly type: string;
  readonly name: string;
}

const same = (e: JournalEntry, who: Creator) => e.type === who.type && e.name === who.name;

export interface Made {
  readonly credential: CredentialWithSecret;
  /** Made by an interrupted run, adopted here: its state (active or not) is unknown. */
  readonly adopted: boolean;
}

/**
 * One credential for this resource, exactly once: adopted from an interrupted run when the journal
 * shows one, else created, with the bucket's access key ids before the create recorded so that an
 * unknown outcome (now, or after a kill) can tell which new id is this resource's. Runs alone among
 * the creates of the bucket's credentials (`oneAtATime`).
 */
export async function createOnce(ctx: CallContext, bucketId: string, who: Creator): Promise<Made> {
  const api = ctx.client;
  const platform = platformOf(ctx);
  await ctx.journal.quiet(
    platform,
    (e) => e.bucketId === bucketId,
    ctx.clock,
    (pid) =>
      ctx.log.info(
        `waiting for process ${pid} of an interrupted run, still creating a credential of bucket ${bucketId}`,
      ),
  );
  const earlier = ctx.journal.find(who.type, who.name, platform);
  if (earlier?.bucketId === bucketId && earlier.state !== "held") {
    const found = await findInterruptedCredential(ctx, earlier, who);
    if (found !== undefined) {
      const credential = await regenerateCredential(api, bucketId, found.access_key_id);
      ctx.log.info(
        `adopted the credential ${found.access_key_id} that an interrupted run of this stack created; its secret ` +
          "was lost with that run, so it was regenerated (same access key id).",
      );
      recordMade(ctx, bucketId, credential.access_key_id, who);
      return { credential: { ...credential, active: found.active ?? credential.active }, adopted: true };
    }
  }
  const before = await currentKeys(ctx, bucketId);
  ctx.journal.creating(who.type, who.name, platform, { bucketId, before: [...before].sort() });
  let made;
  try {
    made = await createCredential(api, bucketId, () => reconcile(ctx, bucketId, before, who));
  } catch (err) {
    // It may have been made: the bucket's ids are no longer known for sure, and the journal keeps the "before".
    keysUnknown(ctx, bucketId);
    throw err;
  }
  recordMade(ctx, bucketId, made.value.access_key_id, who);
  return { credential: made.value, adopted: false };
}

function recordMade(ctx: CallContext, bucketId: string, accessKeyId: string, who: Creator): void {
  keyAdded(ctx, bucketId, accessKeyId);
  ctx.journal.created(who.type, who.name, platformOf(ctx), accessKeyId, { bucketId });
}

/**
 * After a create whose outcome is unknown: the one access key id the bucket did not hold before is
 * the credential it made, whose secret was lost with the answer, so it is regenerated (same access
 * key id). None: the create did not happen (undefined: repeat it).
 */
async function reconcile(
  ctx: CallContext,
  bucketId: string,
  before: ReadonlySet<string>,
  who: Creator,
): Promise<CredentialWithSecret | undefined> {
  const owned = ownedByOthers(ctx, bucketId, who);
  const fresh = (await listCredentials(ctx.client, bucketId)).filter(
    (c) => !before.has(c.access_key_id) && !owned.has(c.access_key_id),
  );
  if (fresh.length === 0) return undefined;
  const made = only(ctx, fresh, bucketId, who);
  const credential = await regenerateCredential(ctx.client, bucketId, made.access_key_id);
  ctx.log.info(
    `the answer to the create of credential ${made.access_key_id} was lost; its secret was regenerated ` +
      "(same access key id), so the credential is usable and nothing was created twice.",
  );
  return credential;
}

/**
 * The credential an interrupted create of this resource made, if the bucket still holds it: the id
 * the journal recorded, or the one id that appeared on the bucket between this create's start and
 * the next create of the bucket the journal recorded (or now), other than ids other resources own.
 */
async function findInterruptedCredential(
  ctx: CallContext,
  earlier: JournalEntry,
  who: Creator,
): Promise<Credential | undefined> {
  const bucketId = earlier.bucketId as string;
  const listed = await listCredentials(ctx.client, bucketId).catch((err: unknown) => {
    if (isNotFound(err)) return [];
    throw err;
  });
  if (earlier.id !== undefined) return listed.find((c) => c.access_key_id === earlier.id);
  const entries = ctx.journal.entries(platformOf(ctx)).filter((e) => e.bucketId === bucketId);
  const owned = ownedByOthers(ctx, bucketId, who);
  const before = new Set(earlier.before ?? []);
  const next = entries
    .filter((e) => e.before !== undefined && !same(e, who) && e.at > earlier.at)
    .sort((a, b) => a.at - b.at)[0];
  const until = next === undefined ? undefined : new Set(next.before ?? []);
  const fresh = listed.filter(
    (c) => !before.has(c.access_key_id) && !owned.has(c.access_key_id) && (until?.has(c.access_key_id) ?? true),
  );
  return fresh.length === 0 ? undefined : only(ctx, fresh, bucketId, who);
}

/** Access key ids of the bucket that the journal gives to other credentials of this stack. */
function ownedByOthers(ctx: CallContext, bucketId: string, who: Creator): Set<string> {
  const ids = ctx.journal
    .entries(platformOf(ctx))
    .filter((e) => e.bucketId === bucketId && !same(e, who))
    .flatMap((e) => (e.id === undefined ? [] : [e.id]));
  return new Set(ids);
}

/**
 * The one credential of `fresh`. More than one cannot be told apart: someone else creates credentials
 * on the bucket (another stack, a person), and the platform gives a create no key to find it by. The
 * journal then forgets this create: once the user has deleted the candidates no one holds, as the
 * error says, the next `up` creates anew, and never takes a candidate left (another's) for its own.
 */
function only<T extends Credential>(ctx: CallContext, fresh: readonly T[], bucketId: string, who: Creator): T {
  if (fresh.length === 1) return fresh[0] as T;
  ctx.journal.forget(who.type, who.name);
  const ids = fresh.map((c) => c.access_key_id).join(", ");
  throw new OutcomeUnknownError(
    `bucket ${bucketId} holds ${fresh.length} credentials that appeared while this one was being created (${ids}), ` +
      "so which one it made cannot be told: something else creates credentials on this bucket at the same time, " +
      "and the platform gives a create no key to find it by",
    "One of them is this create's, which no one can use (its secret was in the lost answer); the others are the " +
      'other creator\'s. Delete those that no stack holds (README, "When a deployment is interrupted"), then run ' +
      "`pulumi up` again: it creates a new credential.",
  );
}
