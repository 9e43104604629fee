import { EventEmitter } from "node:events";

/**
 * A small worker pool: at most `concurrency` jobs run at once, the rest wait in order. Callers
 * can wait for a job to end (the synchronous wait of POST /v1/transcripts).
 */
export class JobQueue {
  private readonly pending: string[] = [];
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly ended = new EventEmitter();
  private stopped = false;

  constructor(
    private readonly concurrency: number,
    private readonly run: (id: string, signal: AbortSignal) => Promise<void>,
  ) {
    this.ended.setMaxListeners(0);
  }

  enqueue(id: string): void {
    if (this.stopped || this.pending.includes(id) || this.running.has(id)) return;
    this.pending.push(id);
    this.pump();
  }

  /** Resolves true when the job ends within `ms`, false otherwise. */
  waitForEnd(id: string, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const onEnd = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.ended.off(id, onEnd);
        resolve(false);
      }, ms);
      this.ended.once(id, onEnd);
    });
  }

  /** Stops taking jobs and aborts the running ones; they stay as persisted. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pending.length = 0;
    const running = [...this.running.values()];
    for (const { controller } of running) controller.abort();
    await Promise.all(running.map(({ done }) => done));
  }

  start(): void {
    this.stopped = false;
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.concurrency && this.pending.length > 0) {
      const id = this.pending.shift()!;
      const controller = new AbortController();
      const done = this.run(id, controller.signal).then(
        () => {
          this.running.delete(id);
          this.ended.emit(id);
          this.pump();
        },
        () => {
          // Aborted by stop(): the job keeps its persisted state and is resumed on the next start.
          this.running.delete(id);
        },
      );
      this.running.set(id, { controller, done });
    }
  }
}
