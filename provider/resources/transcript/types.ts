/**
 * Wire types of the Transcript resource as the core sees them: plain JSON, stored in Pulumi state.
 * Old states must stay readable, so fields are only ever added, never renamed.
 */

/** The inputs after `check`: defaults applied, `sourceHash` computed from the file. */
export interface TranscriptInputs {
  /** Public http(s) URL of the media; exactly one of `url` / `sourcePath`. */
  url?: string;
  /** Local media file, as the program gave it (relative paths resolve from the program directory). */
  sourcePath?: string;
  /** sha256 (hex) of the file's content, computed by `check`; a change re-runs the job. */
  sourceHash?: string;
  language: string;
  glossary?: Record<string, string>;
  webhookUrl?: string;
  waitForCompletion: boolean;
  timeoutMinutes: number;
}

export type TranscriptStatus = "queued" | "processing" | "done" | "error";

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

/** The outputs: the inputs plus the job's record. */
export interface TranscriptOutputs extends TranscriptInputs {
  transcriptId: string;
  status: TranscriptStatus;
  text?: string;
  /** The language the platform reports (detected when the input was `auto`). */
  detectedLanguage?: string;
  audioDurationSeconds?: number;
  /** Price per spec §8: US$ 0.02 per hour, per started minute; set once the duration is known. */
  priceUsd?: number;
  errorCode?: string;
  errorMessage?: string;
  createdAt?: string;
  completedAt?: string;
  /** Set once a refresh found the result gone after the platform's 7-day retention. */
  expiredAt?: string;
}

export function isFinished(status: TranscriptStatus): boolean {
  return status === "done" || status === "error";
}
