// What a user does with a stack that did not deploy cleanly, step by step and counted: run `up`
// again (at most `maxUps` in all), `pulumi cancel` when the CLI says the stack is locked, and, when
// an `up` fails because a name is taken, what the users had to do by hand: delete the zone
// through the management API, or add `adopt: true` to the bucket (a program edit, here the stack
// config `adoptBuckets`). Each of those is a manual step. Then `destroy`, again until it succeeds.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { engineEnv } from "../../scripts/lib/runner.mts";
import type { RunResult } from "../../scripts/lib/runner.mts";
import {
  compare,
  conflictingObjects,
  emptyHoldings,
  holdingsFromExport,
  leftovers,
  type Comparison,
  type Declaration,
  type Holdings,
  type KindCounts,
} from "../support/compare.mts";
import type { Faults, Platform } from "../support/platform.mts";
import {
  errorSummary,
  isConflictError,
  isLockedError,
  isUnreadableStateError,
  repairState,
  type Config,
  type SoakStack,
} from "../support/stacks.mts";

const exec = promisify(execFile);

export const maxUps = 5;
/** A lock refusal is not an `up` that ran; more than this many in a row means the lock never goes. */
const maxCancels = 2;

export interface Step {
  readonly op: "up" | "destroy" | "refresh" | "cancel" | "recover";
  readonly ok: boolean;
  readonly ms: number;
  readonly errors: readonly string[];
}

export interface ManualStep {
  readonly action: "deleted zone by hand" | "added adopt: true" | "repaired the state file by hand";
  readonly object: string;
}

export interface Convergence {
  /** `up`s that ran (lock refusals left out), the successful one included. */
  readonly ups: number;
  readonly converged: boolean;
  readonly firstUpOk: boolean;
  readonly manualSteps: readonly ManualStep[];
}

export interface Round {
  readonly platform: Platform;
  readonly stack: SoakStack;
  readonly declaration: Declaration;
  /** Provider connection and program size, passed to every operation. */
  readonly config: Config;
  /** The situation's faults, on during every operation and off while the soak looks at the platform. */
  readonly faults: Faults;
  readonly steps: Step[];
  readonly adopted: Set<string>;
  readonly pulumiBinDir: string;
}

export function roundConfig(round: Round): Config {
  return round.adopted.size === 0
    ? round.config
    : { ...round.config, adoptBuckets: { value: JSON.stringify([...round.adopted].sort()) } };
}

async function timed<T extends { ok: boolean; error?: string }>(
  round: Round,
  op: Step["op"],
  run: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  const result = await run();
  round.steps.push({ op, ok: result.ok, ms: Date.now() - started, errors: errorSummary(result.error) });
  return result;
}

/** Runs an operation under the situation's faults. */
async function underFaults(round: Round, op: "up" | "destroy" | "refresh"): Promise<RunResult> {
  const outcome = await round.platform.setFaults(round.faults);
  if (!outcome.accepted) throw new Error(`the emulator refused the faults: ${outcome.reason}`);
  try {
    return await timed(round, op, () => round.stack.run(op, roundConfig(round)));
  } finally {
    await round.platform.clearFaults();
  }
}

/** `pulumi cancel`, as the CLI asks when a killed run left its lock. */
export async function cancel(round: Round): Promise<boolean> {
  return (await timed(round, "cancel", () => round.stack.run("cancel"))).ok;
}

/**
 * A killed CLI can leave the file:// backend unable to read the stack at all; the user's first
 * command says "failed to load checkpoint: EOF", and they repair it by hand (a manual step, though
 * not one the provider can spare them: it is the backend's, see docs/soak.md).
 */
export async function repairIfUnreadable(round: Round, manual: ManualStep[]): Promise<void> {
  const exported = await round.stack.run("export");
  if (exported.ok || !isUnreadableStateError(exported.error)) return;
  for (const file of await repairState(round.stack.stateDir))
    manual.push({ action: "repaired the state file by hand", object: file });
}

export async function holdings(round: Round): Promise<Holdings> {
  const exported = await round.stack.run("export");
  if (!exported.ok) {
    // A stack that no operation ever finished creating has no state to export.
    if (/no stack named|does not exist/i.test(exported.error ?? "")) return emptyHoldings;
    throw new Error(`pulumi stack export failed: ${errorSummary(exported.error).join(" / ")}`);
  }
  return holdingsFromExport(exported.exported ?? "{}");
}

async function resolveConflicts(round: Round, manual: ManualStep[]): Promise<void> {
  const blocking = conflictingObjects(round.declaration, await round.platform.inventory(), await holdings(round));
  for (const zone of blocking.zones) {
    await round.platform.deleteZone(zone.id);
    manual.push({ action: "deleted zone by hand", object: zone.name });
  }
  for (const { logicalName, bucket } of blocking.buckets) {
    if (round.adopted.has(logicalName)) continue;
    round.adopted.add(logicalName);
    manual.push({ action: "added adopt: true", object: bucket.name });
  }
}

/**
 * Runs `op` until it succeeds, at most `maxUps` runs; a refusal because the stack is locked gets
 * `pulumi cancel`, as the CLI asks, and is not a run.
 */
async function repeatUntilOk(
  round: Round,
  op: "up" | "destroy",
  afterFailure: (error: string | undefined) => Promise<void> = async () => undefined,
): Promise<{ runs: number; ok: boolean }> {
  let runs = 0;
  let cancels = 0;
  while (runs < maxUps) {
    const result = await underFaults(round, op);
    if (!result.ok && isLockedError(result.error) && cancels < maxCancels) {
      cancels++;
      await cancel(round);
      continue;
    }
    runs++;
    if (result.ok) return { runs, ok: true };
    await afterFailure(result.error);
  }
  return { runs, ok: false };
}

/** `up` until it succeeds, as a user would, at most `maxUps` times. */
export async function upUntilConverged(round: Round, earlier: readonly ManualStep[] = []): Promise<Convergence> {
  const manualSteps: ManualStep[] = [...earlier];
  const { runs, ok } = await repeatUntilOk(round, "up", async (error) => {
    if (isConflictError(error)) await resolveConflicts(round, manualSteps);
    if (isUnreadableStateError(error)) await repairIfUnreadable(round, manualSteps);
  });
  return { ups: runs, converged: ok, firstUpOk: ok && runs === 1, manualSteps };
}

export async function refresh(round: Round): Promise<boolean> {
  return (await underFaults(round, "refresh")).ok;
}

/** The platform against the program and the state, right after convergence (faults off). */
export async function compareNow(round: Round): Promise<Comparison & { pending: Readonly<Record<string, number>> }> {
  const held = await holdings(round);
  return { ...compare(round.declaration, await round.platform.inventory(), held), pending: held.pending };
}

/** `destroy` until it succeeds (at most `maxUps` times), then what is left on the platform. */
export async function destroyAndCount(round: Round): Promise<{ ok: boolean; attempts: number; left: KindCounts }> {
  const { runs, ok } = await repeatUntilOk(round, "destroy");
  return { ok, attempts: runs, left: leftovers(await round.platform.inventory()) };
}

/**
 * The one documented recovery command (none by default): run in the program's directory with the
 * stack selected, the backend and passphrase in PULUMI_*, the provider's settings in CLOUDPLATFORM_*,
 * and the stack's name in SOAK_STACK (also substituted for "{stack}" in the command).
 */
export async function recover(round: Round, command: string): Promise<boolean> {
  const { endpoints } = round.platform;
  const env = {
    ...process.env,
    ...engineEnv(round.stack.stateDir, round.pulumiBinDir),
    CLOUDPLATFORM_BASE_URL: endpoints.baseUrl,
    CLOUDPLATFORM_S3_URL: endpoints.s3Url,
    CLOUDPLATFORM_API_URL: endpoints.apiUrl,
    CLOUDPLATFORM_API_KEY: endpoints.apiKey,
    SOAK_STACK: round.stack.stackName,
  };
  const result = await timed(round, "recover", async (): Promise<{ ok: boolean; error?: string }> => {
    try {
      await exec("bash", ["-c", command.replaceAll("{stack}", round.stack.stackName)], {
        cwd: round.stack.workDir,
        env,
        timeout: 600_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      return { ok: true };
    } catch (error) {
      const e = error as { message?: string; stderr?: string };
      return { ok: false, error: `recovery command failed: ${e.message ?? ""}\n${e.stderr ?? ""}` };
    }
  });
  return result.ok;
}
