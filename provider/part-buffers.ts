/**
 * The buffers a multipart upload reads its parts into (api.ts), shared by every upload of the
 * process: a folder's sync runs sixteen uploads at once, and their parts in flight hold at most
 * `count` buffers of `bytes` between them, whatever the number and size of the files. Uploads
 * waiting for a buffer are served in the order they asked, so none starves.
 *
 * Why buffers reused rather than a read stream per part (what the upload did first): a stream
 * allocates a fresh 64 KiB buffer per read, so 1 GiB left 16,384 of them for the garbage
 * collector, which frees such memory (outside the JavaScript heap) only once about 64 MiB of it
 * has piled up: a 1 GiB upload grew the process by 70-90 MiB, mostly that garbage. A buffer is
 * given back once S3 answered its part: S3 answers an UploadPart only after reading its whole
 * body, and the SDK's retries send the same buffer again before answering, so nothing reads a
 * buffer after it is given back. When every buffer is back and no upload waits, they are dropped,
 * so an idle provider process holds none.
 */
export class PartBuffers {
  private free: Buffer[] = [];
  private readonly lent = new Set<Buffer>();
  private readonly queue: ((buffer: Buffer) => void)[] = [];

  constructor(
    readonly count: number,
    readonly bytes: number,
  ) {}

  /** A buffer of `bytes`, once one is free; give it back with `give`, exactly once. */
  take(): Promise<Buffer> {
    const buffer = this.free.pop() ?? (this.held < this.count ? Buffer.allocUnsafeSlow(this.bytes) : undefined);
    if (buffer === undefined) return new Promise((resolve) => this.queue.push(resolve));
    this.lent.add(buffer);
    return Promise.resolve(buffer);
  }

  /** Gives `buffer` back: to the upload waiting longest, else to the pool (dropped when all are back). */
  give(buffer: Buffer): void {
    // A buffer given twice would be lent to two parts at once, each overwriting the other's bytes.
    if (!this.lent.has(buffer)) throw new Error("a part buffer was given back that is not lent");
    const next = this.queue.shift();
    if (next !== undefined) {
      next(buffer);
      return;
    }
    this.lent.delete(buffer);
    this.free.push(buffer);
    if (this.lent.size === 0) this.free = [];
  }

  /** Buffers allocated now (lent or free): what the pool holds. */
  get held(): number {
    return this.lent.size + this.free.length;
  }

  /** Takers waiting for a buffer. */
  get waiting(): number {
    return this.queue.length;
  }
}
