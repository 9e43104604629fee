import { z } from "zod";
import { unwrapData } from "../../shapes.js";
import { transcriptStatuses, type TranscriptStatus } from "./fields.js";

/**
 * Normalises transcript and upload responses (docs/api-contract.md §8), accepting the documented
 * variants: a `{data: …}` envelope, camelCase spellings, alternative field names. A response that
 * fits none yields `undefined`; the caller turns it into an UnexpectedResponseError naming the keys.
 */

/** Everything the API told about the job, normalised from its response variants. */
export interface TranscriptRecord {
  id: string;
  status: TranscriptStatus;
  text?: string;
  language?: string;
  audioDurationSeconds?: number;
  priceUsd?: number;
  errorCode?: string;
  errorMessage?: string;
  createdAt?: string;
  completedAt?: string;
}

export function isFinished(status: TranscriptStatus): boolean {
  return status === "done" || status === "error";
}

const statusSchema = z.enum(transcriptStatuses);
const text = z.string();
const number = z.number().finite().nonnegative();
const errorObject = z.object({ code: z.string().optional(), message: z.string().optional() });

const transcriptSchema = z.looseObject({
  id: z.string().optional(),
  uuid: z.string().optional(),
  transcript_id: z.string().optional(),
  transcriptId: z.string().optional(),
  status: statusSchema,
  text: text.nullish(),
  transcript: text.nullish(),
  result: z.looseObject({ text: text.nullish() }).nullish(),
  language: z.string().nullish(),
  audio_duration: number.nullish(),
  audioDuration: number.nullish(),
  duration: number.nullish(),
  duration_seconds: number.nullish(),
  durationSeconds: number.nullish(),
  price_usd: number.nullish(),
  priceUsd: number.nullish(),
  error: z.union([z.string(), errorObject]).nullish(),
  error_message: z.string().nullish(),
  errorMessage: z.string().nullish(),
  message: z.string().nullish(),
  created_at: z.string().nullish(),
  createdAt: z.string().nullish(),
  completed_at: z.string().nullish(),
  completedAt: z.string().nullish(),
});

/** Splits the spec's `"<code>: <detail>"` error string (spec §2). */
export function splitErrorMessage(message: string): { code?: string; message: string } {
  const match = /^([a-z][a-z0-9_]*): ?(.*)$/s.exec(message);
  return match ? { code: match[1]!, message: match[2]! } : { message };
}

function first<T>(...values: (T | null | undefined)[]): T | undefined {
  for (const value of values) if (value !== undefined && value !== null) return value;
  return undefined;
}

export function parseTranscript(body: unknown): TranscriptRecord | undefined {
  const parsed = transcriptSchema.safeParse(unwrapData(body));
  if (!parsed.success) return undefined;
  const t = parsed.data;
  const id = first(t.id, t.uuid, t.transcript_id, t.transcriptId);
  if (!id) return undefined;
  const status: TranscriptStatus = t.status;
  const record: TranscriptRecord = { id, status };
  const transcriptText = first(t.text, t.transcript, t.result?.text);
  if (transcriptText !== undefined) record.text = transcriptText;
  if (t.language) record.language = t.language;
  const duration = first(t.audio_duration, t.audioDuration, t.duration, t.duration_seconds, t.durationSeconds);
  if (duration !== undefined) record.audioDurationSeconds = duration;
  const price = first(t.price_usd, t.priceUsd);
  if (price !== undefined) record.priceUsd = price;
  const createdAt = first(t.created_at, t.createdAt);
  if (createdAt) record.createdAt = createdAt;
  const completedAt = first(t.completed_at, t.completedAt);
  if (completedAt) record.completedAt = completedAt;
  if (status === "error") {
    const error = t.error;
    if (error && typeof error === "object") {
      if (error.code) record.errorCode = error.code;
      record.errorMessage = error.message ?? error.code ?? "the job failed";
    } else {
      const raw = first(typeof error === "string" ? error : undefined, t.error_message, t.errorMessage, t.message);
      const split = splitErrorMessage(raw ?? "the job failed without a message");
      if (split.code) record.errorCode = split.code;
      record.errorMessage = split.message;
    }
  }
  return record;
}

const uploadSchema = z.looseObject({
  uploadKey: z.string().optional(),
  upload_key: z.string().optional(),
  uploadUrl: z.string().optional(),
  upload_url: z.string().optional(),
});

export interface UploadTicket {
  readonly uploadKey: string;
  /** Carries its own token: never log it, never put it in an error. */
  readonly uploadUrl: string;
}

export function parseUploadTicket(body: unknown): UploadTicket | undefined {
  const parsed = uploadSchema.safeParse(unwrapData(body));
  if (!parsed.success) return undefined;
  const uploadKey = first(parsed.data.uploadKey, parsed.data.upload_key);
  const uploadUrl = first(parsed.data.uploadUrl, parsed.data.upload_url);
  return uploadKey && uploadUrl ? { uploadKey, uploadUrl } : undefined;
}
