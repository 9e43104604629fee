import type { Clock } from "../../vocabulary.js";
import { backoffDelay, type Backoff } from "../../retry.js";
import { isFinished, type TranscriptRecord } from "../../platform/transcript/parse.js";

/**
 * Polls GET /v1/transcripts/{id} until the job ends or the deadline passes (docs/api-contract.md
 * §8.3). Progress goes to the Pulumi output when the status changes and otherwise at most once per
 * `progressIntervalMs`, not on every poll: a long job should not flood the console.
 */
export interface WaitOptions {
  /** Epoch milliseconds after which the wait gives up (the job keeps running on the platform). */
  readonly deadline: number;
  readonly backoff: Backoff;
  readonly progressIntervalMs: number;
  readonly clock: Clock;
  readonly log: (message: string) => void;
}

export interface WaitResult {
  readonly record: TranscriptRecord;
  /** False when the deadline passed first. */
  readonly finished: boolean;
}

export async function waitForTranscript(
  poll: () => Promise<TranscriptRecord>,
  initial: TranscriptRecord,
  options: WaitOptions,
): Promise<WaitResult> {
  const startedAt = options.clock.now();
  let record = initial;
  let lastLogAt = startedAt;
  let lastStatus = record.status;
  for (let attempt = 0; ; attempt++) {
    if (isFinished(record.status)) return { record, finished: true };
    const remaining = options.deadline - options.clock.now();
    if (remaining <= 0) return { record, finished: false };
    await options.clock.sleep(Math.min(backoffDelay(attempt, options.backoff), remaining));
    record = await poll();
    const now = options.clock.now();
    if (record.status !== lastStatus || now - lastLogAt >= options.progressIntervalMs) {
      options.log(`job ${record.id} is ${record.status} (waited ${formatElapsed(now - startedAt)})`);
      lastLogAt = now;
      lastStatus = record.status;
    }
  }
}

/** `1h02m05s`, `2m30s`, `12s`: what a person reads in a deployment log. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m${String(s).padStart(2, "0")}s`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}
