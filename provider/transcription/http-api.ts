import { pathOf, type ApiClient } from "../client.js";
import { isNotFound, UnexpectedResponseError } from "../errors.js";
import type { CreateTranscriptBody, TranscriptionApi } from "./api.js";
import { receivedKeys } from "../shapes.js";
import { parseTranscript, parseUploadTicket, type UploadTicket } from "./parse.js";
import type { TranscriptRecord } from "./types.js";

/**
 * The transcription endpoints over the provider's ApiClient, against `{apiUrl}`
 * (docs/api-contract.md §8).
 */

/** The synchronous wait is "about 20 seconds" (spec §8): leave room for upload latency and a slow server. */
const createTimeoutMs = 90_000;

export function transcriptionApi(client: ApiClient): TranscriptionApi {
  return {
    async prepareUpload(request): Promise<UploadTicket> {
      const endpoint = "POST /v1/transcripts/upload";
      // Repeating it is harmless: an unused upload key simply expires.
      const res = await client.request({
        method: "POST",
        path: "/v1/transcripts/upload",
        base: "transcription",
        body: request,
        idempotent: true,
      });
      const ticket = parseUploadTicket(res.data);
      if (!ticket) throw unexpected(endpoint, res.data, "no uploadKey and uploadUrl", res.status);
      return ticket;
    },

    async createTranscript(body: CreateTranscriptBody, wait: boolean): Promise<TranscriptRecord> {
      const endpoint = "POST /v1/transcripts";
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
      return record(endpoint, res.data, res.status);
    },

    async getTranscript(id: string): Promise<TranscriptRecord | undefined> {
      const path = pathOf`/v1/transcripts/${id}`;
      try {
        const res = await client.request({ method: "GET", path, base: "transcription" });
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
