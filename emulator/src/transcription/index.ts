import type { TranscriptionOptions, TranscriptionService } from "../interfaces.js";
import { canonical } from "../shapes/canonical.js";
import { EMPTY_DIRECTORY } from "../shapes/shape.js";
import { dispatch, RAW_KEY_OR_JWT, type DispatchDeps } from "../dispatch.js";
import { writeAnswer } from "../http-io.js";
import { Router } from "../router.js";
import { transcriptionRoutes } from "./routes.js";
import { startTranscriptionRuntime, type TranscriptionTestHooks } from "./runtime.js";

export type { TranscriptionTestHooks };

/**
 * The transcription API (spec §4.3, docs/api-contract.md §8): uploads, transcripts and the balance.
 * State lives in `<dataDir>/transcription/`. Composes the runtime (stores, queue, dispatcher:
 * runtime.ts) and the routes on it (routes.ts) into the service the emulator mounts, which also
 * answers alone (the transcription harness's tests).
 */
export function createTranscriptionService(
  opts: TranscriptionOptions,
  hooks: TranscriptionTestHooks = {},
): TranscriptionService {
  const runtime = startTranscriptionRuntime(opts, hooks);
  const { store, ready } = runtime;
  const routes = transcriptionRoutes(runtime, opts);
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
    getBalance: () => runtime.ledger()?.available() ?? opts.initialBalanceUsd,
    setBalance: (usd) => {
      const ledger = runtime.ledger();
      if (ledger) void ledger.set(usd);
      else void ready.then(() => runtime.ledger()!.set(usd));
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
    reset: () => runtime.reset(),
    close: () => runtime.close(),
  };
}
