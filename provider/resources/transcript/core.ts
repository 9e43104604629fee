/**
 * The Transcript resource: one transcription job run to completion during `pulumi up`
 * (spec §3, §4.3, §6–8; docs/api-contract.md §8; docs/transcript.md).
 *
 * The resource id is the transcript id. A job is paid for when it ends `done`, so the core never
 * starts a second job for the same inputs (start-job.ts): once the id is known, every failure
 * (deadline, network) is reported as partial state carrying it, and the next `up` resumes waiting
 * on that id.
 */
import type { CallContext, CreateResult, ResourceCore } from "../../contract.js";
import {
  aboutResource,
  CloudPlatformError,
  NotFoundError,
  PartialCreateError,
  TranscriptDeadlineError,
  TranscriptFailedError,
} from "../../errors.js";
import { diffInputs, inputsFrom } from "../../tables.js";
import type { Backoff } from "../../retry.js";
import { isUnknown } from "../../vocabulary.js";
import { transcriptionApi, type TranscriptionApi } from "../../platform/transcript/api.js";
import { checkTranscriptInputs } from "./check.js";
import { transcriptTable, type TranscriptInputs, type TranscriptOutputs } from "./fields.js";
import { recordOf, toOutputs } from "./outputs.js";
import { isFinished, type TranscriptRecord } from "../../platform/transcript/parse.js";
import { earlierJob, jobHash, startJob } from "./start-job.js";
import { defaultUploadOptions, type UploadOptions } from "./upload.js";
import { waitForTranscript } from "./wait.js";

type TranscriptCore = ResourceCore<TranscriptInputs, TranscriptOutputs>;

const { type } = transcriptTable;

/** How the core waits and retries; tests make it fast and deterministic (the clock comes with the call). */
export interface TranscriptTuning {
  readonly upload: UploadOptions;
  /** Between polls: short at first so a job that ends soon is seen soon, capped so a long job costs few requests. */
  readonly pollBackoff: Backoff;
  /** Progress lines are written at most this often while a job's status does not change. */
  readonly progressIntervalMs: number;
}

const defaultTuning: TranscriptTuning = {
  upload: defaultUploadOptions,
  pollBackoff: { baseDelayMs: 1_000, maxDelayMs: 15_000, jitter: "near" },
  progressIntervalMs: 30_000,
};

/** Errors carry the resource's name already when the core is called without a host (tests, tools). */
function prefix<E extends Error>(ctx: CallContext, error: E): E {
  return CloudPlatformError.isInstance(error) ? error.forResource(type, ctx.name) : error;
}

/** The stored job is not on the platform any more (unknown id, or past the 7-day retention). */
function jobGone(id: string, when = ""): NotFoundError {
  return new NotFoundError(
    `transcription job ${id} is no longer found on the platform${when}`,
    "Run `pulumi up --replace` on this resource to start a new job.",
  );
}

/** Waits for `record` to finish; every way of not finishing keeps the id as partial state. */
async function finish(
  ctx: CallContext,
  api: TranscriptionApi,
  inputs: TranscriptInputs,
  record: TranscriptRecord,
  tuning: TranscriptTuning,
  previous?: TranscriptOutputs,
): Promise<TranscriptOutputs> {
  let last = record;
  let result;
  try {
    result = await waitForTranscript(
      async () => {
        const next = await api.getTranscript(record.id);
        if (!next) throw jobGone(record.id, " while waiting for it");
        last = next;
        return next;
      },
      record,
      {
        deadline: ctx.clock.now() + inputs.timeoutMinutes * 60_000,
        backoff: tuning.pollBackoff,
        progressIntervalMs: tuning.progressIntervalMs,
        clock: ctx.clock,
        log: (message) => ctx.log.info(message),
      },
    );
  } catch (error) {
    throw prefix(ctx, new PartialCreateError(last.id, toOutputs(inputs, last, previous), error));
  }
  const outs = toOutputs(inputs, result.record, previous);
  if (!result.finished) {
    const why = new TranscriptDeadlineError(result.record.id, result.record.status, inputs.timeoutMinutes);
    throw prefix(ctx, new PartialCreateError(result.record.id, outs, why));
  }
  return outs;
}

const check: TranscriptCore["check"] = (ctx, _olds, news) => {
  const result = checkTranscriptInputs(news, ctx.configured("apiUrl") ?? ctx.configured("baseUrl"));
  return {
    inputs: result.inputs,
    failures: result.failures.map((f) => ({
      property: f.property,
      reason: aboutResource(type, ctx.name, f.reason),
    })),
  };
};

const diff: TranscriptCore["diff"] = (_ctx, _id, olds, news) => {
  const d = diffInputs(transcriptTable, olds, news);
  const replaces = [...d.replaces];
  const updates = d.changed.filter((key) => !replaces.includes(key));
  // Switching between a URL and a file is a different transcript even when neither hash nor url
  // is there to compare (a URL source has no hash); an unknown path at preview means the file
  // (hence its hash) is not known yet.
  const fileSwitched = (olds.sourcePath === undefined) !== (news.sourcePath === undefined);
  if ((fileSwitched || isUnknown(news.sourcePath)) && !replaces.includes("sourceHash")) replaces.push("sourceHash");
  // A job that failed left no transcript: the desired state is not reached, so it is re-run
  // (failed jobs are not charged). A job still running with waiting wanted is resumed.
  if (olds.status === "error") replaces.push("status");
  else if (news.waitForCompletion === true && !isFinished(olds.status)) updates.push("status");
  const changed = [...replaces, ...updates];
  return { changes: changed.length > 0, replaces, changed, deleteBeforeReplace: false };
};

async function create(
  ctx: CallContext,
  inputs: TranscriptInputs,
  tuning: TranscriptTuning,
): Promise<CreateResult<TranscriptOutputs>> {
  const api = transcriptionApi(ctx.client);
  const inputHash = jobHash(inputs);
  let record: TranscriptRecord;
  try {
    record = (await earlierJob(ctx, api, inputHash)) ?? (await startJob(ctx, api, inputs, inputHash, tuning.upload));
  } catch (error) {
    throw error instanceof Error ? prefix(ctx, error) : error;
  }
  // A job that ended within the synchronous wait needs no progress line: the outcome follows.
  if (!isFinished(record.status)) {
    const next = inputs.waitForCompletion ? "waiting for it" : "not waiting (waitForCompletion is false)";
    ctx.log.info(`job ${record.id} is ${record.status}; ${next}`);
  }
  const outs = inputs.waitForCompletion ? await finish(ctx, api, inputs, record, tuning) : toOutputs(inputs, record);
  // Not partial state: the failed job was not charged, and the next `up` must start a new one.
  if (outs.status === "error")
    throw prefix(ctx, new TranscriptFailedError(record.id, outs.errorCode, outs.errorMessage));
  return { id: record.id, outs };
}

const read: TranscriptCore["read"] = async (ctx, id, state) => {
  const api = transcriptionApi(ctx.client);
  const record = await api.getTranscript(id).catch((error: unknown) => {
    throw error instanceof Error ? prefix(ctx, error) : error;
  });
  const inputs = inputsFrom(transcriptTable, state);
  if (!record) {
    ctx.log.warn(
      `transcript ${id} is no longer on the platform (results are kept 7 days); keeping the stored ` +
        `status and text. Nothing needs to be done; \`pulumi up --replace\` would run (and pay for) a new job.`,
    );
    const outs: TranscriptOutputs = {
      ...state,
      expiredAt: state.expiredAt ?? new Date(ctx.clock.now()).toISOString(),
    };
    return { id, outs, inputs };
  }
  return { id, outs: toOutputs(inputs, record, state), inputs };
};

async function update(
  ctx: CallContext,
  id: string,
  olds: TranscriptOutputs,
  news: TranscriptInputs,
  tuning: TranscriptTuning,
): Promise<TranscriptOutputs> {
  if (isFinished(olds.status)) return toOutputs(news, recordOf(olds), olds);
  // The stored job is still queued or processing: look at it again instead of starting a new one.
  const api = transcriptionApi(ctx.client);
  let record: TranscriptRecord | undefined;
  try {
    record = await api.getTranscript(id);
  } catch (error) {
    throw prefix(ctx, new PartialCreateError(id, toOutputs(news, recordOf(olds), olds), error));
  }
  if (!record) throw prefix(ctx, jobGone(id));
  if (!news.waitForCompletion) return toOutputs(news, record, olds);
  ctx.log.info(`resuming the wait for job ${id} (${record.status})`);
  const outs = await finish(ctx, api, news, record, tuning, olds);
  if (outs.status === "error") {
    // Keep the failure in state: the next `up` sees status error and replaces (a new job).
    const failure = new TranscriptFailedError(id, outs.errorCode, outs.errorMessage);
    throw prefix(ctx, new PartialCreateError(id, outs, failure));
  }
  return outs;
}

const forget: TranscriptCore["delete"] = async (ctx, id) => {
  // The API has no delete: the result expires on the platform after 7 days.
  ctx.log.debug(`transcript ${id} removed from the state; the platform deletes it after its 7-day retention`);
};

export function createTranscriptCore(overrides: Partial<TranscriptTuning> = {}): TranscriptCore {
  const tuning: TranscriptTuning = { ...defaultTuning, ...overrides };
  return {
    table: transcriptTable,
    importing: {
      supported: false,
      reason:
        "a transcript's inputs (its url or source file, language, glossary) are not kept by the platform; " +
        "declare a Transcript resource instead",
    },
    check,
    diff,
    create: (ctx, inputs) => create(ctx, inputs, tuning),
    read,
    update: (ctx, id, olds, news) => update(ctx, id, olds, news, tuning),
    delete: forget,
  };
}

export const transcriptCore = createTranscriptCore();
