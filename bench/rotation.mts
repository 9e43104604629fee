// Suite "rotation": an application reading a bucket without pause, always with the pair the stack's
// last `up` gave it (re-read after each `up`, as a deployment pipeline hands it over), while the
// stack rotates the bucket's credentials 50 times (10 with --short), one `up` per rotation (a new
// `rotation` config value), with the real engine against the emulator:
//   two-slot  examples/rotation: a RotatingBucketCredential, the previous secret valid until the next rotation;
//   plain     examples/credential-lifecycle: one BucketCredential, `rotateWhenChanged` regenerating its only secret.
// The figures are counts, the plain credential the baseline: requests S3 refused (403) over all
// rotations, and those it served. One run of each (a count of refusals needs no median, and 50
// rotations take some 4 minutes per variant here): --rounds does not apply.
import path from "node:path";
import { startEmulatorProcess, type RunningEmulator } from "../scripts/lib/emulator-process.mts";
import { prepareExample } from "../scripts/lib/example-workspace.mts";
import { pulumiBinDir } from "../scripts/lib/paths.mts";
import type { ConfigEntry, RunResult } from "../scripts/lib/runner.mts";
import { putObject, S3Reader, type Pair } from "../scripts/lib/s3-reader.mts";
import { runStep } from "./engine.mts";
import { median, type RowResult, type Suite } from "./lib.mts";

interface Variant {
  readonly name: "two-slot" | "plain";
  readonly example: string;
  readonly project: string;
  /** The example's own config besides `rotation`. */
  readonly settings: Readonly<Record<string, string>>;
}

const variants: readonly Variant[] = [
  // Rotations seconds apart, each `up` succeeding and its pair taken at once: no wait is needed.
  { name: "two-slot", example: "rotation", project: "cloudplatform-rotation", settings: { minimumOverlap: "0m" } },
  { name: "plain", example: "credential-lifecycle", project: "cloudplatform-credential-lifecycle", settings: {} },
];

interface Measured {
  readonly variant: Variant["name"];
  readonly round: number;
  readonly rotations: number;
  readonly ok: number;
  /** Requests S3 refused (403), by its error code. */
  readonly refused: Readonly<Record<string, number>>;
  /** Requests that failed otherwise (not the credential's doing). */
  readonly failed: number;
  /** Wall time of each rotating `up` (the engine's operation alone). */
  readonly upSeconds: readonly number[];
}

function pairOf(up: RunResult): Pair {
  const value = (name: string) => String(up.outputs?.[name]?.value ?? "");
  return {
    endpoint: value("s3Endpoint"),
    region: value("region"),
    bucket: value("bucketName"),
    accessKeyId: value("accessKeyId"),
    secretAccessKey: value("secretAccessKey"),
  };
}

async function runVariant(
  variant: Variant,
  round: number,
  rotations: number,
  workDir: string,
  scratch: string,
  emulator: RunningEmulator,
  log: (message: string) => void,
): Promise<Measured> {
  const binDir = pulumiBinDir();
  const stackName = `${variant.name}-r${round}`;
  const base = { workDir, stateDir: path.join(scratch, "rotation", stackName), stackName };
  const config = (rotation: number): Record<string, ConfigEntry> => ({
    "cloudplatform:baseUrl": { value: emulator.baseUrl },
    "cloudplatform:s3Url": { value: emulator.s3Url },
    "cloudplatform:apiKey": { value: emulator.apiKey, secret: true },
    [`${variant.project}:rotation`]: { value: String(rotation) },
    ...Object.fromEntries(Object.entries(variant.settings).map(([k, value]) => [`${variant.project}:${k}`, { value }])),
  });
  const created = await runStep({ ...base, op: "up", config: config(1) }, binDir);
  await putObject(pairOf(created), "app.txt", "what the application reads");
  const reader = new S3Reader(pairOf(created), "app.txt", 10);
  const upSeconds: number[] = [];
  try {
    for (let rotation = 2; rotation <= rotations + 1; rotation++) {
      const rotated = await runStep({ ...base, op: "up", config: config(rotation) }, binDir);
      reader.use(pairOf(rotated));
      upSeconds.push(rotated.seconds ?? Number.NaN);
    }
  } finally {
    await reader.stop();
  }
  await runStep({ ...base, op: "destroy" }, binDir);
  const { ok, refused, failed } = reader.reading();
  log(`rotation ${variant.name}: ${refused.length} refused, ${ok} served in ${rotations} rotations`);
  const byCode: Record<string, number> = {};
  for (const r of refused) byCode[r.code] = (byCode[r.code] ?? 0) + 1;
  return { variant: variant.name, round, rotations, ok, refused: byCode, failed, upSeconds };
}

function rowsOf(raw: readonly Measured[], rotations: number): RowResult[] {
  const of = (name: Variant["name"]) => raw.filter((m) => m.variant === name);
  const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
  const figures = (name: Variant["name"]) => {
    const runs = of(name);
    const refused = sum(runs.flatMap((m) => Object.values(m.refused)));
    const served = sum(runs.map((m) => m.ok));
    const codes = [...new Set(runs.flatMap((m) => Object.keys(m.refused)))].join(", ");
    const up = median(runs.flatMap((m) => m.upSeconds));
    const failed = sum(runs.map((m) => m.failed));
    return { refused, served, codes, up, failed, runs: runs.length };
  };
  const two = figures("two-slot");
  const plain = figures("plain");
  const per = (f: { refused: number; runs: number }) => (f.refused / (rotations * Math.max(1, f.runs))).toFixed(1);
  return [
    {
      id: "rotation-refused",
      what: `S3 reads refused while a RotatingBucketCredential rotates ${rotations} times, the client on the pair of the last up`,
      now: `${two.refused} of ${two.refused + two.served}`,
      goal: "0",
      met: two.refused === 0 && two.served > 0,
      detail:
        `${two.served} reads served in ${two.runs} run(s); median rotating up ${two.up.toFixed(1)} s; ` +
        `${two.failed} failed otherwise${two.codes === "" ? "" : `; refused with ${two.codes}`}`,
    },
    {
      id: "rotation-refused-plain",
      what: `the same client on a BucketCredential rotated ${rotations} times with rotateWhenChanged`,
      now: `${plain.refused} of ${plain.refused + plain.served}`,
      goal: "(reference)",
      met: undefined,
      detail:
        `${per(plain)} refused per rotation (${plain.codes || "none"}); ${plain.served} served; median rotating up ` +
        `${plain.up.toFixed(1)} s; ${plain.failed} failed otherwise`,
    },
  ];
}

export const rotationSuite: Suite = {
  name: "rotation",
  rowIds: ["rotation-refused", "rotation-refused-plain"],
  async run(options) {
    const rotations = options.short ? 10 : 50;
    const workDirs = new Map<string, string>();
    for (const variant of variants) {
      workDirs.set(variant.name, (await prepareExample(variant.example, options.workDir)).workDir);
    }
    const emulator = await startEmulatorProcess(path.join(options.workDir, "rotation-emulator.log"), ["--quiet"]);
    const raw: Measured[] = [];
    try {
      for (const variant of variants) {
        const workDir = workDirs.get(variant.name) as string;
        raw.push(await runVariant(variant, 1, rotations, workDir, options.workDir, emulator, options.log));
      }
    } finally {
      await emulator.stop();
    }
    return { rows: rowsOf(raw, rotations), raw };
  },
};
