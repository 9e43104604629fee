import { z } from "zod";
import { entity, snakeKeys, unwrapData } from "../../shapes.js";
import { transcriptStatuses, type TranscriptStatus } from "./fields.js";

/**
 * Schemas of the transcription answers (docs/api-contract.md §8) for the client, accepting the
 * documented variants: a `{data: …}` envelope and camelCase spellings (both undone by shapes.ts
 * first), alternative field names. An answer that fits none fails the request with
 * `CLOUDPLATFORM_UNEXPECTED_RESPONSE`, naming the keys received.
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

const text = z.string();
const number = z.number().finite().nonnegative();
const errorObject = z.object({ code: z.string().optional(), message: z.string().optional() });

const transcriptBody = z.looseObject({
  id: z.string().min(1),
  status: z.enum(transcriptStatuses),
  text: text.nullish(),
  transcript: text.nullish(),
  result: z.looseObject({ text: text.nullish() }).nullish(),
  language: z.string().nullish(),
  audio_duration: number.nullish(),
  duration: number.nullish(),
  duration_seconds: number.nullish(),
  price_usd: number.nullish(),
  error: z.union([z.string(), errorObject]).nullish(),
  error_message: z.string().nullish(),
  message: z.string().nullish(),
  created_at: z.string().nullish(),
  completed_at: z.string().nullish(),
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

function toRecord(t: z.infer<typeof transcriptBody>): TranscriptRecord {
  const record: TranscriptRecord = { id: t.id, status: t.status };
  const transcriptText = first(t.text, t.transcript, t.result?.text);
  if (transcriptText !== undefined) record.text = transcriptText;
  if (t.language) record.language = t.language;
  const duration = first(t.audio_duration, t.duration, t.duration_seconds);
  if (duration !== undefined) record.audioDurationSeconds = duration;
  if (t.price_usd !== undefined && t.price_usd !== null) record.priceUsd = t.price_usd;
  if (t.created_at) record.createdAt = t.created_at;
  if (t.completed_at) record.completedAt = t.completed_at;
  if (t.status === "error") {
    const error = t.error;
    if (error && typeof error === "object") {
      if (error.code) record.errorCode = error.code;
      record.errorMessage = error.message ?? error.code ?? "the job failed";
    } else {
      const raw = first(typeof error === "string" ? error : undefined, t.error_message, t.message);
      const split = splitErrorMessage(raw ?? "the job failed without a message");
      if (split.code) record.errorCode = split.code;
      record.errorMessage = split.message;
    }
  }
  return record;
}

/** A transcript (contract §8.2, §8.3); the id may also come as `uuid` or `transcript_id`. */
export const transcriptSchema = z.preprocess(entity("transcript"), transcriptBody.transform(toRecord));

export interface UploadTicket {
  readonly uploadKey: string;
  /** Carries its own token: never log it, never put it in an error. */
  readonly uploadUrl: string;
}

/** The answer of POST /v1/transcripts/upload (contract §8.1). */
export const uploadTicketSchema = z.preprocess(
  (raw) => snakeKeys(unwrapData(raw)),
  z
    .looseObject({ upload_key: z.string().min(1), upload_url: z.string().min(1) })
    .transform((u): UploadTicket => ({ uploadKey: u.upload_key, uploadUrl: u.upload_url })),
);
