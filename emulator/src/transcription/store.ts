import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { readJsonIfExists, writeJsonAtomic, WriteQueue } from "./persist.js";
import { StoredJob, isEnded } from "./records.js";
import type { Logger } from "../interfaces.js";

/**
 * Transcript jobs in memory, mirrored to `<dir>/<id>.json` when persistent. Ended transcripts
 * expire `retentionMs` after they ended (spec §8: results are kept 7 days).
 */
export class JobStore {
  private readonly jobs = new Map<string, StoredJob>();
  private readonly writes = new Map<string, WriteQueue>();

  constructor(
    private readonly dir: string | undefined,
    private readonly retentionMs: number,
    private readonly logger: Logger,
  ) {}

  async load(): Promise<void> {
    if (this.dir === undefined) return;
    await mkdir(this.dir, { recursive: true });
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(".json")) continue;
      try {
        const job = StoredJob.parse(await readJsonIfExists(join(this.dir, name)));
        this.jobs.set(job.transcript.id, job);
      } catch (err) {
        this.logger.warn("transcription: skipping an unreadable transcript record", { file: name, error: String(err) });
      }
    }
    await this.purgeExpired();
  }

  /** The job, or undefined when unknown or past retention. */
  get(id: string): StoredJob | undefined {
    const job = this.jobs.get(id);
    if (job === undefined || this.isExpired(job, Date.now())) return undefined;
    return job;
  }

  all(): StoredJob[] {
    return [...this.jobs.values()];
  }

  /** The jobs not past retention. */
  live(): StoredJob[] {
    const now = Date.now();
    return this.all().filter((job) => !this.isExpired(job, now));
  }

  count(): number {
    return this.live().length;
  }

  save(job: StoredJob): Promise<void> {
    this.jobs.set(job.transcript.id, job);
    const dir = this.dir;
    if (dir === undefined) return Promise.resolve();
    const snapshot = structuredClone(job);
    return this.queueFor(job.transcript.id).enqueue(() =>
      writeJsonAtomic(join(dir, `${job.transcript.id}.json`), snapshot),
    );
  }

  async purgeExpired(): Promise<void> {
    const now = Date.now();
    for (const job of this.all()) {
      if (this.isExpired(job, now)) await this.remove(job.transcript.id);
    }
  }

  async clear(): Promise<void> {
    for (const id of [...this.jobs.keys()]) await this.remove(id);
  }

  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()].map((queue) => queue.drain()));
  }

  private async remove(id: string): Promise<void> {
    this.jobs.delete(id);
    const dir = this.dir;
    if (dir === undefined) return;
    await this.queueFor(id).enqueue(() => rm(join(dir, `${id}.json`), { force: true }));
    this.writes.delete(id);
  }

  private queueFor(id: string): WriteQueue {
    let queue = this.writes.get(id);
    if (!queue) {
      queue = new WriteQueue();
      this.writes.set(id, queue);
    }
    return queue;
  }

  private isExpired(job: StoredJob, now: number): boolean {
    const ended = job.transcript.completed_at;
    if (!isEnded(job.transcript.status) || ended === null) return false;
    return Date.parse(ended) + this.retentionMs <= now;
  }
}
