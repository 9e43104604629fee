import { createdNames, objectWith, reader } from "../../answers/find.js";
import { AnswerObject, isObj, keyForm } from "../../answers/object.js";
import { amount, identifier, text, timestamp } from "../../answers/values.js";

/** Status of a transcription job (spec §2); the field table of a Transcript lists them too. */
export const transcriptStatuses = ["queued", "processing", "done", "error"] as const;
export type TranscriptStatus = (typeof transcriptStatuses)[number];

/**
 * Readers of the transcription answers (docs/api-contract.md §8) for the client, by the rules of
 * provider/answers/ (§2.3): the object under any envelope or its kind's key, any spelling of a key, the
 * names other platforms give the same fields, numeric ids, epoch timestamps. An answer without
 * what the operation needs (an id and a status; a key and an address) fails the request with
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

/** Spellings of the four states (spec §2) other platforms use for the same ideas. */
const statusWords: Record<string, TranscriptStatus> = {
  queued: "queued",
  pending: "queued",
  waiting: "queued",
  processing: "processing",
  running: "processing",
  inprogress: "processing",
  done: "done",
  completed: "done",
  complete: "done",
  succeeded: "done",
  success: "done",
  error: "error",
  failed: "error",
  failure: "error",
};

function statusOf(v: unknown): TranscriptStatus | undefined {
  const s = text(v);
  return s === undefined ? undefined : statusWords[keyForm(s)];
}

/** Seconds, or milliseconds under a name that says so. */
function durationOf(f: AnswerObject): number | undefined {
  const seconds = f.read(
    ["audio_duration", "duration", "duration_seconds", "audio_duration_seconds", "length"],
    amount,
  );
  if (seconds !== undefined) return seconds;
  const ms = f.read(["duration_ms", "audio_duration_ms"], amount);
  return ms === undefined ? undefined : ms / 1000;
}

/** Splits the spec's `"<code>: <detail>"` error string (spec §2). */
export function splitErrorMessage(message: string): { code?: string; message: string } {
  const match = /^([a-z][a-z0-9_]*): ?(.*)$/s.exec(message);
  return match ? { code: match[1]!, message: match[2]! } : { message };
}

function errorOf(f: AnswerObject): { errorCode?: string; errorMessage: string } {
  const nested = f.read(["error"], (v) => (isObj(v) ? new AnswerObject(v) : undefined));
  if (nested !== undefined) {
    const code = nested.read(["code", "type"], text);
    const message = nested.read(["message", "detail", "description"], text) ?? code ?? "the job failed";
    return { ...(code === undefined ? {} : { errorCode: code }), errorMessage: message };
  }
  const raw = f.read(["error", "error_message", "failure_reason", "message"], text);
  const split = splitErrorMessage(raw ?? "the job failed without a message");
  return { ...(split.code === undefined ? {} : { errorCode: split.code }), errorMessage: split.message };
}

function readTranscript(raw: unknown): TranscriptRecord {
  const f = objectWith(raw, ["transcript", "job"], ["status", "state"]);
  const record: TranscriptRecord = {
    id: f.need(["id", "uuid", "transcript_id", "job_id"], identifier, "transcript id"),
    status: f.need(["status", "state"], statusOf, "status (queued, processing, done, error)"),
  };
  const result = f.read(["result"], (v) => (isObj(v) ? new AnswerObject(v) : undefined));
  const transcriptText = f.read(["text", "transcript", "transcription"], (v) =>
    typeof v === "string" ? v : undefined,
  );
  const resultText = result?.read(["text", "transcript"], (v) => (typeof v === "string" ? v : undefined));
  const words = transcriptText ?? resultText;
  if (words !== undefined) record.text = words;
  const language = f.read(["language", "language_code", "detected_language", "lang"], text);
  if (language !== undefined) record.language = language;
  const duration = durationOf(f);
  if (duration !== undefined) record.audioDurationSeconds = duration;
  const price = f.read(["price_usd", "price", "cost_usd", "cost"], amount);
  if (price !== undefined) record.priceUsd = price;
  const createdAt = f.read(createdNames, timestamp);
  if (createdAt !== undefined) record.createdAt = createdAt;
  const completedAt = f.read(["completed_at", "completed", "finished_at", "done_at", "ended_at"], timestamp);
  if (completedAt !== undefined) record.completedAt = completedAt;
  if (record.status === "error") Object.assign(record, errorOf(f));
  return record;
}

/** A transcript (contract §8.2, §8.3). */
export const transcriptSchema = reader(readTranscript);

export interface UploadTicket {
  readonly uploadKey: string;
  /** Carries its own token: never log it, never put it in an error. */
  readonly uploadUrl: string;
}

/** The answer of POST /v1/transcripts/upload (contract §8.1). */
export const uploadTicketSchema = reader((raw): UploadTicket => {
  const keyNames = ["upload_key", "key", "upload_id"];
  const urlNames = ["upload_url", "url", "put_url", "signed_url"];
  const f = objectWith(raw, ["upload"], urlNames);
  return { uploadKey: f.need(keyNames, text, "uploadKey"), uploadUrl: f.need(urlNames, text, "uploadUrl") };
});
