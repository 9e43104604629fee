/**
 * BucketCredential (docs/api-contract.md §6): an S3 key pair scoped to one bucket. `active` flips
 * call activate / deactivate in place; a `rotateWhenChanged` change calls regenerate in place (same
 * access key id, new secret). The secret cannot be read back: refresh keeps it from the state and
 * reads only whether the credential still exists and is active.
 *
 * A credential has nothing but an access key id the platform picks, so its create finds an earlier
 * attempt by what the bucket's list shows before and after (§2.4): the creates of one bucket run one
 * at a time in this process, and the recovery journal keeps the "before" for the next run.
 */
import {
  createCredential,
  deleteCredential,
  listCredentials,
  regenerateCredential,
  setCredentialActive,
} from "../api.js";
import { getBucket } from "./bucket/api.js";
import { requireS3Url, s3EndpointForRead } from "../config.js";
import type { CallContext, ResourceCore } from "../core.js";
import { isUnknown, type Props } from "../vocabulary.js";
import { goneFromState } from "../core.js";
import { ImportIdInvalidError, OutcomeUnknownError, PartialCreateError, hasCode, isNotFound } from "../errors.js";
import { diffInputs, inputsFrom, sameJson, unknownInputs } from "../fields.js";
import type { JournalEntry } from "../journal.js";
import type { Credential, CredentialWithSecret } from "../shapes.js";
import { s3Region } from "./bucket/fields.js";
import {
  bucketCredentialTable,
  type BucketCredentialInputs,
  type BucketCredentialOutputs,
} from "./bucketCredential.fields.js";
import {
  cachedCredentialList,
  currentKeys,
  keyAdded,
  keyRemoved,
  keysUnknown,
  knownBucketName,
  learnBucket,
  listOutdated,
  oneAtATime,
} from "./bucketFacts.js";
import { platformOf } from "./interrupted.js";
import { optionalBoolean, stringMap } from "./validate.js";

export type { BucketCredentialInputs, BucketCredentialOutputs };

const { type } = bucketCredentialTable;

/** A credential is listed under its bucket, so its import id names both: `<bucketId>/<accessKeyId>`. */
function importParts(id: string): { bucketId: string; accessKeyId: string } | undefined {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { bucketId: id.slice(0, slash), accessKeyId: id.slice(slash + 1) };
}

function withRotate<T extends object>(o: T, rotate: Record<string, string> | undefined): T {
  return rotate === undefined ? o : { ...o, rotateWhenChanged: rotate };
}

export const bucketCredentialCore: ResourceCore<BucketCredentialInputs, BucketCredentialOutputs> = {
  table: bucketCredentialTable,
  importing: {
    supported: true,
    target(importId) {
      const parts = importParts(importId);
      if (parts === undefined) {
        throw new ImportIdInvalidError(
          `"${importId}" is not a BucketCredential import id`,
          "Use <bucketId>/<accessKeyId>, e.g. `pulumi import cloudplatform:index:BucketCredential writer bkt_123/AKIA...`.",
        );
      }
      // The access key id is the credential's identity: kept in the state like create keeps it.
      return { id: parts.accessKeyId, state: { bucketId: parts.bucketId, accessKeyId: parts.accessKeyId } };
    },
    // The engine may hand back the import id: a plain access key id (the state's id) passes through.
    coreId: (id) => importParts(id)?.accessKeyId ?? id,
  },

  check(_ctx, _olds, news: Props) {
    const failures = unknownInputs(bucketCredentialTable, news);
    const rawBucket = news["bucketId"];
    let bucketId = "";
    if (typeof rawBucket === "string" && rawBucket !== "") {
      bucketId = rawBucket;
    } else if (rawBucket === undefined || rawBucket === null || rawBucket === "") {
      failures.push({ property: "bucketId", reason: "bucketId is required: pass a Bucket's bucketId output" });
    } else {
      failures.push({
        property: "bucketId",
        reason: `bucketId must be a string, a Bucket's bucketId output (got ${Array.isArray(rawBucket) ? "an array" : typeof rawBucket})`,
      });
    }
    const active = optionalBoolean("active", news["active"], failures);
    const rotate = stringMap("rotateWhenChanged", news["rotateWhenChanged"], failures);
    const unknownActive = isUnknown(news["active"]) ? (news["active"] as unknown as boolean) : undefined;
    const activeValue = active ?? unknownActive ?? bucketCredentialTable.fields.active.default;
    return { inputs: withRotate({ bucketId, active: activeValue }, rotate), failures };
  },

  diff(_ctx, _id, olds, news) {
    return diffInputs(bucketCredentialTable, olds, news);
  },

  async create(ctx, inputs) {
    const api = ctx.client;
    const s3Endpoint = requireS3Url(api.settings);
    const bucketName = await nameOfBucket(ctx, inputs.bucketId);
    const { credential, adopted } = await oneAtATime(ctx, inputs.bucketId, () => createOnce(ctx, inputs.bucketId));
    const outs: BucketCredentialOutputs = withRotate(
      {
        bucketId: inputs.bucketId,
        accessKeyId: credential.access_key_id,
        secretAccessKey: credential.secret_access_key,
        active: credential.active ?? true,
        bucketName,
        s3Endpoint,
        region: s3Region,
        ...(credential.created_at === undefined ? {} : { createdAt: credential.created_at }),
      },
      inputs.rotateWhenChanged,
    );
    // New credentials are active; one an interrupted run made may have been deactivated since.
    if (outs.active !== inputs.active || (adopted && credential.active === undefined)) {
      try {
        await setCredentialActive(api, inputs.bucketId, outs.accessKeyId, inputs.active);
      } catch (err) {
        // The credential exists and its secret is only known now: keep it in the state.
        throw new PartialCreateError(outs.accessKeyId, outs, err);
      }
    }
    return { id: outs.accessKeyId, outs: { ...outs, active: inputs.active } };
  },

  async read(ctx, id, state) {
    let live: Credential | undefined;
    try {
      live = (await cachedCredentialList(ctx, state.bucketId)).find((c) => c.access_key_id === id);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (live === undefined) return goneFromState(ctx, `credential ${id} (deleted outside Pulumi, or its bucket)`);
    const active = live.active ?? state.active ?? true;
    // An import has no previous state to have drifted from.
    if (state.active !== undefined && active !== state.active) {
      ctx.log.warn(`credential ${id} was ${active ? "activated" : "deactivated"} outside Pulumi.`);
    }
    // State from a refresh keeps its derived outputs; an import starts without them.
    const api = ctx.client;
    const bucketName = state.bucketName || (await nameOfBucket(ctx, state.bucketId));
    const createdAt = state.createdAt ?? live.created_at;
    const outs: BucketCredentialOutputs = {
      ...state,
      accessKeyId: state.accessKeyId || id,
      active,
      bucketName,
      s3Endpoint: s3EndpointForRead(state.s3Endpoint, api.settings, (m) => ctx.log.warn(m)),
      region: state.region || s3Region,
      ...(createdAt === undefined ? {} : { createdAt }),
    };
    return { id, outs, inputs: inputsFrom(bucketCredentialTable, outs) };
  },

  async update(ctx, id, olds, news) {
    const api = ctx.client;
    let outs: BucketCredentialOutputs = withRotate({ ...olds }, news.rotateWhenChanged);
    if (news.rotateWhenChanged === undefined) {
      const { rotateWhenChanged: _dropped, ...rest } = outs;
      outs = rest;
    }
    let changedSomething = false;
    let regenerating = false;
    try {
      if (!sameJson(olds.rotateWhenChanged, news.rotateWhenChanged)) {
        regenerating = true;
        const regenerated = await regenerateCredential(api, olds.bucketId, id);
        regenerating = false;
        outs = { ...outs, secretAccessKey: regenerated.secret_access_key };
        changedSomething = true;
        ctx.log.info(`secret regenerated; access key id ${id} is unchanged.`);
      }
      if ((olds.active ?? true) !== news.active) {
        await setCredentialActive(api, olds.bucketId, id, news.active);
        outs = { ...outs, active: news.active };
      }
    } catch (err) {
      // A regenerated secret exists only in this answer: losing it would leave the state with a dead secret.
      if (changedSomething) throw new PartialCreateError(id, outs, err);
      // Regenerated, but no answer carried the new secret: the one in the state is dead. Keep the
      // state without it, and with the old rotateWhenChanged, so the next up regenerates again.
      if (regenerating && hasCode(err, "CLOUDPLATFORM_UNEXPECTED_RESPONSE")) {
        throw new PartialCreateError(id, { ...olds, secretAccessKey: "" }, err);
      }
      throw err;
    } finally {
      listOutdated(ctx, olds.bucketId);
    }
    return outs;
  },

  async delete(ctx, id, state) {
    await deleteCredential(ctx.client, state.bucketId, id);
    keyRemoved(ctx, state.bucketId, id);
  },
};

/** The bucket's name, for S3 clients: known to this process when it created or read the bucket, else read. */
async function nameOfBucket(ctx: CallContext, bucketId: string): Promise<string> {
  const known = knownBucketName(ctx, bucketId);
  if (known !== undefined) return known;
  const bucket = await getBucket(ctx.client, bucketId).catch((err: unknown) => {
    if (isNotFound(err) && err instanceof Error) err.message += ` Check bucketId: no bucket ${bucketId} exists.`;
    throw err;
  });
  learnBucket(ctx, bucket.id, bucket.name);
  return bucket.name;
}

interface Made {
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
async function createOnce(ctx: CallContext, bucketId: string): Promise<Made> {
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
  const earlier = ctx.journal.find(type, ctx.name, platform);
  if (earlier?.bucketId === bucketId && earlier.state !== "held") {
    const found = await madeByEarlierRun(ctx, earlier);
    if (found !== undefined) {
      const credential = await regenerateCredential(api, bucketId, found.access_key_id);
      ctx.log.info(
        `adopted the credential ${found.access_key_id} that an interrupted run of this stack created; its secret ` +
          "was lost with that run, so it was regenerated (same access key id).",
      );
      recordMade(ctx, bucketId, credential.access_key_id);
      return { credential: { ...credential, active: found.active ?? credential.active }, adopted: true };
    }
  }
  const before = await currentKeys(ctx, bucketId);
  ctx.journal.creating(type, ctx.name, platform, { bucketId, before: [...before].sort() });
  let made;
  try {
    made = await createCredential(api, bucketId, () => reconcile(ctx, bucketId, before));
  } catch (err) {
    // It may have been made: the bucket's ids are no longer known for sure, and the journal keeps the "before".
    keysUnknown(ctx, bucketId);
    throw err;
  }
  recordMade(ctx, bucketId, made.value.access_key_id);
  return { credential: made.value, adopted: false };
}

function recordMade(ctx: CallContext, bucketId: string, accessKeyId: string): void {
  keyAdded(ctx, bucketId, accessKeyId);
  ctx.journal.created(type, ctx.name, platformOf(ctx), accessKeyId, { bucketId });
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
): Promise<CredentialWithSecret | undefined> {
  const owned = ownedByOthers(ctx, bucketId);
  const fresh = (await listCredentials(ctx.client, bucketId)).filter(
    (c) => !before.has(c.access_key_id) && !owned.has(c.access_key_id),
  );
  if (fresh.length === 0) return undefined;
  const made = only(fresh, bucketId);
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
async function madeByEarlierRun(ctx: CallContext, earlier: JournalEntry): Promise<Credential | undefined> {
  const bucketId = earlier.bucketId as string;
  const listed = await listCredentials(ctx.client, bucketId).catch((err: unknown) => {
    if (isNotFound(err)) return [];
    throw err;
  });
  if (earlier.id !== undefined) return listed.find((c) => c.access_key_id === earlier.id);
  const entries = ctx.journal.entries(platformOf(ctx)).filter((e) => e.bucketId === bucketId);
  const owned = ownedByOthers(ctx, bucketId);
  const before = new Set(earlier.before ?? []);
  const next = entries
    .filter((e) => e.before !== undefined && e.name !== ctx.name && e.at > earlier.at)
    .sort((a, b) => a.at - b.at)[0];
  const until = next === undefined ? undefined : new Set(next.before ?? []);
  const fresh = listed.filter(
    (c) => !before.has(c.access_key_id) && !owned.has(c.access_key_id) && (until?.has(c.access_key_id) ?? true),
  );
  return fresh.length === 0 ? undefined : only(fresh, bucketId);
}

/** Access key ids of the bucket that the journal gives to other credentials of this stack. */
function ownedByOthers(ctx: CallContext, bucketId: string): Set<string> {
  const ids = ctx.journal
    .entries(platformOf(ctx))
    .filter((e) => e.bucketId === bucketId && e.name !== ctx.name)
    .flatMap((e) => (e.id === undefined ? [] : [e.id]));
  return new Set(ids);
}

/** The one credential of `fresh`; more than one cannot be told apart (someone else creates credentials there). */
function only<T extends Credential>(fresh: readonly T[], bucketId: string): T {
  if (fresh.length === 1) return fresh[0] as T;
  const ids = fresh.map((c) => c.access_key_id).join(", ");
  throw new OutcomeUnknownError(
    `bucket ${bucketId} holds ${fresh.length} credentials that appeared while this one was being created (${ids}), ` +
      "so which one it made cannot be told: something else creates credentials on this bucket",
    "Delete those the other creator does not use (their secrets were never shown to this stack), then run `pulumi up` again.",
  );
}
