/**
 * BucketCredential (docs/api-contract.md §6): an S3 key pair scoped to one bucket. `active` flips
 * call activate / deactivate in place; a `rotateWhenChanged` change calls regenerate in place (same
 * access key id, new secret). The secret cannot be read back: refresh keeps it from the state and
 * reads only whether the credential still exists and is active. Its create runs exactly once
 * (../credential-create.ts), or takes over an existing credential (`accessKeyId`, take-over.ts)
 * whose secret stays unknown (`secretKnown: false`) until it is rotated.
 */
import { requireS3Url, s3EndpointForRead } from "../../config.js";
import type { CallContext, ResourceCore } from "../../contract.js";
import { goneFromState } from "../../contract.js";
import { ImportIdInvalidError, PartialCreateError, hasCode, isNotFound } from "../../errors.js";
import { fingerprint } from "../../redact.js";
import { diffInputs, inputsFrom, sameJson, unknownInputs } from "../../tables.js";
import { isUnknown, type CheckFailure, type Json } from "../../vocabulary.js";
import { s3Region } from "../../s3/fields.js";
import { cachedCredentialList, keyRemoved, listOutdated, nameOfBucket, oneAtATime } from "../bucket-facts.js";
import { createOnce } from "../credential-create.js";
import { optionalBoolean, requiredBucketId, stringMap } from "../validate.js";
import { deleteCredential, regenerateCredential, setCredentialActive } from "../../platform/bucket-credential/api.js";
import { bucketCredentialTable, type BucketCredentialInputs, type BucketCredentialOutputs } from "./fields.js";
import type { Credential } from "../../platform/bucket-credential/parse.js";
import { takeOverCredential } from "../credential-take-over.js";

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

/**
 * What a credential's state says when its secret is not known (taken over, imported): the platform
 * shows a secret only at create and regenerate. Said once, when the resource starts holding it.
 */
export function secretUnknownWarning(accessKeyId: string): string {
  return (
    `the secret of credential ${accessKeyId} is not known to Pulumi: the platform shows a secret only when it ` +
    "creates or regenerates it, so secretAccessKey is empty and secretKnown is false. Applications that use the " +
    "credential keep working. When they are ready for a new secret, set or change rotateWhenChanged: the secret is " +
    `regenerated in place (the access key id ${accessKeyId} stays) and secretAccessKey then holds it.`
  );
}

/** An optional access key id: a non-empty string, or unknown at preview. */
function checkAccessKeyId(raw: Json | undefined, failures: CheckFailure[]): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (isUnknown(raw)) return raw as string;
  if (typeof raw === "string" && raw.trim() !== "" && !/[\s/]/.test(raw)) return raw;
  failures.push({
    property: "accessKeyId",
    reason:
      "accessKeyId must be the access key id of an existing credential of bucketId (e.g. from " +
      "getBucketCredentials), or be left out to create a new credential",
  });
  return undefined;
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
  const accessKeyId = checkAccessKeyId(news["accessKeyId"], failures);
  const unknownActive = isUnknown(news["active"]) ? (news["active"] as unknown as boolean) : undefined;
  // A credential taken over keeps its state unless the program says otherwise.
  const activeValue = active ?? unknownActive ?? (accessKeyId === undefined ? true : undefined);
  const inputs: BucketCredentialInputs = {
    bucketId,
    ...(activeValue === undefined ? {} : { active: activeValue }),
    ...(accessKeyId === undefined ? {} : { accessKeyId }),
  };
  return { inputs: withRotate(inputs, rotate), failures };
};

const diff: BucketCredentialCore["diff"] = (_ctx, _id, olds, news) => {
  // Left out, accessKeyId and active keep what the credential has (fields.ts `keptWhenLeftOut`).
  return diffInputs(bucketCredentialTable, olds, news);
};

/** Takes over the existing credential `accessKeyId`: nothing is written, the secret stays unknown. */
async function takeOver(ctx: CallContext, inputs: BucketCredentialInputs, accessKeyId: string) {
  const s3Endpoint = requireS3Url(ctx.settings);
  const { credential, bucketName } = await takeOverCredential(ctx, inputs.bucketId, accessKeyId);
  const live = credential.active ?? true;
  const outs: BucketCredentialOutputs = withRotate(
    {
      bucketId: inputs.bucketId,
      accessKeyId,
      secretAccessKey: "",
      secretKnown: false,
      secretFingerprint: "",
      active: live,
      bucketName,
      s3Endpoint,
      region: s3Region,
      ...(credential.created_at === undefined ? {} : { createdAt: credential.created_at }),
    },
    inputs.rotateWhenChanged,
  );
  ctx.log.info(`took over the existing credential ${accessKeyId} of bucket ${inputs.bucketId}.`);
  ctx.log.warn(secretUnknownWarning(accessKeyId));
  if (inputs.active === undefined || inputs.active === live) return { id: accessKeyId, outs };
  try {
    await setCredentialActive(ctx.client, inputs.bucketId, accessKeyId, inputs.active);
  } catch (err) {
    throw new PartialCreateError(accessKeyId, outs, err);
  } finally {
    listOutdated(ctx, inputs.bucketId);
  }
  return { id: accessKeyId, outs: { ...outs, active: inputs.active } };
}

const create: BucketCredentialCore["create"] = async (ctx, inputs) => {
  if (inputs.accessKeyId !== undefined) return takeOver(ctx, inputs, inputs.accessKeyId);
  const api = ctx.client;
  const active = inputs.active ?? true;
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
      secretKnown: true,
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
  if (outs.active !== active || (adopted && credential.active === undefined)) {
    try {
      await setCredentialActive(api, inputs.bucketId, outs.accessKeyId, active);
    } catch (err) {
      // The credential exists and its secret is only known now: keep it in the state.
      throw new PartialCreateError(outs.accessKeyId, outs, err);
    }
  }
  return { id: outs.accessKeyId, outs: { ...outs, active } };
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
  // An import starts from the least state (`importing.target`): no previous state to have drifted from.
  const importing = state.active === undefined;
  if (!importing && active !== state.active) {
    ctx.log.warn(`credential ${id} was ${active ? "activated" : "deactivated"} outside Pulumi.`);
  }
  // A state written before secretKnown was recorded knows the secret it holds, if any.
  const secretAccessKey = state.secretAccessKey ?? "";
  const secretKnown = state.secretKnown ?? secretAccessKey !== "";
  if (importing) ctx.log.warn(secretUnknownWarning(id));
  // State from a refresh keeps its derived outputs; an import starts without them.
  const api = ctx.client;
  const bucketName = state.bucketName || (await nameOfBucket(ctx, state.bucketId));
  const createdAt = state.createdAt ?? live.created_at;
  const outs: BucketCredentialOutputs = {
    ...state,
    accessKeyId: state.accessKeyId || id,
    secretAccessKey,
    secretKnown,
    active,
    bucketName,
    s3Endpoint: s3EndpointForRead(state.s3Endpoint, api.settings, (m) => ctx.log.warn(m)),
    region: state.region || s3Region,
    ...(createdAt === undefined ? {} : { createdAt }),
    // An import knows no secret; a refresh of a state written before fingerprints keeps it as it is.
    ...(importing ? { secretFingerprint: "" } : {}),
  };
  return { id, outs, inputs: readInputs(outs, importing) };
};

/**
 * The inputs a refresh records: those the program sets, as it sets them. A program that creates its
 * credential leaves `accessKeyId` out, and the hosts are not told the previous inputs (the dynamic
 * host's read gets the outputs alone), so a refresh keeps it out: recorded, it would show as
 * `-accessKeyId` beside any real drift in the next preview, a removal no update makes. An import
 * keeps it: the program written from it holds the credential by its access key id. (A program that
 * took over with `accessKeyId` gets it back at its next `up`, where the engine records the program's inputs.)
 */
function readInputs(outs: BucketCredentialOutputs, importing: boolean): BucketCredentialInputs {
  const inputs = inputsFrom(bucketCredentialTable, outs);
  if (importing) return inputs;
  const { accessKeyId: _left, ...asTheProgramSetsThem } = inputs;
  return asTheProgramSetsThem;
}

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
      outs = { ...outs, secretAccessKey: regenerated.secret_access_key, secretKnown: true };
      changedSomething = true;
      ctx.log.info(`secret regenerated; access key id ${id} is unchanged.`);
    }
    // Left out (a credential taken over): it stays as it is.
    if (news.active !== undefined && (olds.active ?? true) !== news.active) {
      await setCredentialActive(api, olds.bucketId, id, news.active);
      outs = { ...outs, active: news.active };
    }
  } catch (err) {
    // A regenerated secret exists only in this answer: losing it would leave the state with a dead secret.
    if (changedSomething) throw new PartialCreateError(id, fingerprinted(outs), err);
    // Regenerated, but no answer carried the new secret: the one in the state is dead. Keep the
    // state without it, and with the old rotateWhenChanged, so the next up regenerates again.
    if (regenerating && hasCode(err, "CLOUDPLATFORM_UNEXPECTED_RESPONSE")) {
      throw new PartialCreateError(id, fingerprinted({ ...olds, secretAccessKey: "", secretKnown: false }), err);
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
