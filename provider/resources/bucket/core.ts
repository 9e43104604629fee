/**
 * Bucket (docs/api-contract.md §5). Name and storage class cannot change (no update endpoint), so a
 * change replaces the bucket. `forceDestroy` empties it through S3 before deleting; `adopt` takes
 * over an existing bucket of the same name instead of failing (dynamic resources cannot be
 * `pulumi import`ed).
 */
import { keyForm } from "../../answers/object.js";
import { requireS3Url, s3EndpointForRead } from "../../config.js";
import type { CallContext, ResourceCore } from "../../contract.js";
import { goneFromState, importById } from "../../contract.js";
import { ConflictError, hasCode, isNotFound, withHint } from "../../errors.js";
import { diffInputs, inputsFrom, unknownInputs } from "../../tables.js";
import { isUnknown, type CheckFailure, type Json } from "../../vocabulary.js";
import { bucketsList, forgetBucket, learnBucket } from "../bucket-facts.js";
import { createNamed, platformOf } from "../interrupted.js";
import { readThroughList } from "../shared-list.js";
import { bucketNameProblem, optionalBoolean } from "../validate.js";
import { createBucket, deleteBucket, findBucketByName, getBucket, listBuckets } from "../../platform/bucket/api.js";
import { autoName, isAutoNameOf } from "./auto-name.js";
import { emptyBucket } from "./empty.js";
import { bucketTable, s3Region, storageClasses, type BucketInputs, type BucketOutputs } from "./fields.js";
import type { Bucket } from "../../platform/bucket/parse.js";

export type { BucketInputs, BucketOutputs };

type BucketCore = ResourceCore<BucketInputs, BucketOutputs>;

const { type, fields } = bucketTable;

/**
 * The name this resource drew in an interrupted run whose create may have made the bucket (the
 * journal's entry): drawn again, so that the next create finds that bucket instead of leaving it.
 */
function interruptedAutoName(ctx: CallContext): string | undefined {
  const name = ctx.journal.find(type, ctx.name, platformOf(ctx))?.objectName;
  return name !== undefined && isAutoNameOf(name, ctx.name) ? name : undefined;
}

/**
 * The platform's storage class as the program spells it (`STANDARD`, `standard` → `Standard`):
 * another spelling of the same class must not read as drift, which would replace the bucket.
 */
function storageClassOf(b: Bucket): string | undefined {
  const live = b.storage_class;
  return live === undefined ? undefined : (storageClasses.find((c) => keyForm(c) === keyForm(live)) ?? live);
}

function outputs(b: Bucket, inputs: BucketInputs, s3Endpoint: string, adopted: boolean): BucketOutputs {
  return {
    bucketId: b.id,
    name: b.name,
    storageClass: storageClassOf(b) ?? inputs.storageClass,
    forceDestroy: inputs.forceDestroy,
    adopt: inputs.adopt,
    adopted,
    s3Endpoint,
    region: s3Region,
    ...(b.created_at === undefined ? {} : { createdAt: b.created_at }),
  };
}

async function adoptExisting(
  ctx: CallContext,
  inputs: BucketInputs,
  existing: Bucket | undefined,
  s3Endpoint: string,
): Promise<BucketOutputs> {
  if (existing === undefined) {
    throw new ConflictError(
      `bucket name "${inputs.name}" is taken by a bucket outside this project`,
      "Bucket names are unique on the platform: pick another name.",
    );
  }
  const liveClass = storageClassOf(existing) ?? inputs.storageClass;
  if (liveClass !== inputs.storageClass) {
    // Adopting it would make the next diff replace (delete) the bucket just adopted.
    throw new ConflictError(
      `the existing bucket "${inputs.name}" has storage class ${liveClass}, not ${inputs.storageClass}`,
      `Set storageClass: "${liveClass}" to adopt it.`,
    );
  }
  ctx.log.info(`adopted the existing bucket "${inputs.name}" (${existing.id}).`);
  learnBucket(ctx, existing.id, existing.name);
  return outputs(existing, inputs, s3Endpoint, true);
}

/** The bucket's name: the program's, else the one generated before, else a new one (`autoName`). */
function checkName(
  ctx: CallContext,
  olds: Partial<BucketInputs> | undefined,
  raw: Json | undefined,
  failures: CheckFailure[],
): string {
  if (raw === undefined || raw === null) {
    // Keep the generated name stable across previews and updates: reuse the previous one.
    if (olds?.name !== undefined && olds.name !== "") return olds.name;
    if (ctx.name !== "") return interruptedAutoName(ctx) ?? autoName(ctx.name);
    failures.push({ property: "name", reason: "name is required here (the resource name is unknown to generate one)" });
    return "";
  }
  if (isUnknown(raw)) return raw as string;
  if (typeof raw !== "string") {
    failures.push({ property: "name", reason: 'name must be a string such as "my-logs"' });
    return "";
  }
  if (raw === "") {
    failures.push({
      property: "name",
      reason: 'name must not be empty: leave it out for a generated name ("<resource name>-" and 7 random characters)',
    });
    return "";
  }
  const problem = bucketNameProblem(raw);
  if (problem !== undefined)
    failures.push({ property: "name", reason: `bucket name "${raw}" ${problem} (S3 bucket naming rules)` });
  return raw;
}

function checkStorageClass(raw: Json | undefined, failures: CheckFailure[]): string {
  if (raw === undefined || raw === null) return fields.storageClass.default;
  if (isUnknown(raw)) return raw as string;
  if (typeof raw === "string" && (storageClasses as readonly string[]).includes(raw)) return raw;
  failures.push({
    property: "storageClass",
    reason: `storageClass ${JSON.stringify(raw)} is not supported: use one of ${storageClasses.join(", ")}`,
  });
  return fields.storageClass.default;
}

const check: BucketCore["check"] = (ctx, olds, news) => {
  const failures = unknownInputs(bucketTable, news);
  const name = checkName(ctx, olds, news["name"], failures);
  const storageClass = checkStorageClass(news["storageClass"], failures);
  const forceDestroy = optionalBoolean("forceDestroy", news["forceDestroy"], failures) ?? fields.forceDestroy.default;
  const adopt = optionalBoolean("adopt", news["adopt"], failures) ?? fields.adopt.default;
  if (adopt && (news["name"] === undefined || news["name"] === null)) {
    failures.push({ property: "adopt", reason: "adopt: true needs the name of the existing bucket to take over" });
  }
  return { inputs: { name, storageClass, forceDestroy, adopt }, failures };
};

const diff: BucketCore["diff"] = (_ctx, _id, olds, news) => {
  const d = diffInputs(bucketTable, olds, news);
  // Same name on replace (a storage class change): the old bucket must go first, names are unique.
  return { ...d, deleteBeforeReplace: d.replaces.length > 0 && olds.name === news.name };
};

const create: BucketCore["create"] = async (ctx, inputs) => {
  const s3Endpoint = requireS3Url(ctx.settings);
  const result = await createNamed(ctx, type, inputs.name, inputs.adopt, {
    create: () => createBucket(ctx.client, inputs.name, inputs.storageClass),
    find: () => findBucketByName(ctx.client, inputs.name),
  });
  if (result.kind === "existing") {
    const outs = await adoptExisting(ctx, inputs, result.object, s3Endpoint);
    return { id: outs.bucketId, outs };
  }
  if (result.kind === "taken") {
    if (inputs.adopt) {
      const outs = await adoptExisting(ctx, inputs, result.existing, s3Endpoint);
      return { id: outs.bucketId, outs };
    }
    throw withHint(
      result.error,
      "CLOUDPLATFORM_CONFLICT",
      `Bucket names are unique on the platform: pick another name, or set adopt: true if "${inputs.name}" is ` +
        "yours and should be managed by this stack (dynamic resources cannot be `pulumi import`ed).",
    );
  }
  const bucket = result.object;
  if (result.kind === "interrupted") {
    ctx.log.info(`adopted the bucket "${inputs.name}" (${bucket.id}) that an interrupted run of this stack created.`);
  }
  // A bucket this request made holds no credential yet; one found by name may be an earlier run's.
  learnBucket(ctx, bucket.id, bucket.name, result.kind === "made" && !result.reconciled);
  return { id: bucket.id, outs: outputs(bucket, inputs, s3Endpoint, false) };
};

const read: BucketCore["read"] = async (ctx, id, state) => {
  try {
    // A refresh reads every bucket at once: one list answers them all.
    const live = await readThroughList(ctx, bucketsList, listBuckets, getBucket, id);
    learnBucket(ctx, live.id, live.name);
    // State from a refresh keeps its derived outputs; an import starts without them.
    const createdAt = state.createdAt ?? live.created_at;
    const outs: BucketOutputs = {
      ...state,
      // An import's state has none of these: the program's inputs decide the first two at the next up.
      forceDestroy: state.forceDestroy ?? false,
      adopt: state.adopt ?? false,
      adopted: state.adopted ?? false,
      bucketId: live.id,
      name: live.name,
      storageClass: storageClassOf(live) ?? state.storageClass,
      s3Endpoint: s3EndpointForRead(state.s3Endpoint, ctx.settings, (m) => ctx.log.warn(m)),
      region: state.region || s3Region,
      ...(createdAt === undefined ? {} : { createdAt }),
    };
    return { id, outs, inputs: inputsFrom(bucketTable, outs) };
  } catch (err) {
    if (isNotFound(err)) return goneFromState(ctx, `bucket ${state.name} (${id})`);
    throw err;
  }
};

const update: BucketCore["update"] = async (_ctx, _id, olds, news) => {
  // Only forceDestroy and adopt change in place, and they live in the state only.
  return { ...olds, forceDestroy: news.forceDestroy, adopt: news.adopt };
};

const remove: BucketCore["delete"] = async (ctx, id, state) => {
  const api = ctx.client;
  try {
    await deleteBucket(api, id);
    // Deleting a bucket deletes its credentials (contract §5): what this process knew of them is void.
    forgetBucket(ctx, id);
    return;
  } catch (err) {
    if (!hasCode(err, "CLOUDPLATFORM_CONFLICT")) throw err;
    if (!state.forceDestroy) throw notEmptyError(err as ConflictError, state.name);
  }
  // The state remembers the endpoint in case the config no longer names one.
  const s3Url = api.settings.s3Url ?? (state.s3Endpoint || requireS3Url(api.settings));
  const emptied = await emptyBucket(api, s3Url, id, state.name);
  ctx.log.info(`forceDestroy deleted ${emptied.objects} objects and aborted ${emptied.uploads} multipart uploads.`);
  await deleteBucket(api, id);
  forgetBucket(ctx, id);
};

/**
 * A delete refused with 409 `bucket_not_empty` (contract §5; or with no code, which on a bucket's
 * delete can mean nothing else), said once: what the platform refused and why, then the two ways on.
 * It replaces the client's message, whose generic 409 advice (a taken name) does not apply here. A
 * 409 with another code is the platform's own story and is left as it is.
 */
function notEmptyError(err: ConflictError, name: string): ConflictError {
  if (err.apiCode !== undefined && err.apiCode !== "bucket_not_empty") return err;
  const endpoint = err.endpoint ?? "DELETE /object-storage/buckets/{bucketId}";
  return new ConflictError(
    `${endpoint} failed with 409${err.apiCode === undefined ? "" : ` ${err.apiCode}`}: ` +
      `the bucket "${name}" still holds objects or unfinished multipart uploads`,
    "Empty it, or set `forceDestroy: true` on the resource and run `pulumi up` (so the state records it), then destroy again.",
    { status: 409, endpoint, ...(err.apiCode === undefined ? {} : { apiCode: err.apiCode }), cause: err },
  );
}

const operations = { check, diff, create, read, update, delete: remove };

export const bucketCore: BucketCore = { table: bucketTable, importing: importById, ...operations };
