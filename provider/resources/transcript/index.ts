import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { CallContext, ResourceCore } from "../../core.js";
import { isUnknown } from "../../vocabulary.js";
import {
  aboutResource,
  CloudPlatformError,
  NotFoundError,
  PartialCreateError,
  SourceMissingError,
  TranscriptDeadlineError,
  TranscriptFailedError,
  TranscriptUploadError,
} from "../../errors.js";
import type { Backoff } from "../../retry.js";
import { diffInputs, inputsFrom } from "../../fields.js";
import { transcriptionApi, type CreateTranscriptBody, type TranscriptionApi } from "./api.js";
import { checkTranscriptInputs } from "./check.js";
import { recordOf, toOutputs } from "./outputs.js";
import { statSource } from "./source.js";
import { transcriptTable, type TranscriptInputs, type TranscriptOutputs } from "./fields.js";
import { isFinished, type TranscriptRecord } from "./parse.js";
import { platformOf, refusedOutright } from "../interrupted.js";
import { defaultUploadOptions, UploadFailure, uploadFile, type UploadOptions } from "./upload.js";
import { waitForTranscript } from "./wait.js";

/**
 * The Transcript resource: one transcription job run to completion during `pulumi up`
 * (spec §3, §4.3, §6–8; docs/api-contract.md §8; docs/transcript.md).
 *
 * The resource id is the transcript id. A job is paid for when it ends `done`, so the core never
 * starts a second job for the same inputs: once the id is known, every failure (deadline, network)
 * is reported as partial state carrying it, and the next `up` resumes waiting on that id.
 */

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

export function createTranscriptCore(
  overrides: Partial<TranscriptTuning> = {},
): ResourceCore<TranscriptInputs, TranscriptOutputs> {
  const deps: TranscriptTuning = { ...defaultTuning, ...overrides };

  // Errors carry the resource's name already when the core is called without a host (tests, tools).
  const prefix = <E extends Error>(ctx: CallContext, error: E): E => {
    if (CloudPlatformError.isInstance(error)) error.forResource(type, ctx.name);
    return error;
  };

  /** Waits for `record` to finish; every way of not finishing keeps the id as partial state. */
  async function finish(
    ctx: CallContext,
    api: TranscriptionApi,
    inputs: TranscriptInputs,
    record: TranscriptRecord,
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
          backoff: deps.pollBackoff,
          progressIntervalMs: deps.progressIntervalMs,
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

  /** What the job is made of: the media (uploaded first when it is a local file) and how to read it. */
  async function jobBody(
    ctx: CallContext,
    api: TranscriptionApi,
    inputs: TranscriptInputs,
  ): Promise<CreateTranscriptBody> {
    const body: CreateTranscriptBody = { language: inputs.language };
    if (inputs.sourcePath !== undefined) {
      body.uploadKey = await uploadSource(ctx, api, inputs.sourcePath);
    } else if (inputs.url !== undefined) {
      body.url = inputs.url;
    }
    if (inputs.webhookUrl !== undefined) body.webhookUrl = inputs.webhookUrl;
    if (inputs.glossary !== undefined && Object.keys(inputs.glossary).length > 0) body.glossary = inputs.glossary;
    return body;
  }

  /**
   * The job of an interrupted run of this resource with the same inputs, when the journal kept its
   * id and the platform still has it: resumed instead of paying for a second one.
   */
  async function earlierJob(
    ctx: CallContext,
    api: TranscriptionApi,
    inputHash: string,
  ): Promise<TranscriptRecord | undefined> {
    const platform = platformOf(ctx);
    await ctx.journal.quiet(
      platform,
      (e) => e.type === type && e.name === ctx.name,
      ctx.clock,
      (pid) => ctx.log.info(`waiting for process ${pid} of an interrupted run, still starting this transcript's job`),
    );
    const earlier = ctx.journal.find(type, ctx.name, platform);
    if (earlier?.inputHash !== inputHash) return undefined;
    if (earlier.id === undefined) {
      ctx.log.warn(
        "an interrupted run sent this transcript's job and its answer was lost with that run; the platform has no " +
          "way to look a job up, so a new one starts now (if the earlier one ran, it is charged too).",
      );
      return undefined;
    }
    const record = await api.getTranscript(earlier.id);
    // A job that failed was not charged and left nothing to keep: the desired state needs a new one.
    if (record === undefined || record.status === "error") return undefined;
    ctx.log.info(`resuming job ${record.id}, which an interrupted run started, instead of starting a new one`);
    return record;
  }

  async function startJob(
    ctx: CallContext,
    api: TranscriptionApi,
    inputs: TranscriptInputs,
    inputHash: string,
  ): Promise<TranscriptRecord> {
    const body = await jobBody(ctx, api, inputs);
    const platform = platformOf(ctx);
    ctx.journal.creating(type, ctx.name, platform, { inputHash });
    let record: TranscriptRecord;
    try {
      record = await api.createTranscript(body);
    } catch (error) {
      if (refusedOutright(error)) ctx.journal.forget(type, ctx.name);
      throw error;
    }
    ctx.journal.created(type, ctx.name, platform, record.id, { inputHash });
    return record;
  }

  async function uploadSource(ctx: CallContext, api: TranscriptionApi, path: string): Promise<string> {
    const stat = statSource(path);
    if (stat.kind !== "file") {
      throw new SourceMissingError(
        `source file "${path}" is no longer readable`,
        "Restore it and run `pulumi up` again.",
      );
    }
    const ticket = await api.prepareUpload({ filename: basename(path), size: stat.size });
    ctx.log.info(`uploading ${basename(path)} (${formatBytes(stat.size)})`);
    try {
      await uploadFile(ticket.uploadUrl, path, {
        ...deps.upload,
        onRetry: (message) => ctx.log.warn(message),
        sleep: ctx.clock.sleep,
      });
    } catch (error) {
      if (error instanceof UploadFailure) {
        throw new TranscriptUploadError(
          `uploading "${path}" failed: ${error.message}`,
          error.status === 413
            ? "The platform accepts files up to 2 GB."
            : "Nothing was charged; run `pulumi up` again.",
          {
            endpoint: "PUT uploadUrl",
            retryable: error.retryable,
            ...(error.status === undefined ? {} : { status: error.status }),
          },
        );
      }
      throw error;
    }
    return ticket.uploadKey;
  }

  return {
    table: transcriptTable,
    importing: {
      supported: false,
      reason:
        "a transcript's inputs (its url or source file, language, glossary) are not kept by the platform; " +
        "declare a Transcript resource instead",
    },

    check(ctx, _olds, news) {
      const result = checkTranscriptInputs(news, ctx.configured("apiUrl") ?? ctx.configured("baseUrl"));
      return {
        inputs: result.inputs,
        failures: result.failures.map((f) => ({
          property: f.property,
          reason: aboutResource(type, ctx.name, f.reason),
        })),
      };
    },

    diff(_ctx, _id, olds, news) {
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
    },

    async create(ctx, inputs) {
      const api = transcriptionApi(ctx.client);
      const inputHash = jobHash(inputs);
      let record: TranscriptRecord;
      try {
        record = (await earlierJob(ctx, api, inputHash)) ?? (await startJob(ctx, api, inputs, inputHash));
      } catch (error) {
        throw error instanceof Error ? prefix(ctx, error) : error;
      }
      // A job that ended within the synchronous wait needs no progress line: the outcome follows.
      if (!isFinished(record.status)) {
        const next = inputs.waitForCompletion ? "waiting for it" : "not waiting (waitForCompletion is false)";
        ctx.log.info(`job ${record.id} is ${record.status}; ${next}`);
      }
      const outs = inputs.waitForCompletion ? await finish(ctx, api, inputs, record) : toOutputs(inputs, record);
      // Not partial state: the failed job was not charged, and the next `up` must start a new one.
      if (outs.status === "error")
        throw prefix(ctx, new TranscriptFailedError(record.id, outs.errorCode, outs.errorMessage));
      return { id: record.id, outs };
    },

    async read(ctx, id, state) {
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
    },

    async update(ctx, id, olds, news) {
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
      const outs = await finish(ctx, api, news, record, olds);
      if (outs.status === "error") {
        // Keep the failure in state: the next `up` sees status error and replaces (a new job).
        const failure = new TranscriptFailedError(id, outs.errorCode, outs.errorMessage);
        throw prefix(ctx, new PartialCreateError(id, outs, failure));
      }
      return outs;
    },

    async delete(ctx, id) {
      // The API has no delete: the result expires on the platform after 7 days.
      ctx.log.debug(`transcript ${id} removed from the state; the platform deletes it after its 7-day retention`);
    },
  };
}

export const transcriptCore = createTranscriptCore();

/**
 * What makes two jobs the same job: the media (URL, or the file's content hash), the language and the
 * glossary. Not the webhook address or how long to wait, which a new job would not change.
 */
function jobHash(inputs: TranscriptInputs): string {
  const glossary = Object.entries(inputs.glossary ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const job = [inputs.url ?? null, inputs.sourceHash ?? null, inputs.language, glossary];
  return createHash("sha256").update(JSON.stringify(job)).digest("hex");
}

/** The stored job is not on the platform any more (unknown id, or past the 7-day retention). */
function jobGone(id: string, when = ""): NotFoundError {
  return new NotFoundError(
    `transcription job ${id} is no longer found on the platform${when}`,
    "Run `pulumi up --replace` on this resource to start a new job.",
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${bytes} bytes`;
}
