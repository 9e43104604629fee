// `npm run soak`: issue 11's measurement. examples/soak is deployed with the real engine against the
// emulator (a separate process) under faults, lost answers and kills; the platform is compared with
// the stack after each round; the emulator is itself killed under write load. Prints the issue's
// table, writes per-round records with --json, and with --check fails when a goal is missed.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmulatorProcess } from "../../scripts/lib/emulator-process.mts";
import { prepareExample } from "../../scripts/lib/example-workspace.mts";
import { pulumiBinDir, repoRoot } from "../../scripts/lib/paths.mts";
import { declaredCreates } from "../support/compare.mts";
import { faultRounds, faultsSpec, killRounds, killsSpec, lostSpec, type DeployContext } from "./deployments.mts";
import { emulatorKills } from "./emulator-kills.mts";
import { lanesOf, parseOptions, usage, UsageError, type Lane, type SoakOptions } from "./options.mts";
import { Platform } from "../support/platform.mts";
import { endEverything, watchChild } from "../support/processes.mts";
import { seeded } from "./random.mts";
import { runFaultTests, type FaultTests } from "./fault-tests.mts";
import { goals, table, testsGoal, type SituationResult } from "./report.mts";

const log = (message: string): void => void process.stderr.write(`[soak] ${message}\n`);

function commit(): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: repoRoot, encoding: "utf8" }).trim() !== "";
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return "unknown";
  }
}

/** Each deploy situation gets its own emulator (rounds reset it) and its own stream of random choices. */
async function deploySituation(
  options: SoakOptions,
  tmp: string,
  example: { workDir: string; projectName: string },
  { name, seedOffset, first, last }: Lane,
): Promise<SituationResult> {
  const label = `${name}-${first}`;
  const emulator = await startEmulatorProcess(path.join(tmp, `emulator-${label}.log`), [
    "--data-dir",
    path.join(tmp, `emulator-${label}`),
    "--quiet",
  ]);
  watchChild(emulator.process);
  try {
    const d = options.declaration;
    const ctx: DeployContext = {
      platform: new Platform(emulator),
      workDir: example.workDir,
      projectName: example.projectName,
      stacksDir: path.join(tmp, "stacks"),
      declaration: d,
      config: {
        "cloudplatform:baseUrl": { value: emulator.baseUrl },
        "cloudplatform:s3Url": { value: emulator.s3Url },
        "cloudplatform:apiUrl": { value: emulator.apiUrl },
        "cloudplatform:apiKey": { value: emulator.apiKey, secret: true },
        buckets: { value: String(d.buckets) },
        credentialsPerBucket: { value: String(d.credentialsPerBucket) },
        zones: { value: String(d.zones) },
        namePrefix: { value: d.namePrefix },
      },
      pulumiBinDir: pulumiBinDir(),
      random: seeded(options.seed + seedOffset),
      ...(options.recover === undefined ? {} : { recoverCommand: options.recover }),
      log,
    };
    const lane = { first, last };
    switch (name) {
      case "faults":
        return await faultRounds(ctx, { ...faultsSpec(options.rounds), lane });
      case "lost":
        return await faultRounds(ctx, { ...lostSpec(options.lostRounds), lane });
      case "kills":
        return await killRounds(ctx, { ...killsSpec(options.killRounds), lane });
    }
  } finally {
    await emulator.stop();
  }
}

const laneName = (l: Lane): string =>
  l.first === 1 && l.last === l.rounds ? l.name : `${l.name} (rounds ${l.first}-${l.last} of ${l.rounds})`;

/** A situation played by several lanes, as one: its rounds in order, its time the longest lane's. */
function mergeLanes(parts: readonly SituationResult[]): SituationResult {
  const [head, ...rest] = parts;
  if (head === undefined) throw new Error("a situation with no lane");
  if (rest.length === 0) return head;
  const unavailable = parts.find((p) => !p.available);
  return {
    ...head,
    ...(unavailable ? { available: false, reason: unavailable.reason } : {}),
    seconds: Math.max(...parts.map((p) => p.seconds)),
    rounds: parts.flatMap((p) => p.rounds).sort((a, b) => a.round - b.round),
    cycles: parts.flatMap((p) => p.cycles),
  };
}

async function runSituations(options: SoakOptions, tmp: string): Promise<SituationResult[]> {
  const lanes = lanesOf(options);
  const deploys = [...new Set(lanes.map((l) => l.name))];
  const results: SituationResult[] = [];
  if (lanes.length > 0) {
    log("installing the packed package into a copy of examples/soak");
    const example = await prepareExample("soak", tmp);
    const d = options.declaration;
    log(
      `program: ${d.buckets} buckets (half auto-named), ${d.credentialsPerBucket} credentials each, ${d.zones} zones ` +
        `= ${declaredCreates(d)} resources; running ${lanes.map(laneName).join(", ")} side by side`,
    );
    // Side by side: most of a round is waiting (engine start-up, retry back-off), and each lane
    // has its own emulator and stacks, so they do not see each other's objects.
    const played = await Promise.all(lanes.map((lane) => deploySituation(options, tmp, example, lane)));
    results.push(...deploys.map((name) => mergeLanes(played.filter((r) => r.name === name))));
  }
  if (options.only.has("emulator"))
    results.push(await emulatorKills({ cycles: options.emulatorCycles, dir: tmp, random: seeded(options.seed), log }));
  return results;
}

/** The fault and kill test files, started now; their failures printed with vitest's log when they end. */
function startFaultTests(tmp: string): Promise<FaultTests> {
  log("running the end-to-end files of fault loops and kills (vitest project faults) beside the rounds");
  return runFaultTests(tmp).then(async (tests) => {
    log(`fault and kill test files: ${tests.passed} passed, ${tests.failed} failed, ${tests.seconds} s`);
    if (tests.failed > 0) {
      // The log is in the soak's folder, removed at the end unless --keep: its end is printed here.
      const tail = (await readFile(tests.log, "utf8").catch(() => "")).split("\n").slice(-200).join("\n");
      process.stderr.write(`${tail}\n${tests.lines.join("\n")}\n`);
    }
    return tests;
  });
}

async function main(): Promise<number> {
  let options: SoakOptions | "help";
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`soak: ${error.message}\n\n${usage}`);
    return 2;
  }
  if (options === "help") {
    process.stdout.write(usage);
    return 0;
  }
  const started = new Date();
  // Taken now: what runs is what was checked out at the start.
  const revision = commit();
  const tmp = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-soak-"));
  log(`seed ${options.seed}; working in ${tmp}${options.keep ? " (kept)" : ""}`);
  const cleanup = async (): Promise<void> => {
    const ended = await endEverything();
    if (ended > 0) log(`ended ${ended} leftover processes of killed runs`);
    if (!options.keep) await rm(tmp, { recursive: true, force: true });
  };
  process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));
  try {
    // Beside the rounds from the start: they mostly wait, the test files mostly compute.
    const testing = options.only.has("tests") ? startFaultTests(tmp) : undefined;
    // Awaited below; a failed round of the soak itself must not leave its rejection unhandled.
    testing?.catch(() => undefined);
    const results = await runSituations(options, tmp);
    const tests = await testing;
    const seconds = Math.round((Date.now() - started.getTime()) / 1000);
    const checked = [...goals(results), ...(tests === undefined ? [] : [testsGoal(tests)])];
    const missed = checked.filter((g) => !g.met);
    process.stdout.write(`\n${table(results)}\n\n`);
    for (const g of checked)
      process.stdout.write(`${g.informational ? "ℹ" : g.met ? "✓" : "✗"} ${g.situation}: ${g.goal} (${g.detail})\n`);
    process.stdout.write(
      `\n${started.toISOString().slice(0, 10)}, commit ${revision}, seed ${options.seed}, ` +
        `${Math.floor(seconds / 60)} min ${seconds % 60} s; ${missed.length} of ${checked.length} goals missed\n`,
    );
    if (options.json !== undefined) {
      const record = {
        startedAt: started.toISOString(),
        seconds,
        commit: revision,
        seed: options.seed,
        options: { ...options, only: [...options.only] },
        situations: results,
        ...(tests === undefined ? {} : { tests }),
        goals: checked,
      };
      // npm runs scripts at the repository root; a relative path means where the user typed the command.
      await writeFile(
        path.resolve(process.env.INIT_CWD ?? process.cwd(), options.json),
        `${JSON.stringify(record, null, 2)}\n`,
      );
      log(`records written to ${options.json}`);
    }
    return options.check && missed.length > 0 ? 1 : 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
