// Situations 1–3: examples/soak deployed on a fresh stack per round under faults, lost answers or a
// kill, then what a user does until the stack converges, then the platform compared with the stack,
// then destroy, then what is left.
import path from "node:path";
import { declaredCreates, noCounts, type Declaration } from "../support/compare.mts";
import type { Faults, Platform } from "../support/platform.mts";
import { endAll, endLater, processTree, signal, waitGone, type Proc } from "../support/processes.mts";
import type { Random } from "./random.mts";
import {
  killedMark,
  roundLine,
  type DeployRound,
  type KillRecord,
  type SituationName,
  type SituationResult,
} from "./report.mts";
import { SoakStack, type Config } from "../support/stacks.mts";
import {
  cancel,
  compareNow,
  destroyAndCount,
  recover,
  refresh,
  repairIfUnreadable,
  roundConfig,
  upUntilConverged,
  type ManualStep,
  type Round,
} from "./user.mts";

export interface DeployContext {
  readonly platform: Platform;
  readonly workDir: string;
  readonly projectName: string;
  readonly stacksDir: string;
  readonly declaration: Declaration;
  readonly config: Config;
  readonly pulumiBinDir: string;
  readonly random: Random;
  readonly recoverCommand?: string;
  readonly log: (message: string) => void;
}

export interface SituationSpec {
  readonly name: SituationName;
  readonly title: string;
  readonly rounds: number;
  /**
   * The rounds this lane plays, when a situation's rounds are shared by several lanes (each with
   * its own emulator): `first` to `last` of `rounds`. All of them when absent.
   */
  readonly lane?: { readonly first: number; readonly last: number };
}

export const faultsSpec = (rounds: number): SituationSpec & { faults: Faults } => ({
  name: "faults",
  title: "Faults: 10 % 503, 5 % 429, 2 % dropped connections",
  rounds,
  faults: { statusRates: { "503": 0.1, "429": 0.05 }, dropRate: 0.02 },
});

export const lostSpec = (rounds: number): SituationSpec & { faults: Faults } => ({
  name: "lost",
  title: "Answers lost after processing (3 % of POSTs)",
  rounds,
  faults: { loseRate: 0.03, routes: "POST " },
});

export const killsSpec = (rounds: number): SituationSpec => ({
  name: "kills",
  title: "SIGKILL of the CLI or the program mid-`up`",
  rounds,
});

async function newRound(ctx: DeployContext, name: SituationName, index: number, faults: Faults): Promise<Round> {
  await ctx.platform.clearFaults();
  await ctx.platform.reset();
  const stackName = `${name}-${String(index).padStart(2, "0")}`;
  return {
    platform: ctx.platform,
    stack: new SoakStack(ctx.workDir, path.join(ctx.stacksDir, stackName), stackName, ctx.projectName),
    declaration: ctx.declaration,
    config: ctx.config,
    faults,
    steps: [],
    adopted: new Set(),
    pulumiBinDir: ctx.pulumiBinDir,
  };
}

/** Converged or not, the stack is compared with the platform, destroyed, and what is left counted. */
async function finish(
  round: Round,
  index: number,
  started: number,
  convergence: Awaited<ReturnType<typeof upUntilConverged>>,
  extra: Partial<DeployRound>,
): Promise<DeployRound> {
  const afterConvergence = await compareNow(round);
  const destroy = await destroyAndCount(round);
  const { injected } = await round.platform.stats();
  return {
    round: index,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    ...convergence,
    cancels: round.steps.filter((s) => s.op === "cancel").length,
    afterConvergence,
    destroy,
    injected,
    steps: round.steps,
    ...extra,
  };
}

/** A round in which the soak itself fails is recorded as such, and the run goes on. */
async function guarded(
  ctx: DeployContext,
  name: SituationName,
  index: number,
  work: () => Promise<DeployRound>,
): Promise<DeployRound> {
  const started = Date.now();
  try {
    return await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    ctx.log(`${name} ${index}: the soak failed in this round, which is left out of the totals: ${message}`);
    await ctx.platform.clearFaults().catch(() => undefined);
    return {
      round: index,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      firstUpOk: false,
      ups: 0,
      converged: false,
      manualSteps: [],
      cancels: 0,
      afterConvergence: { duplicates: noCounts, orphans: noCounts, missing: noCounts, orphanNames: [], pending: {} },
      destroy: { ok: false, attempts: 0, left: noCounts },
      injected: {},
      steps: [],
      harnessError: message,
    };
  }
}

/** Plays `spec.rounds` rounds one after the other, logging each, and gathers their records. */
async function playRounds(
  ctx: DeployContext,
  spec: SituationSpec,
  play: (index: number) => Promise<DeployRound>,
  headline: (record: DeployRound) => string = () => "",
): Promise<SituationResult> {
  const started = Date.now();
  const rounds: DeployRound[] = [];
  for (let i = spec.lane?.first ?? 1; i <= (spec.lane?.last ?? spec.rounds); i++) {
    const record = await guarded(ctx, spec.name, i, () => play(i));
    rounds.push(record);
    if (record.harnessError === undefined)
      ctx.log(`${spec.name} ${i}/${spec.rounds}: ${headline(record)}${roundLine(record)}`);
  }
  return {
    name: spec.name,
    title: spec.title,
    available: true,
    seconds: Math.round((Date.now() - started) / 1000),
    rounds,
    cycles: [],
  };
}

/** Situations 1 and 2: a fresh stack per round under `faults`; `up` again when it fails. */
export async function faultRounds(
  ctx: DeployContext,
  spec: SituationSpec & { faults: Faults },
): Promise<SituationResult> {
  const probe = await ctx.platform.setFaults(spec.faults);
  await ctx.platform.clearFaults();
  if (!probe.accepted) {
    ctx.log(`${spec.name}: not available, the emulator refuses these faults (${probe.reason})`);
    const reason = `the emulator refuses ${JSON.stringify(spec.faults)}: ${probe.reason}`;
    return { name: spec.name, title: spec.title, available: false, reason, seconds: 0, rounds: [], cycles: [] };
  }
  return playRounds(ctx, spec, async (i) => {
    const started = Date.now();
    const round = await newRound(ctx, spec.name, i, spec.faults);
    return finish(round, i, started, await upUntilConverged(round), {});
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Kill {
  readonly record: Omit<KillRecord, "survivorsEnded">;
  /** Every process of the killed run, as it was at the kill: the soak ends the survivors by id. */
  readonly tree: readonly Proc[];
}

/**
 * Starts an `up` and SIGKILLs the CLI or the runner child (the program's host) once the platform
 * has received `targetWrites` writes since the round's reset: a random moment among the creates.
 */
async function upAndKill(round: Round, victim: "cli" | "program", targetWrites: number): Promise<Kill> {
  const started = Date.now();
  const running = round.stack.start("up", roundConfig(round));
  let finished = false;
  void running.result.then(() => (finished = true));
  while (!finished) {
    const { writes } = await round.platform.stats();
    if (writes >= targetWrites) {
      const tree = await processTree(running.pid);
      const target = victim === "cli" ? tree.find((p) => p.command === "pulumi") : tree[0];
      if (target !== undefined) {
        await signal(target, "SIGKILL");
        endLater(tree);
        const record = { victim, targetWrites, landed: true, writesAtKill: writes, msIntoUp: Date.now() - started };
        round.steps.push({ op: "up", ok: false, ms: Date.now() - started, errors: [`${killedMark}${victim}`] });
        await afterKill(round, victim, tree, running.result);
        return { record, tree };
      }
    }
    await sleep(20);
  }
  const result = await running.result;
  round.steps.push({ op: "up", ok: result.ok, ms: Date.now() - started, errors: ["the up ended before the kill"] });
  return { record: { victim, targetWrites, landed: false }, tree: [] };
}

/**
 * What the user sees end: when the CLI dies, their terminal returns at once (its provider host may
 * live on); when the program dies, the CLI reports the failure and exits, and they wait for that.
 */
async function afterKill(
  round: Round,
  victim: "cli" | "program",
  tree: readonly Proc[],
  result: Promise<unknown>,
): Promise<void> {
  if (victim === "cli") {
    await result;
    return;
  }
  const cli = tree.filter((p) => p.command === "pulumi");
  if (!(await waitGone(cli, 120_000))) {
    round.steps.push({
      op: "up",
      ok: false,
      ms: 120_000,
      errors: ["the CLI did not exit within 120 s of the program's death: killed"],
    });
    for (const p of cli) await signal(p, "SIGKILL");
  }
}

/** One kill, then what the user does: repair an unreadable state, `pulumi cancel`, recovery, `up`, `refresh`. */
async function killRound(
  ctx: DeployContext,
  index: number,
  victim: "cli" | "program",
  targetWrites: number,
): Promise<DeployRound> {
  const roundStarted = Date.now();
  const round = await newRound(ctx, "kills", index, {});
  const kill = await upAndKill(round, victim, targetWrites);
  try {
    const repairs: ManualStep[] = [];
    await repairIfUnreadable(round, repairs);
    if (await round.stack.isLocked()) await cancel(round);
    const recoverOk = ctx.recoverCommand === undefined ? undefined : await recover(round, ctx.recoverCommand);
    const convergence = await upUntilConverged(round, repairs);
    const refreshOk = convergence.converged ? await refresh(round) : undefined;
    const record = await finish(round, index, roundStarted, convergence, {
      ...(refreshOk === undefined ? {} : { refreshOk }),
      ...(recoverOk === undefined ? {} : { recoverOk }),
    });
    return { ...record, kill: { ...kill.record, survivorsEnded: await endAll(kill.tree) } };
  } finally {
    // The killed run's provider host may live on; it must not outlast its round, even a failed one.
    await endAll(kill.tree);
  }
}

/** Situation 3: kills at random moments, then `pulumi cancel` when locked, recovery, `up`, `refresh`. */
export async function killRounds(ctx: DeployContext, spec: SituationSpec): Promise<SituationResult> {
  const creates = declaredCreates(ctx.declaration);
  return playRounds(
    ctx,
    spec,
    // Odd tries kill the CLI, even ones the program, so that even a short run has both.
    (i) => killRound(ctx, i, i % 2 === 1 ? "cli" : "program", 1 + ctx.random.int(creates)),
    (r) =>
      `${r.kill?.victim} killed ${r.kill?.landed ? `after ${r.kill.writesAtKill} writes` : "too late: the up ended first"}; `,
  );
}
