import { z } from "zod";

export const TranscriptStatus = z.enum(["queued", "processing", "done", "error"]);
export type TranscriptStatus = z.infer<typeof TranscriptStatus>;

/** The transcript object of docs/api-contract.md §8.2, as answered. */
export const Transcript = z.object({
  id: z.string(),
  status: TranscriptStatus,
  text: z.string().nullable(),
  language: z.string(),
  audio_duration: z.number().nullable(),
  price_usd: z.number().nullable(),
  error: z.string().nullable(),
  webhook_url: z.string().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
export type Transcript = z.infer<typeof Transcript>;

/** A transcript plus what the worker needs to (re)run it; stored as one JSON file per job. */
export const StoredJob = z.object({
  version: z.literal(1),
  transcript: Transcript,
  source: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("url"), url: z.string() }),
    z.object({ kind: z.literal("upload"), file: z.string() }),
  ]),
  glossary: z.record(z.string(), z.string()),
});
export type StoredJob = z.infer<typeof StoredJob>;

export function isEnded(status: TranscriptStatus): boolean {
  return status === "done" || status === "error";
}
