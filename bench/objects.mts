// Suite "objects": SyncedFolder and BucketObject (docs/objects.md) against the tools people use
// instead, to the same emulator (its own process, data on the same disk), in rotating order:
// - a folder of 10,000 files of 4 KiB and 20 of 10 MiB: the first `up` of examples/site over it
//   (the engine's operation alone, `seconds` of the runner) against `aws s3 sync` and `rclone sync`
//   (its default 4 transfers) of the same folder, each into a fresh bucket (the process's wall
//   time), and the state it leaves; a no-change `preview`
//   and `up` against hashing the folder alone (bench/hash-folder.js: every file's SHA-256, nothing
//   sent), with the object requests each sends; beside them, in the same rotation, what makes up
//   their time: the provider's scan of the folder alone (bench/scan-folder.js, with the stack's hash
//   cache), the `preview` with the hash cache off, and the engine's floor, a no-change `preview` and
//   `up` of the same program over the example's own folder of 4 files; then one edited file, then
//   one removed file, each followed by an `up`, with its requests;
// - a BucketObject of 1 GiB: the provider's upload path (bench/object-provider.js, built) against
//   `aws s3 cp`, and the peak RSS it adds over a Node process that loads the same modules and makes
//   the same S3 client, without sending anything.
// The emulator's per-bucket S3 counts (docs/api-contract.md §9) give the requests.
import { randomBytes } from "node:crypto";
import { mkdir, open, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { startEmulatorProcess, type RunningEmulator } from "../scripts/lib/emulator-process.mts";
import { prepareExample } from "../scripts/lib/example-workspace.mts";
import { pulumiBinDir, repoRoot } from "../scripts/lib/paths.mts";
import { Platform } from "../test/support/platform.mts";
import type { ConfigEntry } from "../scripts/lib/runner.mts";
import { runStep } from "./engine.mts";
import { measureProcess, median, ratio, rotation, type RowResult, type Suite } from "./lib.mts";

type Counts = Record<string, number>;

async function s3Counts(emulator: RunningEmulator, bucket: string): Promise<Counts> {
  const stats = await new Platform(emulator).stats();
  return { ...stats.s3Buckets[bucket] };
}

/** Object requests between two counts (listings left out), zero counts dropped. */
function objectRequests(before: Counts, after: Counts): Counts {
  const out: Counts = {};
  for (const [route, n] of Object.entries(after)) {
    const d = n - (before[route] ?? 0);
    if (d !== 0 && route.includes("{key}")) out[route] = d;
  }
  return out;
}

const total = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);

async function management(emulator: RunningEmulator, route: string, body?: unknown): Promise<Record<string, string>> {
  const res = await fetch(`${emulator.baseUrl}${route}`, {
    method: "POST",
    headers: { authorization: emulator.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
  if (!res.ok) throw new Error(`POST ${route} answered ${res.status}`);
  return (await res.json()) as Record<string, string>;
}

/** A bucket and a credential for the CLI baselines. */
async function bucketWithKey(emulator: RunningEmulator, name: string) {
  const bucket = await management(emulator, "/object-storage/buckets", { name, storage_class: "Standard" });
  const key = await management(emulator, `/object-storage/buckets/${bucket["id"]}/credentials`);
  return { bucket: name, accessKeyId: key["access_key_id"] ?? "", secretAccessKey: key["secret_access_key"] ?? "" };
}

async function writeRandom(file: string, bytes: number): Promise<void> {
  const handle = await open(file, "w");
  try {
    for (let left = bytes; left > 0; left -= 1024 * 1024) await handle.write(randomBytes(Math.min(left, 1024 * 1024)));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The folder: `small` files of 4 KiB in 100 folders, and `large` files of 10 MiB. */
async function makeFolder(root: string, small: number, large: number): Promise<void> {
  for (let i = 0; i < small; i++) {
    const dir = path.join(root, `d${i % 100}`);
    if (i < 100) await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `f${i}.txt`), randomBytes(2048).toString("hex"));
  }
  await mkdir(path.join(root, "large"), { recursive: true });
  for (let i = 0; i < large; i++) await writeRandom(path.join(root, "large", `blob${i}.bin`), 10 * 1024 * 1024);
}

/**
 * rclone's remote `objects:` for the emulator and a key pair, from the environment (no config
 * file). Without AWS_CA_BUNDLE, which rclone's S3 client cannot load for a plain-http endpoint; the
 * bucket exists, so rclone does not try to create it.
 */
function rcloneEnv(endpoint: string, key: { accessKeyId: string; secretAccessKey: string }): NodeJS.ProcessEnv {
  const { AWS_CA_BUNDLE: _bundle, ...env } = process.env;
  return {
    ...env,
    RCLONE_CONFIG: "/dev/null",
    RCLONE_CONFIG_OBJECTS_TYPE: "s3",
    RCLONE_CONFIG_OBJECTS_PROVIDER: "Other",
    RCLONE_CONFIG_OBJECTS_ENDPOINT: endpoint,
    RCLONE_CONFIG_OBJECTS_ACCESS_KEY_ID: key.accessKeyId,
    RCLONE_CONFIG_OBJECTS_SECRET_ACCESS_KEY: key.secretAccessKey,
    RCLONE_CONFIG_OBJECTS_REGION: "us-east-1",
    RCLONE_CONFIG_OBJECTS_FORCE_PATH_STYLE: "true",
    RCLONE_CONFIG_OBJECTS_NO_CHECK_BUCKET: "true",
  };
}

function awsEnv(key: { accessKeyId: string; secretAccessKey: string }): void {
  process.env["AWS_ACCESS_KEY_ID"] = key.accessKeyId;
  process.env["AWS_SECRET_ACCESS_KEY"] = key.secretAccessKey;
  process.env["AWS_DEFAULT_REGION"] = "us-east-1";
  process.env["AWS_EC2_METADATA_DISABLED"] = "true";
}

interface FolderRound {
  readonly round: number;
  readonly upSeconds: number;
  readonly syncSeconds: number;
  readonly rcloneSeconds: number;
  readonly previewSeconds: number;
  readonly sameUpSeconds: number;
  readonly hashSeconds: number;
  /** The provider's scan alone, with the stack's hash cache: how many files it read. */
  readonly scanSeconds: number;
  readonly scanHashed: number;
  readonly noCachePreviewSeconds: number;
  /** The same program over a folder of 4 files. */
  readonly floorPreviewSeconds: number;
  readonly floorUpSeconds: number;
  /** `pulumi stack export` after the first up: all of it, and the SyncedFolder's resource alone. */
  readonly stateBytes: number;
  readonly folderStateBytes: number;
  readonly noChangeRequests: Counts;
  readonly editRequests: Counts;
  readonly removeRequests: Counts;
}

interface ObjectRound {
  readonly round: number;
  readonly providerSeconds: number;
  readonly cliSeconds: number;
  readonly providerRssMiB: number;
  readonly idleRssMiB: number;
}

export const objectsSuite: Suite = {
  name: "objects",
  rowIds: [
    "folder-first-up",
    "folder-nochange-preview",
    "folder-nochange-up",
    "folder-floor",
    "folder-state-bytes",
    "folder-edit",
    "folder-remove",
    "object-1024",
  ],
  async run(options) {
    const small = options.short ? 1000 : 10_000;
    const large = options.short ? 2 : 20;
    const binDir = pulumiBinDir();
    const emulator = await startEmulatorProcess(path.join(options.workDir, "objects-emulator.log"), [
      "--data-dir",
      path.join(options.workDir, "objects-data"),
    ]);
    const folder = path.join(options.workDir, "objects-folder");
    const folderRounds: FolderRound[] = [];
    const objectRounds: ObjectRound[] = [];
    try {
      options.log(`objects: writing ${small} files of 4 KiB and ${large} of 10 MiB`);
      await makeFolder(folder, small, large);
      const site = await prepareExample("site", options.workDir);
      const settings: Record<string, ConfigEntry> = {
        "cloudplatform:baseUrl": { value: emulator.baseUrl },
        "cloudplatform:s3Url": { value: emulator.s3Url },
        "cloudplatform:apiKey": { value: emulator.apiKey, secret: true },
      };
      const connection = { ...settings, "cloudplatform-site:sitePath": { value: folder } };
      for (let round = 1; round <= options.rounds; round++) {
        const base = {
          workDir: site.workDir,
          stateDir: path.join(options.workDir, `objects-state-${round}`),
          stackName: `objects-${round}`,
          config: connection,
        };
        let upSeconds = 0;
        let syncSeconds = 0;
        let rcloneSeconds = 0;
        let bucket = "";
        for (const who of rotation(["provider", "aws", "rclone"] as const, round)) {
          if (who === "provider") {
            const up = await runStep({ ...base, op: "up" }, binDir);
            upSeconds = up.seconds ?? Number.NaN;
            bucket = String(up.outputs?.["bucketName"]?.value);
          } else if (who === "aws") {
            const key = await bucketWithKey(emulator, `cli-sync-${round}`);
            awsEnv(key);
            const used = await measureProcess("aws", [
              "--endpoint-url",
              emulator.s3Url,
              "--only-show-errors",
              "s3",
              "sync",
              folder,
              `s3://${key.bucket}/site/`,
            ]);
            syncSeconds = used.seconds;
          } else {
            const key = await bucketWithKey(emulator, `cli-rclone-${round}`);
            const used = await measureProcess(
              "rclone",
              ["sync", folder, `objects:${key.bucket}/site/`],
              undefined,
              rcloneEnv(emulator.s3Url, key),
            );
            rcloneSeconds = used.seconds;
          }
        }
        const exported = (await runStep({ ...base, op: "export" }, binDir)).exported ?? "";
        const resources = (JSON.parse(exported) as { deployment: { resources?: { type: string }[] } }).deployment
          .resources;
        const folderResource = resources?.find((r) => r.type.endsWith(":SyncedFolder"));
        const floor = {
          ...base,
          stateDir: path.join(options.workDir, `objects-floor-state-${round}`),
          stackName: `objects-floor-${round}`,
          config: settings,
        };
        await runStep({ ...floor, op: "up" }, binDir);
        const cacheDir = path.join(base.stateDir, "home", "cloudplatform", "hashes");
        const times: Record<string, number> = {};
        let scanHashed = Number.NaN;
        const before = await s3Counts(emulator, bucket);
        const steps = ["preview", "up", "hash", "scan", "preview-nocache", "floor-preview", "floor-up"] as const;
        for (const step of rotation(steps, round)) {
          if (step === "hash") {
            times[step] = (
              await measureProcess(process.execPath, [path.join(repoRoot, "bench", "hash-folder.js"), folder])
            ).seconds;
          } else if (step === "scan") {
            const used = await measureProcess(process.execPath, [
              path.join(repoRoot, "bench", "scan-folder.js"),
              folder,
              cacheDir,
            ]);
            times[step] = used.seconds;
            scanHashed = (JSON.parse(used.stdout) as { hashed: number }).hashed;
          } else if (step === "preview-nocache") {
            const off = { CLOUDPLATFORM_HASH_CACHE: "off" };
            times[step] = (await runStep({ ...base, op: "preview" }, binDir, off)).seconds ?? Number.NaN;
          } else if (step === "floor-preview" || step === "floor-up") {
            const op = step === "floor-up" ? "up" : "preview";
            times[step] = (await runStep({ ...floor, op }, binDir)).seconds ?? Number.NaN;
          } else {
            times[step] = (await runStep({ ...base, op: step }, binDir)).seconds ?? Number.NaN;
          }
        }
        const noChangeRequests = objectRequests(before, await s3Counts(emulator, bucket));
        await runStep({ ...floor, op: "destroy" }, binDir);
        const edited = path.join(folder, "d7", "f7.txt");
        await writeFile(edited, randomBytes(2048).toString("hex"));
        const beforeEdit = await s3Counts(emulator, bucket);
        await runStep({ ...base, op: "up" }, binDir);
        const editRequests = objectRequests(beforeEdit, await s3Counts(emulator, bucket));
        const removed = path.join(folder, "d8", "f8.txt");
        await rm(removed);
        const beforeRemove = await s3Counts(emulator, bucket);
        await runStep({ ...base, op: "up" }, binDir);
        const removeRequests = objectRequests(beforeRemove, await s3Counts(emulator, bucket));
        await writeFile(removed, randomBytes(2048).toString("hex"));
        await runStep({ ...base, op: "destroy" }, binDir);
        const r: FolderRound = {
          round,
          upSeconds,
          syncSeconds,
          rcloneSeconds,
          previewSeconds: times["preview"] ?? Number.NaN,
          sameUpSeconds: times["up"] ?? Number.NaN,
          hashSeconds: times["hash"] ?? Number.NaN,
          scanSeconds: times["scan"] ?? Number.NaN,
          scanHashed,
          noCachePreviewSeconds: times["preview-nocache"] ?? Number.NaN,
          floorPreviewSeconds: times["floor-preview"] ?? Number.NaN,
          floorUpSeconds: times["floor-up"] ?? Number.NaN,
          stateBytes: Buffer.byteLength(exported),
          folderStateBytes: Buffer.byteLength(JSON.stringify(folderResource ?? {})),
          noChangeRequests,
          editRequests,
          removeRequests,
        };
        options.log(`objects: folder round ${round}: ${JSON.stringify(r)}`);
        folderRounds.push(r);
      }

      const file = path.join(options.workDir, "objects-1g.bin");
      options.log("objects: writing 1 GiB");
      await writeRandom(file, 1024 * 1024 * 1024);
      const key = await bucketWithKey(emulator, "object-bench");
      awsEnv(key);
      // The idle baseline: Node with the S3 SDK loaded, as the provider loads it (provider/s3-client.ts).
      const s3ClientModule = path.join(repoRoot, "bin/provider/s3-client.js");
      for (let round = 1; round <= options.rounds; round++) {
        let providerSeconds = 0;
        let cliSeconds = 0;
        let providerRssMiB = 0;
        let idleRssMiB = 0;
        for (const who of rotation(["provider", "aws", "idle"] as const, round)) {
          if (who === "provider") {
            const used = await measureProcess(process.execPath, [
              path.join(repoRoot, "bench", "object-provider.js"),
              emulator.s3Url,
              key.bucket,
              key.accessKeyId,
              key.secretAccessKey,
              `provider-${round}`,
              file,
            ]);
            providerSeconds = Number(used.stdout.trim());
            providerRssMiB = used.maxRssMiB;
          } else if (who === "aws") {
            cliSeconds = (
              await measureProcess("aws", [
                "--endpoint-url",
                emulator.s3Url,
                "--only-show-errors",
                "s3",
                "cp",
                file,
                `s3://${key.bucket}/cli-${round}`,
              ])
            ).seconds;
          } else {
            idleRssMiB = (
              await measureProcess(process.execPath, ["-e", `require(${JSON.stringify(s3ClientModule)}).s3Sdk()`])
            ).maxRssMiB;
          }
        }
        const r = { round, providerSeconds, cliSeconds, providerRssMiB, idleRssMiB };
        options.log(`objects: 1 GiB round ${round}: ${JSON.stringify(r)}`);
        objectRounds.push(r);
      }
    } finally {
      await emulator.stop();
    }
    return { rows: rows(folderRounds, objectRounds, small, large), raw: { folderRounds, objectRounds } };
  },
};

const pairMedian = (rounds: readonly FolderRound[], f: (r: FolderRound) => number) => median(rounds.map(f));
const seconds = (s: number) => `${s.toFixed(2)} s`;
const counts = (c: readonly Counts[]) => [...new Set(c.map((x) => JSON.stringify(x)))].join(" / ");

function rows(
  folder: readonly FolderRound[],
  object: readonly ObjectRound[],
  small: number,
  large: number,
): RowResult[] {
  const what = `${small} files of 4 KiB + ${large} of 10 MiB`;
  const firstUp = pairMedian(folder, (r) => r.upSeconds / r.syncSeconds);
  const firstUpRclone = pairMedian(folder, (r) => r.upSeconds / r.rcloneSeconds);
  const preview = pairMedian(folder, (r) => r.previewSeconds / r.hashSeconds);
  const sameUp = pairMedian(folder, (r) => r.sameUpSeconds / r.hashSeconds);
  const floorPreview = pairMedian(folder, (r) => r.floorPreviewSeconds / r.hashSeconds);
  const floorUp = pairMedian(folder, (r) => r.floorUpSeconds / r.hashSeconds);
  const scan = pairMedian(folder, (r) => r.scanSeconds / r.hashSeconds);
  const noCache = pairMedian(folder, (r) => r.noCachePreviewSeconds / r.hashSeconds);
  /** A no-change operation's time over its floor's, in the same round. */
  const overFloor = pairMedian(folder, (r) => r.previewSeconds / r.floorPreviewSeconds);
  const editOk = folder.every((r) => JSON.stringify(r.editRequests) === JSON.stringify({ "PUT /{bucket}/{key}": 1 }));
  const removeOk = folder.every(
    (r) => JSON.stringify(r.removeRequests) === JSON.stringify({ "DELETE /{bucket}/{key}": 1 }),
  );
  const noChange = folder.every((r) => total(r.noChangeRequests) === 0);
  const throughput = median(object.map((r) => r.cliSeconds / r.providerSeconds));
  const added = median(object.map((r) => r.providerRssMiB - r.idleRssMiB));
  return [
    {
      id: "folder-first-up",
      what: `SyncedFolder first \`up\` (${what}) / \`aws s3 sync\``,
      now: ratio(firstUp),
      goal: "≤ 1.20×",
      met: firstUp <= 1.2,
      detail:
        `${seconds(pairMedian(folder, (r) => r.upSeconds))} vs ${seconds(pairMedian(folder, (r) => r.syncSeconds))}; ` +
        `/ \`rclone sync\` ${ratio(firstUpRclone)} (${seconds(pairMedian(folder, (r) => r.rcloneSeconds))})`,
    },
    {
      id: "folder-nochange-preview",
      what: "no-change `preview` / hashing the folder alone",
      now: ratio(preview),
      goal: "≤ 1.20×, 0 object requests",
      met: preview <= 1.2 && noChange,
      detail:
        `${seconds(pairMedian(folder, (r) => r.previewSeconds))} vs ${seconds(pairMedian(folder, (r) => r.hashSeconds))}; ` +
        `${ratio(overFloor)} the floor's; hash cache off: ${ratio(noCache)}; the provider's scan alone: ${ratio(scan)} ` +
        `(${counts(folder.map((r) => ({ read: r.scanHashed })))}); object requests of preview and up: ` +
        counts(folder.map((r) => r.noChangeRequests)),
    },
    {
      id: "folder-nochange-up",
      what: "no-change `up` / hashing the folder alone",
      now: ratio(sameUp),
      goal: "≤ 1.20×, 0 object requests",
      met: sameUp <= 1.2 && noChange,
      detail: `${seconds(pairMedian(folder, (r) => r.sameUpSeconds))} vs ${seconds(pairMedian(folder, (r) => r.hashSeconds))}`,
    },
    {
      id: "folder-floor",
      what: "the engine's floor: no-change `preview` and `up` of the same program over 4 files / hashing",
      now: `${ratio(floorPreview)}, ${ratio(floorUp)}`,
      goal: "—",
      met: undefined,
      detail: `${seconds(pairMedian(folder, (r) => r.floorPreviewSeconds))} and ${seconds(pairMedian(folder, (r) => r.floorUpSeconds))} vs ${seconds(pairMedian(folder, (r) => r.hashSeconds))}`,
    },
    {
      id: "folder-state-bytes",
      what: "`pulumi stack export` bytes after the first `up`: the stack, and the SyncedFolder alone",
      now: `${(median(folder.map((r) => r.stateBytes)) / 1024).toFixed(0)} KiB`,
      goal: "—",
      met: undefined,
      detail: `SyncedFolder ${(median(folder.map((r) => r.folderStateBytes)) / 1024).toFixed(0)} KiB`,
    },
    {
      id: "folder-edit",
      what: "`up` after one edited file: its object requests",
      now: counts(folder.map((r) => r.editRequests)),
      goal: "exactly 1 PUT",
      met: editOk,
      detail: `every round`,
    },
    {
      id: "folder-remove",
      what: "`up` after one removed file: its object requests",
      now: counts(folder.map((r) => r.removeRequests)),
      goal: "exactly 1 DELETE",
      met: removeOk,
      detail: `every round`,
    },
    {
      id: "object-1024",
      what: "BucketObject of 1 GiB: throughput / `aws s3 cp`, memory added",
      now: `${ratio(throughput)}, +${added.toFixed(0)} MiB`,
      goal: "≥ 0.90×, flat memory (≤ 64 MiB)",
      met: throughput >= 0.9 && added <= 64,
      detail: `${seconds(median(object.map((r) => r.providerSeconds)))} vs ${seconds(median(object.map((r) => r.cliSeconds)))}; peak RSS ${median(object.map((r) => r.providerRssMiB)).toFixed(0)} MiB vs idle ${median(object.map((r) => r.idleRssMiB)).toFixed(0)} MiB`,
    },
  ];
}
