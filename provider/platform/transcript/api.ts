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
   * POST /v1/transcripts?wait=false: answered at once with the job queued, so that its id is known
   * (and journaled) before anything else can go wrong. Never repeated once it may have reached the
   * server: the platform has no way to look a job up, and a second job would be paid twice.
   */
  createTranscript(body: CreateTranscriptBody): Promise<TranscriptRecord>;
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

    async createTranscript(body) {
      const res = await client.request({
        method: "POST",
        path: "/v1/transcripts",
        base: "transcription",
        body,
        query: { wait: "false" },
        idempotent: false,
        unknownOutcomeAdvice:
          "The platform has no way to look a job up, so the request was not repeated: a second job would be charged " +
          "twice. If the job started, it runs and is charged when done (the dashboard shows it); `pulumi up` starts a " +
          "new one.",
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
