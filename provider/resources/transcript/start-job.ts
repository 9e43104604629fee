/**
 * A Transcript's job, started once (docs/api-contract.md §2.4, §8): a job is paid for when it ends
 * `done`, so create resumes the job an interrupted run of the same resource started with the same
 * inputs, when the journal kept its id, and otherwise uploads the media (a local file) and starts a
 * new one, journaled before and after the request.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { CallContext } from "../../contract.js";
import { SourceMissingError, TranscriptUploadError } from "../../errors.js";
import { platformOf, refusedOutright } from "../interrupted.js";
import type { CreateTranscriptBody, TranscriptionApi } from "../../platform/transcript/api.js";
import { transcriptTable, type TranscriptInputs } from "./fields.js";
import type { TranscriptRecord } from "../../platform/transcript/parse.js";
import { statSource } from "./source.js";
import { UploadFailure, uploadFile, type UploadOptions } from "./upload.js";

const { type } = transcriptTable;

/**
 * What makes two jobs the same job: the media (URL, or the file's content hash), the language and the
 * glossary. Not the webhook address or how long to wait, which a new job would not change.
 */
export function jobHash(inputs: TranscriptInputs): string {
  const glossary = Object.entries(inputs.glossary ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const job = [inputs.url ?? null, inputs.sourceHash ?? null, inputs.language, glossary];
  return createHash("sha256").update(JSON.stringify(job)).digest("hex");
}

/**
 * The job of an interrupted run of this resource with the same inputs, when the journal kept its
 * id and the platform still has it: resumed instead of paying for a second one.
 */
export async function earlierJob(
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

export async function startJob(
  ctx: CallContext,
  api: TranscriptionApi,
  inputs: TranscriptInputs,
  inputHash: string,
  upload: UploadOptions,
): Promise<TranscriptRecord> {
  const body = await jobBody(ctx, api, inputs, upload);
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

/** What the job is made of: the media (uploaded first when it is a local file) and how to read it. */
async function jobBody(
  ctx: CallContext,
  api: TranscriptionApi,
  inputs: TranscriptInputs,
  upload: UploadOptions,
): Promise<CreateTranscriptBody> {
  const body: CreateTranscriptBody = { language: inputs.language };
  if (inputs.sourcePath !== undefined) {
    body.uploadKey = await uploadSource(ctx, api, inputs.sourcePath, upload);
  } else if (inputs.url !== undefined) {
    body.url = inputs.url;
  }
  if (inputs.webhookUrl !== undefined) body.webhookUrl = inputs.webhookUrl;
  if (inputs.glossary !== undefined && Object.keys(inputs.glossary).length > 0) body.glossary = inputs.glossary;
  return body;
}

async function uploadSource(
  ctx: CallContext,
  api: TranscriptionApi,
  path: string,
  upload: UploadOptions,
): Promise<string> {
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
      ...upload,
      onRetry: (message) => ctx.log.warn(message),
      sleep: ctx.clock.sleep,
    });
  } catch (error) {
    if (error instanceof UploadFailure) {
      throw new TranscriptUploadError(
        `uploading "${path}" failed: ${error.message}`,
        error.status === 413 ? "The platform accepts files up to 2 GB." : "Nothing was charged; run `pulumi up` again.",
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

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${bytes} bytes`;
}
