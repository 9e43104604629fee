import { request, type Dispatcher } from "undici";
import type { Logger } from "../interfaces.js";
import { WEBHOOK_TIMEOUT_MS } from "./limits.js";
import type { Transcript } from "./records.js";

/**
 * One POST `{"data":{"id","status"}}` per ended transcript (spec §6): no retry, no redirect, a 10 s
 * limit, through the guarded dispatcher so the webhook cannot reach internal addresses either.
 */
export async function deliverWebhook(
  transcript: Transcript,
  /** The id as clients know it (a shape may show another than the emulator's own). */
  publicId: string | number,
  dispatcher: Dispatcher,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  if (transcript.webhook_url === null) return;
  const target = new URL(transcript.webhook_url);
  try {
    const response = await request(target, {
      method: "POST",
      dispatcher,
      signal: AbortSignal.any([signal, AbortSignal.timeout(WEBHOOK_TIMEOUT_MS)]),
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ data: { id: publicId, status: transcript.status } }),
      headersTimeout: WEBHOOK_TIMEOUT_MS,
      bodyTimeout: WEBHOOK_TIMEOUT_MS,
    });
    await response.body.dump();
    logger.info("transcription: webhook delivered", {
      id: transcript.id,
      host: target.host,
      status: response.statusCode,
    });
  } catch (err) {
    // One attempt only (spec §6): the receiver reads the result with GET /v1/transcripts/{id}.
    logger.warn("transcription: webhook not delivered", {
      id: transcript.id,
      host: target.host,
      error: (err as Error).message,
    });
  }
}
