// Benchmark of an `up` through the executable provider (the plugin installed from its tarball)
// against the engine's floor and the dynamic SDK, in the same run: `npm run bench:plugin [-- <n> <rounds>]`
// (defaults: 100 resources, 5 rounds). Each round creates, in an order that rotates:
//   floor    n no-op dynamic resources (a create that does nothing: what the engine itself costs);
//   dynamic  n/2 buckets and n/2 credentials of the TypeScript SDK (dynamic resources);
//   plugin   n/2 buckets and n/2 credentials by type token, served by the installed plugin (what a
//            program in any language does through a generated SDK);
// then destroys them (not timed). Every `up` runs in a fresh process against one emulator. Printed:
// medians of the `up` wall times, their ratios to the floor (of the medians, and the median of each
// round's ratio), the state bytes per resource (`pulumi stack export`, stack and provider included,
// divided by n), and the raw rounds (bench/results/plugin-<time>.json). Only loopback traffic.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startEmulatorProcess } from "../scripts/lib/emulator-process.mts";
import { exampleDependencies } from "../scripts/lib/example-workspace.mts";
import { pulumiBinDir, repoRoot } from "../scripts/lib/paths.mts";
import { engineEnv } from "../scripts/lib/runner.mts";
import type { StepAnswer, StepRequest, Variant } from "./plugin-run.mts";

const run = promisify(execFile);
const log = (message: string): void => void process.stderr.write(`[bench:plugin] ${message}\n`);

const n = Number(process.argv[2] ?? 100);
const rounds = Number(process.argv[3] ?? 5);
if (!Number.isInteger(n) || n < 2 || n % 2 !== 0 || !Number.isInteger(rounds) || rounds < 1) {
  throw new Error("usage: npm run bench:plugin [-- <even number of resources> <rounds>]");
}
const variants: readonly Variant[] = ["floor", "dynamic", "plugin"];
const version = (await import("../package.json", { with: { type: "json" } })).default.version;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function step(request: StepRequest): Promise<StepAnswer> {
  const { stdout } = await run(
    process.execPath,
    [path.join(repoRoot, "bench", "plugin-run.mts"), JSON.stringify(request)],
    {
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as StepAnswer;
  if (!answer.ok) throw new Error(`${request.variant} ${request.op} failed: ${answer.error}`);
  return answer;
}

const binDir = pulumiBinDir();
const work = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-bench-plugin-"));
const emulator = await startEmulatorProcess(path.join(work, "emulator.log"));
try {
  log("building and packing the provider (npm pack for the dynamic SDK, npm run plugin:pack for the plugin)");
  await run("npm", ["run", "--silent", "build"], { cwd: repoRoot });
  const [nodeModules, packed] = await Promise.all([
    exampleDependencies(),
    run("npm", ["run", "--silent", "plugin:pack", "--", "--out-dir", work], { cwd: repoRoot, maxBuffer: 16 << 20 }),
  ]);
  // The packer prints the tarball's path (named for this machine's platform).
  const tarball = packed.stdout.trim().split("\n").pop() ?? "";

  const workDir = path.join(work, "program");
  await mkdir(workDir);
  await writeFile(path.join(workDir, "Pulumi.yaml"), "name: cloudplatform-bench\nruntime: nodejs\n");
  await symlink(nodeModules, path.join(workDir, "node_modules"), "dir");

  // One backend and PULUMI_HOME per variant; only the plugin's holds the installed plugin, and no
  // PATH holds a pulumi-resource-cloudplatform: the plugin runs from the plugin cache.
  const envs = {} as Record<Variant, Record<string, string>>;
  for (const variant of variants) {
    const root = path.join(work, variant);
    await mkdir(path.join(root, "backend"), { recursive: true });
    await mkdir(path.join(root, "home"), { recursive: true });
    envs[variant] = {
      ...engineEnv(root, binDir),
      HOME: process.env.HOME ?? root,
      PATH: [binDir, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
    };
  }
  await run(
    path.join(binDir, "pulumi"),
    ["plugin", "install", "resource", "cloudplatform", version, "--file", tarball],
    {
      env: envs.plugin,
    },
  );

  const config = {
    "cloudplatform:baseUrl": { value: emulator.baseUrl, secret: false },
    "cloudplatform:s3Url": { value: emulator.s3Url, secret: false },
    "cloudplatform:apiKey": { value: emulator.apiKey, secret: true },
  };
  const raw: Array<{ round: number; variant: Variant; seconds: number; stateBytes: number; stateResources: number }> =
    [];
  for (let round = 1; round <= rounds; round++) {
    // Rotate the order so that no variant always runs first (cold caches) or last.
    const order = variants.map((_, i) => variants[(i + round - 1) % variants.length]!);
    for (const variant of order) {
      const base = { variant, n, workDir, pulumiBinDir: binDir, env: envs[variant], config };
      const up = await step({ ...base, op: "up" });
      if ((up.changes?.["create"] ?? 0) !== n + 1)
        throw new Error(`${variant} up created ${JSON.stringify(up.changes)}`);
      await step({ ...base, op: "destroy" });
      raw.push({
        round,
        variant,
        seconds: up.seconds!,
        stateBytes: up.stateBytes!,
        stateResources: up.stateResources!,
      });
      log(`round ${round}/${rounds} ${variant}: up ${up.seconds!.toFixed(2)} s, state ${up.stateBytes} bytes`);
    }
  }

  const floor = median(raw.filter((r) => r.variant === "floor").map((r) => r.seconds));
  const label: Record<Variant, string> = {
    floor: `floor: ${n} no-op dynamic resources`,
    dynamic: `dynamic SDK: ${n / 2} buckets + ${n / 2} credentials`,
    plugin: `plugin: ${n / 2} buckets + ${n / 2} credentials`,
  };
  const lines = [
    `\`up\` creating ${n} resources, median of ${rounds} rounds (order rotating), emulator on loopback`,
    "",
    "| program | up (s) | / floor | / floor, same round | state bytes per resource |",
    "| --- | --- | --- | --- | --- |",
  ];
  const floorOf = (round: number): number => raw.find((r) => r.round === round && r.variant === "floor")!.seconds;
  for (const variant of variants) {
    const mine = raw.filter((r) => r.variant === variant);
    const seconds = median(mine.map((r) => r.seconds));
    // Rounds are paired: a machine busier in one round slows all three of its runs alike.
    const paired = median(mine.map((r) => r.seconds / floorOf(r.round)));
    const perResource = median(mine.map((r) => r.stateBytes / n));
    const cells = [
      label[variant],
      seconds.toFixed(2),
      (seconds / floor).toFixed(2),
      paired.toFixed(2),
      perResource.toFixed(0),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  console.log(lines.join("\n"));
  const resultsDir = path.join(repoRoot, "bench", "results");
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `plugin-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(file, JSON.stringify({ n, rounds, node: process.version, raw }, null, 2));
  log(`raw rounds: ${path.relative(repoRoot, file)}`);
} finally {
  await emulator.stop();
  await rm(work, { recursive: true, force: true });
}
