import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Dispatcher } from "undici";
import type { Logger } from "../interfaces.js";
import type { AddressPolicy } from "./address-policy.js";
import { downloadTo, tooLargeJobError } from "./download.js";
import { toSpeechWav, type SpeechEngine } from "./engine.js";
import { JobError } from "./errors.js";
import { applyGlossary } from "./glossary.js";
import type { Ledger } from "./ledger.js";
import { formatUsd, MAX_AUDIO_SECONDS, MAX_MEDIA_BYTES, priceUsd } from "./limits.js";
import { measureDuration } from "./media.js";
import type { StoredJob, Transcript } from "./records.js";
import type { JobStore } from "./store.js";

export interface ProcessorDeps {
  readonly store: JobStore;
  readonly ledger: Ledger;
  readonly mediaDir: string;
  readonly dispatcher: Dispatcher;
  readonly policy: AddressPolicy;
  readonly engine: Promise<SpeechEngine | undefined>;
  readonly logger: Logger;
  /** Extra time spent "processing" after the price is held; lets tests observe queued/processing. */
  readonly processingDelayMs: number;
}

/** Where a job's media sits while it runs (an upload is moved here when the job is created). */
export function mediaPath(mediaDir: string, jobId: string): string {
  return join(mediaDir, `${jobId}.media`);
}

/**
 * Runs one job to its end (spec §3): fetch, measure, hold the price, transcribe, then charge on
 * done or release on error. When `signal` aborts because the service closes, the job is left as
 * persisted (processing, hold kept) and is resumed on the next start.
 */
export async function processJob(job: StoredJob, deps: ProcessorDeps, signal: AbortSignal): Promise<StoredJob> {
  const id = job.transcript.id;
  const media = mediaPath(deps.mediaDir, id);
  const wav = join(deps.mediaDir, `${id}.16k.wav`);
  let current: StoredJob = { ...job, transcript: { ...job.transcript, status: "processing" } };
  await deps.store.save(current);
  /**
   * Records the job's end and settles its hold. A charge comes after the record: after a crash in
   * between, the restart sees a done job and keeps its hold as the charge (charging first could
   * charge a re-run twice). A release comes before it, so no client sees the error while the
   * price is still held; a crash in between re-runs the job, which holds the price again.
   */
  const end = async (outcome: Partial<Transcript>, settle: "charge" | "release"): Promise<StoredJob> => {
    if (settle === "release") await deps.ledger.release(id);
    current = { ...current, transcript: { ...current.transcript, ...outcome, completed_at: new Date().toISOString() } };
    await deps.store.save(current);
    if (settle === "charge") await deps.ledger.charge(id);
    await removeMedia(media, wav);
    return current;
  };
  try {
    if (job.source.kind === "url") {
      await downloadTo(new URL(job.source.url), media, deps.dispatcher, deps.policy, signal);
    }
    if ((await stat(media)).size > MAX_MEDIA_BYTES) throw tooLargeJobError();
    const seconds = await measureDuration(media, signal);
    if (seconds > MAX_AUDIO_SECONDS) {
      throw new JobError(
        "too_long",
        `the audio lasts ${Math.round(seconds)} s, over the 6 h limit; split it into parts`,
      );
    }
    const price = priceUsd(seconds);
    current = { ...current, transcript: { ...current.transcript, audio_duration: round3(seconds), price_usd: price } };
    const available = deps.ledger.available();
    if (!deps.ledger.hold(id, price)) {
      throw new JobError(
        "insufficient_balance",
        `the balance (US$${formatUsd(available)}) cannot cover the price (US$${formatUsd(price)})`,
      );
    }
    await deps.store.save(current);
    if (deps.processingDelayMs > 0) await sleep(deps.processingDelayMs, undefined, { signal });
    const { text, language } = await transcribe(media, wav, seconds, current.transcript.language, deps.engine, signal);
    return await end({ status: "done", text: applyGlossary(text, current.glossary), language }, "charge");
  } catch (err) {
    if (signal.aborted) throw err;
    const failure =
      err instanceof JobError
        ? err
        : new JobError("internal", `the emulator failed on this file (${(err as Error).message})`);
    if (!(err instanceof JobError))
      deps.logger.error("transcription: job failed unexpectedly", { id, error: String(err) });
    return await end({ status: "error", text: null, error: failure.message }, "release");
  }
}

async function transcribe(
  media: string,
  wav: string,
  seconds: number,
  language: string,
  enginePromise: Promise<SpeechEngine | undefined>,
  signal: AbortSignal,
): Promise<{ text: string; language: string }> {
  const engine = await enginePromise;
  const length = `${(Math.round(seconds * 10) / 10).toString()} s`;
  if (engine === undefined) {
    return { text: `[emulator: no speech engine installed; audio of ${length} received]`, language };
  }
  if (engine.languages !== undefined && !engine.languages.has(language)) {
    return {
      text: `[emulator: ${engine.name} has no model for language "${language}"; audio of ${length} received]`,
      language,
    };
  }
  // Generous: pocketsphinx runs at about 0.4x real time; an external engine may be slower.
  const timeoutMs = 120_000 + Math.ceil(seconds * 3000);
  await toSpeechWav(media, wav, signal, timeoutMs);
  let text: string;
  try {
    text = await engine.transcribe(wav, language, signal, timeoutMs);
  } catch (err) {
    if (signal.aborted) throw err;
    throw new JobError(
      "engine_failed",
      `the speech engine failed (${(err as Error).message}); try again or use another engine`,
    );
  }
  const detected =
    language === "auto" && engine.languages !== undefined && engine.languages.has("en") ? "en" : language;
  return { text, language: detected };
}

async function removeMedia(...paths: string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { force: true })));
}

function round3(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
