/**
 * What the transcription API runs on: its stores (jobs, uploads, the balance's ledger), the queue of
 * workers, the guarded dispatcher every fetch goes through, and the timer that purges expired
 * records. Loaded once; unfinished jobs are started again from the beginning, their holds given back.
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { TranscriptionOptions } from "../interfaces.js";
import type { AddressPolicy } from "./address-policy.js";
import { detectEngine } from "./engine.js";
import { Ledger } from "./ledger.js";
import { processJob, type ProcessorDeps } from "./processor.js";
import { JobQueue } from "./queue.js";
import { isEnded, type StoredJob } from "./records.js";
import { createGuardedDispatcher, systemResolveAll, type ResolveAll } from "./safe-fetch.js";
import { JobStore } from "./store.js";
import { UploadStore } from "./uploads.js";
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

export interface TranscriptionRuntime {
  readonly store: JobStore;
  readonly uploads: UploadStore;
  readonly queue: JobQueue;
  readonly mediaDir: string;
  readonly policy: AddressPolicy;
  readonly resolveAll: ResolveAll;
  /** Settles once the stored state is loaded; every handler waits for it. */
  readonly ready: Promise<void>;
  /** The balance's ledger, once loaded. */
  ledger(): Ledger | undefined;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export function startTranscriptionRuntime(
  opts: TranscriptionOptions,
  hooks: TranscriptionTestHooks = {},
): TranscriptionRuntime {
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

  return {
    store,
    uploads,
    queue,
    mediaDir,
    policy,
    resolveAll,
    ready,
    ledger: () => ledger,
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
