import { priceForDuration } from "./limits.js";
import { inputsFrom } from "../../tables.js";
import { transcriptTable, type TranscriptInputs, type TranscriptOutputs } from "./fields.js";
import type { TranscriptRecord } from "../../platform/transcript/parse.js";

/**
 * Builds complete outputs from the inputs and what the API said. Fields the API has not (yet) told
 * keep their previous value, so a refresh that sees less (e.g. no text after retention) loses nothing.
 */
export function toOutputs(
  inputs: TranscriptInputs,
  record: TranscriptRecord,
  previous?: TranscriptOutputs,
): TranscriptOutputs {
  const outs: TranscriptOutputs = {
    ...inputsFrom(transcriptTable, inputs),
    transcriptId: record.id,
    status: record.status,
  };
  const text = record.text ?? previous?.text;
  if (text !== undefined) outs.text = text;
  // A job not yet processed echoes the requested `auto`: that is not a detected language.
  const reported = record.language === "auto" ? undefined : record.language;
  const language = reported ?? previous?.detectedLanguage;
  if (language !== undefined) outs.detectedLanguage = language;
  const duration = record.audioDurationSeconds ?? previous?.audioDurationSeconds;
  if (duration !== undefined) outs.audioDurationSeconds = duration;
  const price = duration !== undefined ? priceForDuration(duration) : (record.priceUsd ?? previous?.priceUsd);
  if (price !== undefined) outs.priceUsd = price;
  if (record.status === "error") {
    if (record.errorCode !== undefined) outs.errorCode = record.errorCode;
    if (record.errorMessage !== undefined) outs.errorMessage = record.errorMessage;
  }
  const createdAt = record.createdAt ?? previous?.createdAt;
  if (createdAt !== undefined) outs.createdAt = createdAt;
  const completedAt = record.completedAt ?? previous?.completedAt;
  if (completedAt !== undefined) outs.completedAt = completedAt;
  return outs;
}

/** The record stored in outputs, so a resumed wait starts from what was last known. */
export function recordOf(outs: TranscriptOutputs): TranscriptRecord {
  const record: TranscriptRecord = { id: outs.transcriptId, status: outs.status };
  if (outs.text !== undefined) record.text = outs.text;
  if (outs.errorCode !== undefined) record.errorCode = outs.errorCode;
  if (outs.errorMessage !== undefined) record.errorMessage = outs.errorMessage;
  return record;
}
