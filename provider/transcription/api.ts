import type { UploadTicket } from "./parse.js";
import type { TranscriptRecord } from "./types.js";

/** The transcription endpoints the Transcript core uses (docs/api-contract.md §8). */
export interface TranscriptionApi {
  /** POST /v1/transcripts/upload. */
  prepareUpload(request: { filename: string; size: number }): Promise<UploadTicket>;
  /**
   * POST /v1/transcripts (`?wait=false` when `wait` is false). Never repeated once it may have
   * reached the server: a second create would be a second paid job.
   */
  createTranscript(body: CreateTranscriptBody, wait: boolean): Promise<TranscriptRecord>;
  /** GET /v1/transcripts/{id}; undefined on 404 (unknown id, or past the 7-day retention). */
  getTranscript(id: string): Promise<TranscriptRecord | undefined>;
}

export interface CreateTranscriptBody {
  url?: string;
  uploadKey?: string;
  language: string;
  webhookUrl?: string;
  glossary?: Record<string, string>;
}
