import { join } from "node:path";
import { z } from "zod";
import { readJsonIfExists, writeJsonAtomic, WriteQueue } from "./persist.js";
import { roundUsd } from "./limits.js";

const LedgerFile = z.object({ balanceUsd: z.number(), holds: z.record(z.string(), z.number()) });

/**
 * The balance and the holds of unfinished transcripts, kept in one file so that a hold and the
 * balance it came from change together. `balance` already has the holds taken off.
 */
export class Ledger {
  private balance: number;
  private holds = new Map<string, number>();
  private readonly writes = new WriteQueue();
  private readonly file: string | undefined;

  private constructor(initialUsd: number, dir: string | undefined) {
    this.balance = initialUsd;
    this.file = dir === undefined ? undefined : join(dir, "ledger.json");
  }

  static async open(initialUsd: number, dir: string | undefined): Promise<Ledger> {
    const ledger = new Ledger(initialUsd, dir);
    if (ledger.file !== undefined) {
      const stored = await readJsonIfExists(ledger.file);
      if (stored !== undefined) {
        const parsed = LedgerFile.parse(stored);
        ledger.balance = parsed.balanceUsd;
        ledger.holds = new Map(Object.entries(parsed.holds));
      }
    }
    return ledger;
  }

  available(): number {
    return this.balance;
  }

  heldFor(jobId: string): number | undefined {
    return this.holds.get(jobId);
  }

  heldJobIds(): string[] {
    return [...this.holds.keys()];
  }

  set(usd: number): Promise<void> {
    this.balance = roundUsd(usd);
    return this.save();
  }

  /** Takes `usd` off the balance for a job; false (and no change) when the balance cannot cover it. */
  hold(jobId: string, usd: number): boolean {
    if (usd > this.balance) return false;
    this.balance = roundUsd(this.balance - usd);
    this.holds.set(jobId, usd);
    void this.save();
    return true;
  }

  /** The job failed: its hold goes back to the balance. */
  release(jobId: string): Promise<void> {
    const held = this.holds.get(jobId);
    if (held === undefined) return Promise.resolve();
    this.holds.delete(jobId);
    this.balance = roundUsd(this.balance + held);
    return this.save();
  }

  /** The job is done: its hold becomes the charge. */
  charge(jobId: string): Promise<void> {
    if (!this.holds.delete(jobId)) return Promise.resolve();
    return this.save();
  }

  reset(initialUsd: number): Promise<void> {
    this.balance = initialUsd;
    this.holds.clear();
    return this.save();
  }

  flush(): Promise<void> {
    return this.writes.drain();
  }

  private save(): Promise<void> {
    const file = this.file;
    if (file === undefined) return Promise.resolve();
    const snapshot = { balanceUsd: this.balance, holds: Object.fromEntries(this.holds) };
    return this.writes.enqueue(() => writeJsonAtomic(file, snapshot));
  }
}
