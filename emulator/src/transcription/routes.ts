/**
 * The transcription API's routes (spec §4.3, docs/api-contract.md §8): uploads, transcripts, each
 * handler on the runtime's stores once they are loaded.
 */
import type { IncomingMessage } from "node:http";
import { ApiError, validationError } from "../api-error.js";
import { readJsonBody } from "../http-io.js";
import { newTranscriptId } from "../ids.js";
import type { TranscriptionOptions } from "../interfaces.js";
import { objectReply, type Reply } from "../replies.js";
import { inArea, type AreaRoute, type Route } from "../router.js";
import { isIpLiteral } from "./address-policy.js";
import { MAX_MEDIA_BYTES } from "./limits.js";
import { mediaPath } from "./processor.js";
import { isEnded, type StoredJob } from "./records.js";
import { checkResolved, type ResolveAll } from "./safe-fetch.js";
import { CreateTranscriptBody, describeIssues } from "./schema.js";
import type { TranscriptionRuntime } from "./runtime.js";
import { uploadTooLarge } from "./uploads.js";
import { parseFetchableUrl } from "./url-check.js";

/** Bound on the synchronous DNS check of `url`, so a slow resolver does not hold the request. */
const SYNC_DNS_CHECK_MS = 2_000;
const UPLOAD_KEY = /^upl_[0-9a-f]{24}$/;
const TRANSCRIPT_ID = /^tr_[0-9a-f]{24}$/;

export function transcriptionRoutes(runtime: TranscriptionRuntime, opts: TranscriptionOptions): AreaRoute[] {
  const { store, uploads, queue, mediaDir, policy, resolveAll, ready } = runtime;

  async function createUpload(req: IncomingMessage): Promise<Reply> {
    const body = (await readJsonBody(req)) ?? {};
    const size = typeof body === "object" && body !== null ? (body as { size?: unknown }).size : undefined;
    if (typeof size === "number" && size > MAX_MEDIA_BYTES) throw uploadTooLarge();
    const { key, token, expiresAt } = await uploads.create();
    return objectReply("upload", {
      uploadKey: key,
      uploadUrl: `${opts.apiUrl()}/v1/uploads/${key}?token=${encodeURIComponent(token)}`,
      expires_at: expiresAt.toISOString(),
    });
  }

  async function receiveUpload(req: IncomingMessage, key: string, query: URLSearchParams): Promise<Reply> {
    if (!UPLOAD_KEY.test(key)) {
      throw new ApiError(404, "not_found", "this upload URL is unknown, expired or already used; ask for a new one");
    }
    const size = await uploads.receive(key, query.get("token"), req);
    return objectReply("upload_receipt", { uploadKey: key, size });
  }

  async function createTranscript(req: IncomingMessage, query: URLSearchParams): Promise<Reply> {
    const parsed = CreateTranscriptBody.safeParse((await readJsonBody(req)) ?? {});
    if (!parsed.success) throw validationError(describeIssues(parsed.error));
    const body = parsed.data;
    const wait = query.get("wait");
    if (wait !== null && wait !== "false" && wait !== "true") {
      throw validationError("wait: must be `false` (or absent to wait up to the synchronous wait)");
    }
    const webhookUrl =
      body.webhookUrl === undefined ? null : parseFetchableUrl(body.webhookUrl, "webhookUrl", policy).toString();
    const id = newTranscriptId();
    let source: StoredJob["source"];
    if (body.url !== undefined) {
      const target = parseFetchableUrl(body.url, "url", policy);
      await checkNameNow(target);
      source = { kind: "url", url: target.toString() };
    } else {
      if (!UPLOAD_KEY.test(body.uploadKey!)) {
        throw validationError("uploadKey is unknown, expired or already used; upload the file again");
      }
      await uploads.consume(body.uploadKey!, mediaPath(mediaDir, id));
      source = { kind: "upload", file: body.uploadKey! };
    }
    const job: StoredJob = {
      version: 1,
      transcript: {
        id,
        status: "queued",
        text: null,
        language: body.language,
        audio_duration: null,
        price_usd: null,
        error: null,
        webhook_url: webhookUrl,
        created_at: new Date().toISOString(),
        completed_at: null,
      },
      source,
      glossary: body.glossary,
    };
    await store.save(job);
    const ended = wait === "false" ? Promise.resolve(false) : queue.waitForEnd(id, opts.syncWaitMs);
    queue.enqueue(id);
    if (wait === "false") return queued(job);
    const finished = await ended;
    const current = store.get(id) ?? job;
    // A job that ended within the wait answers 200, in error too (docs/api-contract.md §8.2).
    if (finished && isEnded(current.transcript.status)) return objectReply("transcript", current.transcript);
    return queued(current);
  }

  /** The synchronous half of the address rule for names; the guarded connect is the other half. */
  async function checkNameNow(target: URL): Promise<void> {
    if (isIpLiteral(target.hostname)) return;
    const addresses = await new Promise<Parameters<Parameters<ResolveAll>[1]>[1] | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), SYNC_DNS_CHECK_MS);
      resolveAll(target.hostname, (err, found) => {
        clearTimeout(timer);
        resolve(err ? undefined : found);
      });
    });
    if (addresses === undefined) return;
    const refusal = checkResolved(addresses, target.hostname, policy);
    if (refusal) throw new ApiError(400, "url_not_allowed", refusal.detail);
  }

  const queued = (job: StoredJob): Reply => ({
    type: "object",
    kind: "transcript",
    status: 202,
    value: job.transcript,
    locationPrefix: "/v1/transcripts/",
  });

  function getTranscript(id: string): Reply {
    const job = TRANSCRIPT_ID.test(id) ? store.get(id) : undefined;
    if (job === undefined) {
      throw new ApiError(404, "not_found", `transcript ${id} does not exist or is past its 7-day retention`);
    }
    return objectReply("transcript", job.transcript);
  }

  /** Every handler waits for the stored state to be loaded first. */
  const loaded =
    (handle: Route["handle"]): Route["handle"] =>
    async (ctx) => {
      await ready;
      return handle(ctx);
    };
  return inArea("transcription", [
    { method: "POST", path: "/v1/transcripts/upload", handle: loaded(({ req }) => createUpload(req)) },
    { method: "POST", path: "/v1/transcripts", handle: loaded(({ req, query }) => createTranscript(req, query)) },
    {
      method: "PUT",
      path: "/v1/uploads/{key}",
      // The uploadUrl carries its own one-time token (docs/api-contract.md §8.1).
      authenticated: false,
      handle: loaded(({ req, params, query }) => receiveUpload(req, params["key"]!, query)),
    },
    {
      method: "GET",
      path: "/v1/transcripts/{id}",
      handle: loaded(async ({ params }) => getTranscript(params["id"]!)),
    },
  ]);
}
