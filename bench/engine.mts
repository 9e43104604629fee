// Suite "engine": the real Pulumi engine (Automation API inline programs, scripts/lib/runner.mts, one
// child process per operation as the e2e tests run it) against one emulator. Each round deploys, in
// a rotating order, on fresh stacks:
//   floor    N dynamic resources whose provider does nothing (bench/programs/floor): the engine's floor;
//   buckets  N/2 buckets and N/2 credentials (examples/soak);
//   zones    N DNS zones (examples/soak);
// and runs up, preview, up again (no change), refresh and destroy (zones: up and destroy). Times are
// the engine's operation alone; API calls are the emulator's request counters (GET /_emulator/stats)
// around each operation; state bytes come from `pulumi stack export`, divided by N; the provider's
// memory is the peak RSS of the provider process the engine starts (sampled from /proc).
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { startEmulatorProcess, type RunningEmulator } from "../scripts/lib/emulator-process.mts";
import { prepareExample } from "../scripts/lib/example-workspace.mts";
import { pulumiBinDir, repoRoot } from "../scripts/lib/paths.mts";
import type { ConfigEntry, Operation, RunRequest, RunResult } from "../scripts/lib/runner.mts";
import { median, ratio, rotation, type RowResult, type Suite, type SuiteOptions } from "./lib.mts";
import { Platform } from "../test/support/platform.mts";

/**
 * A program the suite deploys. Adding a contender (another host, another resource) is one entry
 * here and, if it is to be printed, one row in `rowsFor`.
 */
interface Variant {
  readonly name: string;
  /** The example (or bench program) deployed, and where it lives. */
  readonly program: { readonly name: string; readonly root: string };
  /** Stack config for N resources in round `round`. */
  config(n: number, round: number, emulator: RunningEmulator): Record<string, ConfigEntry>;
  /** The operations run after `up`, in order (each timed, API calls counted). */
  readonly then: readonly Operation[];
  /** The largest N it runs at (examples/soak takes at most 500 zones); larger Ns skip it. */
  readonly maxN?: number;
}

export const connection = (emulator: RunningEmulator): Record<string, ConfigEntry> => ({
  "cloudplatform:baseUrl": { value: emulator.baseUrl },
  "cloudplatform:s3Url": { value: emulator.s3Url },
  "cloudplatform:apiKey": { value: emulator.apiKey, secret: true },
});

export const soak = (buckets: number, zones: number, prefix: string): Record<string, ConfigEntry> => ({
  "cloudplatform-soak:buckets": { value: String(buckets) },
  "cloudplatform-soak:credentialsPerBucket": { value: "1" },
  "cloudplatform-soak:zones": { value: String(zones) },
  "cloudplatform-soak:namePrefix": { value: prefix },
});

const fullCycle: readonly Operation[] = ["preview", "up", "refresh", "destroy"];

/**
 * The floor's stack config: its own keys, and those of the buckets' stack, which it does not read.
 * The engine stores the whole stack config in the default provider's state and rewrites it with
 * every step, so each side carries the same: a ratio then tells only what the resources cost.
 */
const floorConfig = (n: number, round: number, emulator: RunningEmulator, pairs: boolean) => ({
  ...connection(emulator),
  ...soak(n / 2, 0, `bench-b${n}-r${round}`),
  "cloudplatform-bench-floor:resources": { value: String(n) },
  ...(pairs ? { "cloudplatform-bench-floor:pairs": { value: "true" } } : {}),
});

const variants: readonly Variant[] = [
  {
    name: "floor",
    program: { name: "floor", root: path.join(repoRoot, "bench", "programs") },
    config: (n, round, emulator) => floorConfig(n, round, emulator, false),
    then: fullCycle,
  },
  {
    // The floor in the buckets' dependency shape (bench/programs/floor): a reference in the details,
    // left out above 500, where its `up` and `destroy` alone take minutes on a small machine.
    name: "floor-pairs",
    program: { name: "floor", root: path.join(repoRoot, "bench", "programs") },
    config: (n, round, emulator) => floorConfig(n, round, emulator, true),
    then: ["destroy"],
    maxN: 500,
  },
  {
    name: "buckets",
    program: { name: "soak", root: path.join(repoRoot, "examples") },
    config: (n, round, emulator) => ({ ...connection(emulator), ...soak(n / 2, 0, `bench-b${n}-r${round}`) }),
    then: fullCycle,
  },
  {
    name: "zones",
    program: { name: "soak", root: path.join(repoRoot, "examples") },
    config: (n, round, emulator) => ({ ...connection(emulator), ...soak(0, n, `bench-z${n}-r${round}`) }),
    then: ["destroy"],
    maxN: 500,
  },
];

/** One operation of one variant in one round. `step` tells the first `up` from the second. */
interface Measured {
  readonly n: number;
  readonly round: number;
  readonly variant: string;
  readonly step: "up" | "preview" | "up-same" | "refresh" | "destroy";
  readonly seconds: number;
  readonly apiCalls: number;
  /** Of apiCalls, the lists of buckets. */
  readonly bucketLists: number;
  readonly changes: Record<string, number>;
  /** After the first up: `pulumi stack export` bytes, and the resources it holds. */
  readonly stateBytes?: number;
  readonly stateResources?: number;
  /** Peak RSS of the provider process during this operation (MiB; NaN when none was seen). */
  readonly providerPeakMiB: number;
}

/** The processes that host a provider: the dynamic provider's host, or the plugin. */
const providerCommand = /dynamic-provider|pulumi-resource-cloudplatform/;

/**
 * The highest peak RSS (VmHWM) of any provider process descended from this one, sampled every
 * half second while `work` runs. VmHWM only grows, so the last sample before the process exits is
 * its peak but for the last half second. Only this process's descendants: the machine is shared.
 */
async function providerPeak<T>(work: () => Promise<T>): Promise<{ value: T; peakMiB: number }> {
  let peakKiB = Number.NaN;
  const sample = async (): Promise<void> => {
    const parents = new Map<number, number>();
    const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number);
    await Promise.all(
      pids.map(async (pid) => {
        const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
        // The command name (in parentheses) may hold spaces: the parent pid is the 2nd field after it.
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (Number.isInteger(ppid)) parents.set(pid, ppid);
      }),
    );
    const descends = (pid: number): boolean => {
      for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
      return false;
    };
    for (const pid of pids.filter(descends)) {
      const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      if (!providerCommand.test(command)) continue;
      const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
      const hwm = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
      if (Number.isFinite(hwm)) peakKiB = Number.isNaN(peakKiB) ? hwm : Math.max(peakKiB, hwm);
    }
  };
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  try {
    return { value: await work(), peakMiB: peakKiB / 1024 };
  } finally {
    sampling = false;
    await loop;
  }
}

/**
 * Runs one operation in a child process (the Automation API hosts the program in its caller), with
 * none of this process's `CLOUDPLATFORM_*` variables: only `extraEnv`'s.
 */
export function runStep(
  request: RunRequest,
  binDir: string,
  extraEnv: Record<string, string> = {},
): Promise<RunResult> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("CLOUDPLATFORM_")),
  ) as NodeJS.ProcessEnv;
  Object.assign(env, extraEnv);
  env.CLOUDPLATFORM_PULUMI_BIN_DIR = binDir;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      // The programs link a shared install (node_modules is a symlink). The engine stores each
      // resource's stack frames by file path: without --preserve-symlinks, paths through the link's
      // target are much longer than a real install's `node_modules/...`, and the state-bytes row
      // would count them. A flag, not NODE_PRESERVE_SYMLINKS: the provider host the engine starts
      // must not inherit it, or it loads @pulumi/pulumi twice (once by its real path, once through
      // the link), which no real install does.
      ["--preserve-symlinks", path.join(repoRoot, "scripts", "lib", "runner-cli.mts"), JSON.stringify(request)],
      { cwd: repoRoot, env, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`runner failed: ${error.message}\n${stderr.slice(-4000)}`));
        const answer = JSON.parse(stdout.trimEnd().split("\n").pop() ?? "{}") as RunResult;
        if (!answer.ok) return reject(new Error(`${request.op} of ${request.stackName} failed: ${answer.error}`));
        resolve(answer);
      },
    );
  });
}

/** The route of the bucket list, which a refresh reads once per couple of seconds (provider/resources/shared-list.ts). */
const bucketListRoute = "GET /object-storage/buckets";

/** The management and transcription requests the emulator has served so far, and how many listed the buckets. */
async function apiRequests(emulator: RunningEmulator): Promise<{ calls: number; bucketLists: number }> {
  const stats = await new Platform(emulator).stats();
  return {
    calls: stats.areas.management + stats.areas.transcription,
    bucketLists: stats.requests[bucketListRoute] ?? 0,
  };
}

async function runVariant(
  variant: Variant,
  n: number,
  round: number,
  workDirs: ReadonlyMap<string, string>,
  emulator: RunningEmulator,
  options: SuiteOptions & { binDir: string },
): Promise<Measured[]> {
  const stackName = `${variant.name}-${n}-r${round}`;
  const base = {
    workDir: workDirs.get(variant.program.name)!,
    stateDir: path.join(options.workDir, "engine", stackName),
    stackName,
  };
  const measured: Measured[] = [];
  const steps: Array<Measured["step"]> = ["up", ...variant.then.map((op) => (op === "up" ? "up-same" : op))] as Array<
    Measured["step"]
  >;
  for (const step of steps) {
    const op: Operation = step === "up-same" ? "up" : step;
    const before = await apiRequests(emulator);
    const config = step === "up" ? variant.config(n, round, emulator) : undefined;
    const { value: result, peakMiB } = await providerPeak(() =>
      runStep({ ...base, op, ...(config ? { config } : {}) }, options.binDir),
    );
    const after = await apiRequests(emulator);
    const apiCalls = after.calls - before.calls;
    const bucketLists = after.bucketLists - before.bucketLists;
    let state: Pick<Measured, "stateBytes" | "stateResources"> = {};
    if (step === "up") {
      const exported = (await runStep({ ...base, op: "export" }, options.binDir)).exported ?? "";
      const resources = (JSON.parse(exported) as { deployment: { resources?: unknown[] } }).deployment.resources;
      state = { stateBytes: Buffer.byteLength(exported), stateResources: resources?.length ?? 0 };
    }
    measured.push({
      n,
      round,
      variant: variant.name,
      step,
      seconds: result.seconds ?? Number.NaN,
      apiCalls,
      bucketLists,
      changes: result.changes ?? {},
      providerPeakMiB: peakMiB,
      ...state,
    });
  }
  const summary = measured
    .map(
      (m) =>
        `${m.step} ${m.seconds.toFixed(1)} s/${m.apiCalls} calls/${m.providerPeakMiB.toFixed(0)} MiB` +
        (m.stateBytes === undefined ? "" : `/state ${m.stateBytes} B`),
    )
    .join(", ");
  options.log(`engine N=${n} round ${round}/${options.rounds} ${variant.name}: ${summary}`);
  return measured;
}

const stepNames: Record<Measured["step"], string> = {
  up: "`up` creating",
  preview: "`preview`, no change",
  "up-same": "`up`, no change",
  refresh: "`refresh`",
  destroy: "`destroy`",
};

function rowsFor(n: number, raw: readonly Measured[]): RowResult[] {
  const mine = raw.filter((m) => m.n === n);
  const pick = (variant: string, step: Measured["step"]) =>
    mine.filter((m) => m.variant === variant && m.step === step);
  const seconds = (variant: string, step: Measured["step"]) => median(pick(variant, step).map((m) => m.seconds));
  const calls = (variant: string, step: Measured["step"]) => median(pick(variant, step).map((m) => m.apiCalls));
  // Rounds are paired: a busier machine in one round slows all its runs alike.
  const paired = (variant: string, step: Measured["step"], base = "floor") =>
    median(
      pick(variant, step).map((m) => m.seconds / (pick(base, step).find((f) => f.round === m.round)?.seconds ?? NaN)),
    );
  // Buckets and credentials come in pairs, the second created after and deleted before the first:
  // the floor in that shape tells what the shape costs the engine from what the provider does.
  const inPairs = (step: "up" | "destroy") =>
    pick("floor-pairs", step).length === 0
      ? ""
      : `; the floor in pairs (that dependency shape) ${seconds("floor-pairs", step).toFixed(2)} s, ` +
        `same-round ratio to it ${ratio(paired("buckets", step, "floor-pairs"))}`;
  const timeRow = (id: string, variant: string, step: Measured["step"], what: string, more = ""): RowResult => {
    const value = seconds(variant, step) / seconds("floor", step);
    return {
      id,
      n,
      what: `${what} / floor`,
      now: ratio(value),
      goal: "≤ 1.10×",
      met: value <= 1.1,
      detail:
        `${seconds(variant, step).toFixed(2)} s vs floor ${seconds("floor", step).toFixed(2)} s; ` +
        `same-round ratio ${ratio(paired(variant, step))}${more}`,
    };
  };
  const perResource = (variant: string) => median(pick(variant, "up").map((m) => (m.stateBytes ?? NaN) / n));
  const zones = pick("zones", "up").length > 0;
  // The provider process's peak RSS over an operation, median of the rounds.
  const peak = (variant: string, step: Measured["step"]) => median(pick(variant, step).map((m) => m.providerPeakMiB));
  const mib = (value: number) => `${value.toFixed(0)} MiB`;
  const created = calls("buckets", "up");
  const refreshed = calls("buckets", "refresh");
  const unchanged = calls("buckets", "preview") + calls("buckets", "up-same");
  return [
    timeRow("up-buckets", "buckets", "up", `\`up\` creating ${n / 2} buckets + ${n / 2} credentials`, inPairs("up")),
    ...(zones ? [timeRow("up-zones", "zones", "up", `\`up\` creating ${n} zones`)] : []),
    ...(["preview", "up-same", "refresh", "destroy"] as const).map((step) =>
      timeRow(
        step,
        "buckets",
        step,
        `${stepNames[step]} (${n / 2} buckets + ${n / 2} credentials)`,
        step === "destroy" ? inPairs("destroy") : "",
      ),
    ),
    {
      id: "api-create",
      n,
      what: `API calls creating ${n / 2} buckets + ${n / 2} credentials`,
      now: `${created} calls`,
      goal: `${n} (one per resource)`,
      met: created <= n,
      detail: zones ? `zones: ${calls("zones", "up")} calls for ${n} zones` : `no zones at this N`,
    },
    {
      id: "api-refresh",
      n,
      what: `API calls refreshing them`,
      now: `${refreshed} calls`,
      goal: `${1 + n / 2} (one list per parent collection)`,
      met: refreshed <= 1 + n / 2,
      detail:
        `of which ${median(pick("buckets", "refresh").map((m) => m.bucketLists))} list(s) of the buckets; ` +
        `destroy: ${calls("buckets", "destroy")} calls`,
    },
    {
      id: "api-nochange",
      n,
      what: "API calls of a `preview` and a second `up` with no change",
      now: `${unchanged} calls`,
      goal: "0",
      met: unchanged === 0,
      detail: `preview ${calls("buckets", "preview")}, up ${calls("buckets", "up-same")}`,
    },
    {
      id: "state-bytes",
      n,
      what: "state per resource (`pulumi stack export` / N)",
      now: `${(perResource("buckets") / 1000).toFixed(1)} KB vs floor ${(perResource("floor") / 1000).toFixed(1)} KB`,
      goal: "≤ the floor's",
      met: perResource("buckets") <= perResource("floor"),
      detail: zones ? `zones ${(perResource("zones") / 1000).toFixed(1)} KB` : `no zones at this N`,
    },
    {
      id: "provider-memory",
      n,
      what: "peak RSS of the provider process, creating `up` (floor: its no-op provider in the same host)",
      now: `${mib(peak("buckets", "up"))} vs floor ${mib(peak("floor", "up"))}`,
      goal: "— (how it grows with N)",
      met: undefined,
      detail: (["preview", "refresh", "destroy"] as const)
        .map((step) => `${step} ${mib(peak("buckets", step))} vs ${mib(peak("floor", step))}`)
        .join("; "),
    },
  ];
}

export const engineSuite: Suite = {
  name: "engine",
  rowIds: [
    "up-buckets",
    "up-zones",
    "preview",
    "up-same",
    "refresh",
    "destroy",
    "api-create",
    "api-refresh",
    "api-nochange",
    "state-bytes",
    "provider-memory",
  ],
  async run(options) {
    const binDir = pulumiBinDir();
    const workDirs = new Map<string, string>();
    for (const variant of variants) {
      if (workDirs.has(variant.program.name)) continue;
      const prepared = await prepareExample(variant.program.name, options.workDir, variant.program.root);
      workDirs.set(variant.program.name, prepared.workDir);
    }
    const emulator = await startEmulatorProcess(path.join(options.workDir, "engine-emulator.log"), [
      "--data-dir",
      path.join(options.workDir, "engine-data"),
    ]);
    const raw: Measured[] = [];
    try {
      for (const n of options.sizes) {
        for (let round = 1; round <= options.rounds; round++) {
          for (const variant of rotation(variants, round).filter((v) => n <= (v.maxN ?? n))) {
            raw.push(...(await runVariant(variant, n, round, workDirs, emulator, { ...options, binDir })));
          }
        }
      }
    } finally {
      await emulator.stop();
    }
    return { rows: options.sizes.flatMap((n) => rowsFor(n, raw)), raw };
  },
};
