/**
 * BucketCredential (docs/api-contract.md §6): an S3 key pair scoped to one bucket. `active` flips
 * call activate / deactivate in place; a `rotateWhenChanged` change calls regenerate in place (same
 * access key id, new secret). The secret cannot be read back: refresh keeps it from the state and
 * reads only whether the credential still exists and is active. Its create runs exactly once
 * (../credential-create.ts).
 */
import { requireS3Url, s3EndpointForRead } from "../../config.js";
import type { ResourceCore } from "../../contract.js";
import { goneFromState } from "../../contract.js";
import { ImportIdInvalidError, PartialCreateError, hasCode, isNotFound } from "../../errors.js";
import { fingerprint } from "../../redact.js";
import { diffInputs, inputsFrom, sameJson, unknownInputs } from "../../tables.js";
import { isUnknown } from "../../vocabulary.js";
import { s3Region } from "../bucket/fields.js";
import { cachedCredentialList, keyRemoved, listOutdated, nameOfBucket, oneAtATime } from "../bucket-facts.js";
import { createOnce } from "../credential-create.js";
import { optionalBoolean, requiredBucketId, stringMap } from "../validate.js";
import { deleteCredential, regenerateCredential, setCredentialActive } from "./api.js";
import { bucketCredentialTable, type BucketCredentialInputs, type BucketCredentialOutputs } from "./fields.js";
import type { Credential } from "./parse.js";

export type { BucketCredentialInputs, BucketCredentialOutputs };

type BucketCredentialCore = ResourceCore<BucketCredentialInputs, BucketCredentialOutputs>;

/** A credential is listed under its bucket, so its import id names both: `<bucketId>/<accessKeyId>`. */
function importParts(id: string): { bucketId: string; accessKeyId: string } | undefined {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { bucketId: id.slice(0, slash), accessKeyId: id.slice(slash + 1) };
}

function withRotate<T extends object>(o: T, rotate: Record<string, string> | undefined): T {
  return rotate === undefined ? o : { ...o, rotateWhenChanged: rotate };
}

/** The outputs with the fingerprint of the secret they hold. */
function fingerprinted(outs: BucketCredentialOutputs): BucketCredentialOutputs {
  return { ...outs, secretFingerprint: fingerprint(outs.secretAccessKey) };
}

const check: BucketCredentialCore["check"] = (_ctx, _olds, news) => {
  const failures = unknownInputs(bucketCredentialTable, news);
  const bucketId = requiredBucketId(news["bucketId"], failures);
  const active = optionalBoolean("active", news["active"], failures);
  const rotate = stringMap("rotateWhenChanged", news["rotateWhenChanged"], failures);
  const unknownActive = isUnknown(news["active"]) ? (news["active"] as unknown as boolean) : undefined;
  const activeValue = active ?? unknownActive ?? bucketCredentialTable.fields.active.default;
  return { inputs: withRotate({ bucketId, active: activeValue }, rotate), failures };
};

const diff: BucketCredentialCore["diff"] = (_ctx, _id, olds, news) => {
  return diffInputs(bucketCredentialTable, olds, news);
};

const create: BucketCredentialCore["create"] = async (ctx, inputs) => {
  const api = ctx.client;
  const s3Endpoint = requireS3Url(api.settings);
  const bucketName = await nameOfBucket(ctx, inputs.bucketId);
  const { credential, adopted } = await oneAtATime(ctx, inputs.bucketId, () =>
    createOnce(ctx, inputs.bucketId, { type: bucketCredentialTable.type, name: ctx.name }),
  );
  const outs: BucketCredentialOutputs = withRotate(
    {
      bucketId: inputs.bucketId,
      accessKeyId: credential.access_key_id,
      secretAccessKey: credential.secret_access_key,
      secretFingerprint: fingerprint(credential.secret_access_key),
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
};

const read: BucketCredentialCore["read"] = async (ctx, id, state) => {
  let live: Credential | undefined;
  try {
    live = (await cachedCredentialList(ctx, state.bucketId)).find((c) => c.access_key_id === id);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (live === undefined) return goneFromState(ctx, `credential ${id} (deleted outside Pulumi, or its bucket)`);
  const active = live.active ?? state.active ?? true;
  // An import has no previous state to have drifted from.
  const importing = state.active === undefined;
  if (!importing && active !== state.active) {
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
    // An import knows no secret; a refresh of a state written before fingerprints keeps it as it is.
    ...(importing ? { secretFingerprint: "" } : {}),
  };
  return { id, outs, inputs: inputsFrom(bucketCredentialTable, outs) };
};

const update: BucketCredentialCore["update"] = async (ctx, id, olds, news) => {
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
    if (changedSomething) throw new PartialCreateError(id, fingerprinted(outs), err);
    // Regenerated, but no answer carried the new secret: the one in the state is dead. Keep the
    // state without it, and with the old rotateWhenChanged, so the next up regenerates again.
    if (regenerating && hasCode(err, "CLOUDPLATFORM_UNEXPECTED_RESPONSE")) {
      throw new PartialCreateError(id, fingerprinted({ ...olds, secretAccessKey: "" }), err);
    }
    throw err;
  } finally {
    listOutdated(ctx, olds.bucketId);
  }
  return fingerprinted(outs);
};

const remove: BucketCredentialCore["delete"] = async (ctx, id, state) => {
  await deleteCredential(ctx.client, state.bucketId, id);
  keyRemoved(ctx, state.bucketId, id);
};

const importing: BucketCredentialCore["importing"] = {
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
};

const operations = { check, diff, create, read, update, delete: remove };

export const bucketCredentialCore: BucketCredentialCore = { table: bucketCredentialTable, importing, ...operations };
