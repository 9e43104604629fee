/**
 * The transcription endpoints the Transcript core uses (docs/api-contract.md §8), over the
 * provider's ApiClient against `{apiUrl}`.
 */
import { pathOf, type ApiClient } from "../../client.js";
import { isNotFound, UnexpectedResponseError } from "../../errors.js";
import { receivedKeys } from "../../shapes.js";
import { parseTranscript, parseUploadTicket, type TranscriptRecord, type UploadTicket } from "./parse.js";

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
    async prepareUpload(request): Promise<UploadTicket> {
      // Repeating it is harmless: an unused upload key simply expires.
      const res = await client.request({
        method: "POST",
        path: "/v1/transcripts/upload",
        base: "transcription",
        body: request,
        idempotent: true,
      });
      const ticket = parseUploadTicket(res.data);
      if (!ticket) throw unexpected("POST /v1/transcripts/upload", res.data, "no uploadKey and uploadUrl", res.status);
      return ticket;
    },

    async createTranscript(body: CreateTranscriptBody, wait: boolean): Promise<TranscriptRecord> {
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
      });
      return record("POST /v1/transcripts", res.data, res.status);
    },

    async getTranscript(id: string): Promise<TranscriptRecord | undefined> {
      try {
        const res = await client.request({ method: "GET", path: pathOf`/v1/transcripts/${id}`, base: "transcription" });
        return record("GET /v1/transcripts/{id}", res.data, res.status);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}

function record(endpoint: string, body: unknown, status: number): TranscriptRecord {
  const parsed = parseTranscript(body);
  if (!parsed) throw unexpected(endpoint, body, "no transcript id and status", status);
  return parsed;
}

function unexpected(endpoint: string, body: unknown, problem: string, status: number): UnexpectedResponseError {
  return new UnexpectedResponseError(endpoint, receivedKeys(body), problem, status);
}
