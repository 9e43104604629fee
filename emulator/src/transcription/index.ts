import { mkdir, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { ApiError, validationError } from "../api-error.js";
import { dispatch, RAW_KEY_OR_JWT, type DispatchDeps } from "../dispatch.js";
import { readJsonBody, writeAnswer } from "../http-io.js";
import { newTranscriptId } from "../ids.js";
import type { TranscriptionOptions, TranscriptionService } from "../interfaces.js";
import { objectReply, type Reply } from "../replies.js";
import { inArea, Router, type Route } from "../router.js";
import { canonical } from "../shapes/canonical.js";
import { EMPTY_DIRECTORY } from "../shapes/shape.js";
import { isIpLiteral, type AddressPolicy } from "./address-policy.js";
import { detectEngine } from "./engine.js";
import { Ledger } from "./ledger.js";
import { MAX_MEDIA_BYTES } from "./limits.js";
import { mediaPath, processJob, type ProcessorDeps } from "./processor.js";
import { JobQueue } from "./queue.js";
import { isEnded, type StoredJob } from "./records.js";
import { checkResolved, createGuardedDispatcher, systemResolveAll, type ResolveAll } from "./safe-fetch.js";
import { CreateTranscriptBody, describeIssues } from "./schema.js";
import { JobStore } from "./store.js";
import { uploadTooLarge, UploadStore } from "./uploads.js";
import { parseFetchableUrl } from "./url-check.js";
import { deliverWebhook } from "./webhook.js";

/** Knobs for tests; the server never sets them. */
export interface TranscriptionTestHooks {
  /** Replaces DNS resolution (both the synchronous check and the guarded connect). */
  readonly resolveAll?: ResolveAll;
  /** Extra processing time per job, to observe 202 and queued/processing states. */
  readonly processingDelayMs?: number;
  /** Worker pool size; default 2. */
  readonly concurrency?: number;
}

const PURGE_INTERVAL_MS = 60_000;
/** Bound on the synchronous DNS check of `url`, so a slow resolver does not hold the request. */
const SYNC_DNS_CHECK_MS = 2_000;
const UPLOAD_KEY = /^upl_[0-9a-f]{24}$/;
const TRANSCRIPT_ID = /^tr_[0-9a-f]{24}$/;

/**
 * The transcription API (spec §4.3, docs/api-contract.md §8): uploads, transcripts and the balance.
 * State lives in `<dataDir>/transcription/`.
 */
export function createTranscriptionService(
  opts: TranscriptionOptions,
  hooks: TranscriptionTestHooks = {},
): TranscriptionService {
  const root = join(opts.dataDir, "transcription");
  const mediaDir = join(root, "media");
  const policy: AddressPolicy = { allowLoopback: opts.allowLoopbackUrls };
  const resolveAll = hooks.resolveAll ?? systemResolveAll;
  const dispatcher = createGuardedDispatcher(policy, resolveAll);
  const store = new JobStore(
    opts.persistent ? join(root, "transcripts") : undefined,
    opts.retentionDays * 86_400_000,
    opts.logger,
  );
  const uploads = new UploadStore(join(root, "uploads"), opts.persistent);
  const webhooks = new AbortController();
  let ledger: Ledger | undefined;

  const deps = (): ProcessorDeps => ({
    store,
    ledger: ledger!,
    mediaDir,
    dispatcher,
    policy,
    engine,
    logger: opts.logger,
    processingDelayMs: hooks.processingDelayMs ?? 0,
  });
  const engine = detectEngine(opts.transcriber);

  const queue = new JobQueue(hooks.concurrency ?? 2, async (id, signal) => {
    const job = store.get(id);
    if (job === undefined) return;
    let ended: StoredJob;
    try {
      ended = await processJob(job, deps(), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      opts.logger.error("transcription: could not record the end of a job", { id, error: String(err) });
      return;
    }
    const publicId = opts.publicTranscriptId?.(ended.transcript.id) ?? ended.transcript.id;
    void deliverWebhook(ended.transcript, publicId, dispatcher, webhooks.signal, opts.logger);
  });

  const ready = (async () => {
    await mkdir(mediaDir, { recursive: true });
    ledger = await Ledger.open(opts.initialBalanceUsd, opts.persistent ? root : undefined);
    await Promise.all([store.load(), uploads.load()]);
    // Unfinished jobs restart from the beginning: give their holds back first (a done job's hold is its charge).
    for (const id of ledger.heldJobIds()) {
      const job = store.get(id);
      if (job === undefined || job.transcript.status !== "done") await ledger.release(id);
      else await ledger.charge(id);
    }
    const unfinished = store
      .all()
      .filter((job) => !isEnded(job.transcript.status))
      .sort((a, b) => a.transcript.created_at.localeCompare(b.transcript.created_at));
    for (const job of unfinished) queue.enqueue(job.transcript.id);
  })();
  ready.catch((err: unknown) =>
    opts.logger.error("transcription: could not load the stored state", { error: String(err) }),
  );

  const purgeTimer = setInterval(() => {
    void Promise.all([store.purgeExpired(), uploads.purgeExpired()]).catch((err: unknown) =>
      opts.logger.warn("transcription: purge failed", { error: String(err) }),
    );
  }, PURGE_INTERVAL_MS);
  purgeTimer.unref();

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
  const routes = inArea("transcription", [
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
  const standalone: DispatchDeps = {
    router: new Router(routes),
    counter: opts.counter,
    logger: opts.logger,
    authenticate: (req) => opts.authenticate(req),
    credentialForms: () => RAW_KEY_OR_JWT,
    resolveId: (_kind, segment) => segment,
  };

  return {
    routes,
    async handle(req, res, url) {
      writeAnswer(req, res, canonical.render(await dispatch(standalone, req, url), EMPTY_DIRECTORY));
    },
    getBalance: () => ledger?.available() ?? opts.initialBalanceUsd,
    setBalance: (usd) => {
      if (ledger) void ledger.set(usd);
      else void ready.then(() => ledger!.set(usd));
    },
    countTranscripts: () => store.count(),
    inventory: () => store.live().map((job) => ({ id: job.transcript.id, status: job.transcript.status })),
    summaries: () =>
      store.live().map(({ transcript: t }) => ({
        id: t.id,
        status: t.status,
        language: t.language,
        text: t.text,
        audio_duration: t.audio_duration,
        price_usd: t.price_usd,
        error: t.error,
        created_at: t.created_at,
        completed_at: t.completed_at,
      })),
    async reset() {
      await ready;
      await queue.stop();
      await store.clear();
      await uploads.clear();
      await rm(mediaDir, { recursive: true, force: true });
      await mkdir(mediaDir, { recursive: true });
      await ledger!.reset(opts.initialBalanceUsd);
      queue.start();
    },
    async close() {
      clearInterval(purgeTimer);
      await ready.catch(() => undefined);
      await queue.stop();
      webhooks.abort();
      await Promise.all([store.flush(), ledger?.flush()]);
      await dispatcher.close();
    },
  };
}
