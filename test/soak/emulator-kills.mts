// Situation 4: the emulator itself killed with SIGKILL while five streams write to it (management
// creates and deletes, S3 PUTs), restarted on the same ports and data dir, then every write it
// acknowledged before dying is looked for. A write in flight at the kill was never acknowledged and
// may go either way; only acknowledged ones count.
import { createHash } from "node:crypto";
import path from "node:path";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import {
  startEmulatorProcess,
  type EmulatorEndpoints,
  type RunningEmulator,
} from "../../scripts/lib/emulator-process.mts";
import { watchChild } from "../support/processes.mts";
import type { Random } from "./random.mts";
import type { EmulatorCycle, SituationResult } from "./report.mts";

export const streams = 5;

interface Credential {
  readonly bucketId: string;
  readonly bucketName: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** What the emulator acknowledged, as it must be found after any restart. */
class Ledger {
  readonly buckets = new Map<string, string>();
  readonly credentials = new Map<string, string>();
  /** Zone id → expected present (false once its delete was acknowledged). */
  readonly zones = new Map<string, boolean>();
  /** Zones whose delete was sent but not acknowledged: either outcome is right. */
  readonly unsure = new Set<string>();
  readonly objects = new Map<string, { credential: Credential; sha256: string }>();
  acks = 0;

  get size(): number {
    return this.buckets.size + this.credentials.size + this.zones.size + this.objects.size;
  }
}

const sha256 = (body: string): string => createHash("sha256").update(body).digest("hex");

async function management<T>(
  endpoints: EmulatorEndpoints,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${endpoints.baseUrl}${urlPath}`, {
    method,
    headers: {
      authorization: endpoints.apiKey,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok) throw new Error(`${method} ${urlPath} answered ${response.status}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

function s3Client(endpoints: EmulatorEndpoints, credential: Credential): S3Client {
  return new S3Client({
    endpoint: endpoints.s3Url,
    region: "us-east-1",
    forcePathStyle: true,
    // One attempt: a retried PUT would blur which answer acknowledged what.
    maxAttempts: 1,
    credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secretAccessKey },
  });
}

/** One stream: bucket, credential, two objects, a zone, and every other round a zone delete, until stopped. */
async function stream(
  endpoints: EmulatorEndpoints,
  ledger: Ledger,
  id: number,
  cycle: number,
  stop: { stopped: boolean },
): Promise<void> {
  const name = (n: number): string => `s${id}-c${cycle}-${n}`;
  let previousZone: string | undefined;
  try {
    for (let n = 0; !stop.stopped; n++) {
      const bucket = await management<{ id: string }>(endpoints, "POST", "/object-storage/buckets", {
        name: name(n),
        storage_class: "Standard",
      });
      ledger.buckets.set(bucket.id, name(n));
      ledger.acks++;
      const created = await management<{ access_key_id: string; secret_access_key: string }>(
        endpoints,
        "POST",
        `/object-storage/buckets/${bucket.id}/credentials`,
      );
      const credential: Credential = {
        bucketId: bucket.id,
        bucketName: name(n),
        accessKeyId: created.access_key_id,
        secretAccessKey: created.secret_access_key,
      };
      ledger.credentials.set(credential.accessKeyId, bucket.id);
      ledger.acks++;
      const client = s3Client(endpoints, credential);
      try {
        for (const k of [0, 1]) {
          const key = `object-${k}`;
          const body = `${name(n)}/${key} written at ${Date.now()}`;
          await client.send(new PutObjectCommand({ Bucket: name(n), Key: key, Body: body }));
          ledger.objects.set(`${name(n)}/${key}`, { credential, sha256: sha256(body) });
          ledger.acks++;
        }
      } finally {
        client.destroy();
      }
      const zone = await management<{ id: string }>(endpoints, "POST", "/dns/zones", { name: `${name(n)}.soak.test` });
      ledger.zones.set(zone.id, true);
      ledger.acks++;
      if (previousZone !== undefined) {
        ledger.unsure.add(previousZone);
        await management(endpoints, "DELETE", `/dns/zones/${previousZone}`);
        ledger.unsure.delete(previousZone);
        ledger.zones.set(previousZone, false);
        ledger.acks++;
        previousZone = undefined;
      } else previousZone = zone.id;
    }
  } catch {
    // The emulator died under this stream's request: the write in flight was never acknowledged.
  }
}

/** Every acknowledged write looked for on the restarted emulator; returns descriptions of the missing ones. */
async function verify(endpoints: EmulatorEndpoints, ledger: Ledger): Promise<string[]> {
  const missing: string[] = [];
  const buckets = new Set(
    (await management<Array<{ id: string }>>(endpoints, "GET", "/object-storage/buckets")).map((b) => b.id),
  );
  for (const [id, name] of ledger.buckets) if (!buckets.has(id)) missing.push(`bucket ${name}`);
  const zones = new Set((await management<Array<{ id: string }>>(endpoints, "GET", "/dns/zones")).map((z) => z.id));
  for (const [id, present] of ledger.zones) {
    if (ledger.unsure.has(id)) continue;
    if (present && !zones.has(id)) missing.push(`zone ${id}`);
    if (!present && zones.has(id)) missing.push(`delete of zone ${id}`);
  }
  const byBucket = new Map<string, string[]>();
  for (const [key, bucketId] of ledger.credentials) byBucket.set(bucketId, [...(byBucket.get(bucketId) ?? []), key]);
  await eachLimited([...byBucket], 16, async ([bucketId, keys]) => {
    const live = new Set(
      (
        await management<Array<{ access_key_id: string }>>(
          endpoints,
          "GET",
          `/object-storage/buckets/${bucketId}/credentials`,
        ).catch(() => [])
      ).map((c) => c.access_key_id),
    );
    for (const key of keys) if (!live.has(key)) missing.push(`credential ${key}`);
  });
  await eachLimited([...ledger.objects], 16, async ([key, { credential, sha256: expected }]) => {
    const client = s3Client(endpoints, credential);
    try {
      const got = await client.send(new GetObjectCommand({ Bucket: credential.bucketName, Key: key.split("/")[1] }));
      const body = (await got.Body?.transformToString()) ?? "";
      if (sha256(body) !== expected) missing.push(`object ${key} (other content)`);
    } catch {
      missing.push(`object ${key}`);
    } finally {
      client.destroy();
    }
  });
  return missing;
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function portOf(url: string): string {
  return new URL(url).port;
}

export interface EmulatorKillOptions {
  readonly cycles: number;
  readonly dir: string;
  readonly random: Random;
  readonly log: (message: string) => void;
}

export async function emulatorKills(options: EmulatorKillOptions): Promise<SituationResult> {
  const started = Date.now();
  const logFile = path.join(options.dir, "emulator-kill.log");
  const args = ["--data-dir", path.join(options.dir, "emulator-kill-data"), "--quiet"];
  let emulator: RunningEmulator = await startEmulatorProcess(logFile, args);
  watchChild(emulator.process);
  // startEmulatorProcess passes `--port 0` first; a later --port wins (node:util parseArgs keeps the last).
  const samePorts = ["--port", portOf(emulator.baseUrl), "--s3-port", portOf(emulator.s3Url)];
  const ledger = new Ledger();
  const cycles: EmulatorCycle[] = [];
  try {
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const endpoints: EmulatorEndpoints = emulator;
      const acksBefore = ledger.acks;
      // A kill after 400–1,200 acknowledged writes: several seconds of five busy streams.
      const killAfter = 400 + options.random.int(801);
      const stop = { stopped: false };
      const writers = Array.from({ length: streams }, (_, id) => stream(endpoints, ledger, id, cycle, stop));
      const deadline = Date.now() + 120_000;
      while (ledger.acks - acksBefore < killAfter && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      const exited = new Promise((r) => emulator.process.once("exit", r));
      emulator.process.kill("SIGKILL");
      await exited;
      stop.stopped = true;
      await Promise.all(writers);
      const restartStarted = Date.now();
      emulator = await startEmulatorProcess(logFile, [...args, ...samePorts]);
      const restartMs = Date.now() - restartStarted;
      watchChild(emulator.process);
      const missing = await verify(emulator, ledger);
      cycles.push({
        cycle,
        acknowledged: ledger.acks,
        missing: missing.length,
        missingExamples: missing.slice(0, 10),
        killedAfterAcks: ledger.acks - acksBefore,
        restartMs,
      });
      options.log(
        `emulator ${cycle}/${options.cycles}: killed after ${ledger.acks - acksBefore} acknowledged writes, ` +
          `restarted in ${(restartMs / 1000).toFixed(2)} s, ${missing.length} of ${ledger.acks} missing`,
      );
    }
  } finally {
    await emulator.stop();
  }
  return {
    name: "emulator",
    title: "Emulator `kill -9` during 5 streams of writes",
    available: true,
    seconds: Math.round((Date.now() - started) / 1000),
    rounds: [],
    cycles,
  };
}
