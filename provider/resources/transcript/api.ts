/**
 * The transcription endpoints the Transcript core uses (docs/api-contract.md §8), over the
 * provider's ApiClient against `{apiUrl}`.
 */
import { pathOf, type ApiClient } from "../../client.js";
import { isNotFound } from "../../errors.js";
import { transcriptSchema, uploadTicketSchema, type TranscriptRecord, type UploadTicket } from "./parse.js";

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

/** The synchronous wait is "about 20 seconds" (spec §8): leave room for upload latency and a slow server. */
const createTimeoutMs = 90_000;

export function transcriptionApi(client: ApiClient): TranscriptionApi {
  return {
    async prepareUpload(request) {
      // Repeating it is harmless: an unused upload key simply expires.
      const res = await client.request({
        method: "POST",
        path: "/v1/transcripts/upload",
        base: "transcription",
        body: request,
        idempotent: true,
        schema: uploadTicketSchema,
      });
      return res.data;
    },

    async createTranscript(body, wait) {
      // Not idempotent and without a way to look the job up: the client repeats it only when the
      // server certainly did not process it (a second job would be paid twice).
      const res = await client.request({
        method: "POST",
        path: "/v1/transcripts",
        base: "transcription",
        body,
        ...(wait ? {} : { query: { wait: "false" } }),
        idempotent: false,
        timeoutMs: createTimeoutMs,
        expectedStatus: [200, 201, 202],
        schema: transcriptSchema,
      });
      return res.data;
    },

    async getTranscript(id) {
      const path = pathOf`/v1/transcripts/${id}`;
      try {
        return (await client.request({ method: "GET", path, base: "transcription", schema: transcriptSchema })).data;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}
