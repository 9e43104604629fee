// Suite "s3": the emulator's S3 plane against s3rver (the usual Node fake S3), with the same client
// (@aws-sdk/client-s3) in this process, in alternating rounds. s3rver verifies no signature; the
// emulator verifies every signature and checksum, and keeps acknowledged writes across kill -9.
// Both store objects on the same disk (the run's scratch folder).
import { spawn, type ChildProcess } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, open, readFile } from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { startEmulatorProcess } from "../scripts/lib/emulator-process.mts";
import { repoRoot } from "../scripts/lib/paths.mts";
import { median, ratio, rotation, timed, type RowResult, type Suite, type SuiteOptions } from "./lib.mts";

type Server = "emulator" | "s3rver";

interface Target {
  readonly client: S3Client;
  readonly bucket: string;
  /** The server's process, whose CPU time is read around each measurement. */
  readonly pid: number;
  stop(): Promise<void>;
}

/** Wall seconds of one measurement, and the CPU seconds the server spent in it. */
interface Measured {
  readonly seconds: number;
  readonly serverCpu: number;
}

interface Round {
  readonly round: number;
  readonly server: Server;
  /** All batches of 16 concurrent 4 KiB PUTs. */
  readonly smallPuts: Measured;
  readonly smallGets: Measured;
  readonly bigPut: Measured;
  readonly bigGet: Measured;
}

const SMALL = 4 * 1024;
const CONCURRENCY = 16;

function clientFor(endpoint: string, accessKeyId: string, secretAccessKey: string): S3Client {
  return new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    // Retries would hide a failure inside a figure.
    maxAttempts: 1,
  });
}

async function startEmulator(dir: string): Promise<Target> {
  const emulator = await startEmulatorProcess(path.join(dir, "emulator.log"), ["--data-dir", path.join(dir, "data")]);
  const call = async (route: string): Promise<Record<string, unknown>> => {
    const body = route.endsWith("/buckets") ? JSON.stringify({ name: "bench", storage_class: "Standard" }) : "{}";
    const res = await fetch(`${emulator.baseUrl}${route}`, {
      method: "POST",
      headers: { authorization: emulator.apiKey, "content-type": "application/json" },
      body,
    });
    if (!res.ok) throw new Error(`emulator: POST ${route} answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const bucket = await call("/object-storage/buckets");
  const credential = await call(`/object-storage/buckets/${String(bucket["id"])}/credentials`);
  const client = clientFor(
    emulator.s3Url,
    String(credential["access_key_id"]),
    String(credential["secret_access_key"]),
  );
  return { client, bucket: "bench", pid: emulator.process.pid!, stop: emulator.stop };
}

const s3rverScript = `
const S3rver = require("s3rver");
new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: process.argv[1], configureBuckets: [{ name: "bench" }] })
  .run()
  .then(({ port }) => console.log(port));
`;

async function startS3rver(dir: string): Promise<Target> {
  const child: ChildProcess = spawn(process.execPath, ["-e", s3rverScript, dir], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`s3rver exited with code ${code} before it was ready`)));
    readline.createInterface({ input: child.stdout! }).once("line", resolve);
  });
  // s3rver's fixed account (it checks no signature, but the client signs anyway).
  const client = clientFor(`http://127.0.0.1:${port}`, "S3RVER", "S3RVER");
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { client, bucket: "bench", pid: child.pid!, stop };
}

async function randomFile(file: string, bytes: number): Promise<void> {
  const handle = await open(file, "w");
  try {
    const block = Buffer.alloc(4 * 1024 * 1024);
    for (let written = 0; written < bytes; written += block.length) {
      // Random bytes in each block: nothing downstream may take a shortcut on repeated content.
      for (let i = 0; i < block.length; i += 65536) block.set(crypto.getRandomValues(new Uint8Array(65536)), i);
      await handle.write(block, 0, Math.min(block.length, bytes - written));
    }
  } finally {
    await handle.close();
  }
}

/** User + system CPU seconds of a process so far (Linux: /proc/<pid>/stat, in clock ticks of 1/100 s). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function measure(target: Target, work: () => Promise<void>): Promise<Measured> {
  const cpuBefore = await cpuSeconds(target.pid);
  const { seconds } = await timed(work);
  return { seconds, serverCpu: (await cpuSeconds(target.pid)) - cpuBefore };
}

function smallPuts(target: Target, batches: number, body: Buffer, prefix: string): Promise<Measured> {
  return measure(target, async () => {
    for (let b = 0; b < batches; b++) {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          target.client.send(
            new PutObjectCommand({ Bucket: target.bucket, Key: `${prefix}/small-${b}-${i}`, Body: body }),
          ),
        ),
      );
    }
  });
}

function smallGets(target: Target, batches: number, prefix: string): Promise<Measured> {
  return measure(target, async () => {
    for (let b = 0; b < batches; b++) {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, i) => {
          const res = await target.client.send(
            new GetObjectCommand({ Bucket: target.bucket, Key: `${prefix}/small-${b}-${i}` }),
          );
          await res.Body!.transformToByteArray();
        }),
      );
    }
  });
}

function bigPut(target: Target, file: string, bytes: number, key: string): Promise<Measured> {
  return measure(target, async () => {
    await target.client.send(
      new PutObjectCommand({ Bucket: target.bucket, Key: key, Body: createReadStream(file), ContentLength: bytes }),
    );
  });
}

function bigGet(target: Target, key: string, bytes: number): Promise<Measured> {
  return measure(target, async () => {
    const res = await target.client.send(new GetObjectCommand({ Bucket: target.bucket, Key: key }));
    let received = 0;
    for await (const chunk of res.Body as AsyncIterable<Uint8Array>) received += chunk.length;
    // s3rver stores a streamed upload with its aws-chunked framing, so its object is a little larger.
    if (received < bytes) throw new Error(`GET returned ${received} bytes of ${bytes}`);
  });
}

export const s3Suite: Suite = {
  name: "s3",
  rowIds: ["s3-small-puts", "s3-put-256", "s3-get-256", "s3-small-gets"],
  async run(options: SuiteOptions) {
    const bigMiB = 256;
    const bigBytes = bigMiB * 1024 * 1024;
    const batches = options.short ? 10 : 25;
    const dir = path.join(options.workDir, "s3");
    await mkdir(path.join(dir, "s3rver"), { recursive: true });
    const file = path.join(dir, "big.bin");
    await randomFile(file, bigBytes);
    const small = Buffer.from(crypto.getRandomValues(new Uint8Array(SMALL)));
    const targets: Record<Server, Target> = {
      emulator: await startEmulator(dir),
      s3rver: await startS3rver(path.join(dir, "s3rver")),
    };
    const raw: Round[] = [];
    const show = (m: Measured) => `${m.seconds.toFixed(2)} s (server CPU ${m.serverCpu.toFixed(2)} s)`;
    try {
      // One warm-up pass each: the first requests of a process pay for loading code.
      for (const server of ["emulator", "s3rver"] as const) {
        await smallPuts(targets[server], 2, small, "warm");
        await smallGets(targets[server], 2, "warm");
      }
      for (let round = 1; round <= options.rounds; round++) {
        for (const server of rotation<Server>(["emulator", "s3rver"], round)) {
          const target = targets[server];
          const prefix = `r${round}`;
          const measured: Round = {
            round,
            server,
            smallPuts: await smallPuts(target, batches, small, prefix),
            smallGets: await smallGets(target, batches, prefix),
            bigPut: await bigPut(target, file, bigBytes, `${prefix}/big`),
            bigGet: await bigGet(target, `${prefix}/big`, bigBytes),
          };
          raw.push(measured);
          options.log(
            `s3 round ${round}/${options.rounds} ${server}: ${CONCURRENCY}×${batches} small PUTs ${show(measured.smallPuts)}, ` +
              `GETs ${show(measured.smallGets)}, ${bigMiB} MiB PUT ${show(measured.bigPut)}, GET ${show(measured.bigGet)}`,
          );
        }
      }
    } finally {
      targets.emulator.client.destroy();
      targets.s3rver.client.destroy();
      await Promise.all([targets.emulator.stop(), targets.s3rver.stop()]);
    }

    const of = (server: Server, pick: (r: Round) => Measured) => {
      const mine = raw.filter((r) => r.server === server).map(pick);
      return { seconds: median(mine.map((m) => m.seconds)), serverCpu: median(mine.map((m) => m.serverCpu)) };
    };
    const row = (
      id: string,
      what: string,
      pick: (r: Round) => Measured,
      unit: (seconds: number) => string,
    ): RowResult => {
      const emulator = of("emulator", pick);
      const s3rver = of("s3rver", pick);
      // Throughput ratio: s3rver's time over the emulator's.
      const value = s3rver.seconds / emulator.seconds;
      const reference = id === "s3-small-gets";
      return {
        id,
        what,
        now: ratio(value),
        goal: reference ? "(reference)" : "≥ 1.00×",
        met: reference ? undefined : value >= 1,
        detail:
          `emulator ${unit(emulator.seconds)}, s3rver ${unit(s3rver.seconds)}; ` +
          `server CPU ${emulator.serverCpu.toFixed(2)} s vs ${s3rver.serverCpu.toFixed(2)} s`,
      };
    };
    const perSecond = (count: number) => (seconds: number) => `${(count / seconds).toFixed(0)}/s`;
    const mibPerSecond = (seconds: number) => `${(bigMiB / seconds).toFixed(0)} MiB/s`;
    return {
      rows: [
        row(
          "s3-small-puts",
          `emulator S3 vs s3rver: ${CONCURRENCY} concurrent 4 KiB PUTs`,
          (r) => r.smallPuts,
          perSecond(CONCURRENCY * batches),
        ),
        row("s3-put-256", `emulator S3 vs s3rver: one ${bigMiB} MiB PUT`, (r) => r.bigPut, mibPerSecond),
        row("s3-get-256", `emulator S3 vs s3rver: one ${bigMiB} MiB GET`, (r) => r.bigGet, mibPerSecond),
        row(
          "s3-small-gets",
          `emulator S3 vs s3rver: ${CONCURRENCY} concurrent 4 KiB GETs`,
          (r) => r.smallGets,
          perSecond(CONCURRENCY * batches),
        ),
      ],
      raw,
    };
  },
};
