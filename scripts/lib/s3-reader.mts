// An application reading a bucket over S3 without pause while its credentials are rotated: it
// always signs with the pair it was last given (`use`, called with a stack's outputs after each
// `up`), and counts every request S3 refused, with the access key id and the S3 error code. Used by
// the end-to-end rotation tests and the rotation benchmark. Loopback only: the endpoint is the
// emulator's.
import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";

export interface Pair {
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export interface Refusal {
  readonly accessKeyId: string;
  /** The S3 error code (`SignatureDoesNotMatch`, `InvalidAccessKeyId`, …). */
  readonly code: string;
}

export interface Reading {
  /** Requests S3 answered with the object. */
  readonly ok: number;
  /** Requests S3 refused (403). */
  readonly refused: readonly Refusal[];
  /** Requests that failed otherwise (a dropped connection, a 5xx): not a credential's doing. */
  readonly failed: number;
}

function clientFor(pair: Pair): S3Client {
  return new S3Client({
    endpoint: pair.endpoint,
    region: pair.region,
    forcePathStyle: true,
    // One attempt: a refused request must count, not be retried away.
    maxAttempts: 1,
    credentials: { accessKeyId: pair.accessKeyId, secretAccessKey: pair.secretAccessKey },
  });
}

/** Writes `key` with `pair`, so that the reader has something to read. */
export async function putObject(pair: Pair, key: string, body: string): Promise<void> {
  const client = clientFor(pair);
  try {
    await client.send(new PutObjectCommand({ Bucket: pair.bucket, Key: key, Body: body }));
  } finally {
    client.destroy();
  }
}

/** What S3 answers one request signed with `pair`: "ok", or the error code that refused it. */
export async function readOnce(pair: Pair, key: string): Promise<string> {
  const client = clientFor(pair);
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: pair.bucket, Key: key }));
    await got.Body?.transformToString();
    return "ok";
  } catch (error) {
    if (error instanceof S3ServiceException) return error.name;
    throw error;
  } finally {
    client.destroy();
  }
}

export class S3Reader {
  private client: S3Client;
  private pair: Pair;
  private running = true;
  private readonly loop: Promise<void>;
  private ok = 0;
  private failed = 0;
  private readonly refused: Refusal[] = [];

  private readonly key: string;
  private readonly pauseMs: number;

  /** Starts reading `key` with `pair`, one request at a time, `pauseMs` apart. */
  constructor(pair: Pair, key: string, pauseMs = 20) {
    this.key = key;
    this.pauseMs = pauseMs;
    this.pair = pair;
    this.client = clientFor(pair);
    this.loop = this.run();
  }

  /** From the next request on, signs with `pair` (what the application does after each `up`). */
  use(pair: Pair): void {
    if (pair.accessKeyId === this.pair.accessKeyId && pair.secretAccessKey === this.pair.secretAccessKey) return;
    const old = this.client;
    this.pair = pair;
    this.client = clientFor(pair);
    // A request already signed with the old pair finishes on the old client.
    setTimeout(() => old.destroy(), 5_000).unref();
  }

  /** What it met so far. */
  reading(): Reading {
    return { ok: this.ok, refused: [...this.refused], failed: this.failed };
  }

  async stop(): Promise<Reading> {
    this.running = false;
    await this.loop;
    this.client.destroy();
    return this.reading();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const pair = this.pair;
      try {
        const got = await this.client.send(new GetObjectCommand({ Bucket: pair.bucket, Key: this.key }));
        await got.Body?.transformToString();
        this.ok++;
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (error instanceof S3ServiceException && status === 403) {
          this.refused.push({ accessKeyId: pair.accessKeyId, code: error.name });
        } else {
          this.failed++;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
  }
}
