// Per-round records, the issue's table made from them, and the issue's goals checked against them.
// Pure: the soak's numbers are computed here and nowhere else, so they can be tested on records.
import { addCounts, noCounts, total, type Comparison, type KindCounts } from "../support/compare.mts";
import type { ManualStep, Step } from "./user.mts";

export type SituationName = "faults" | "lost" | "kills" | "emulator" | "tests";

export interface KillRecord {
  readonly victim: "cli" | "program";
  /** The kill was due once the platform had received this many writes since the `up` began. */
  readonly targetWrites: number;
  /** False when the `up` ended before the kill was due: the try then measures nothing. */
  readonly landed: boolean;
  readonly writesAtKill?: number;
  readonly msIntoUp?: number;
  /** Processes of the killed run that outlived it and were ended by the soak at the end of the try. */
  readonly survivorsEnded: number;
  readonly note?: string;
}

export interface DeployRound {
  readonly round: number;
  readonly seconds: number;
  /** For kills: the first `up` after the kill. */
  readonly firstUpOk: boolean;
  readonly ups: number;
  readonly converged: boolean;
  readonly manualSteps: readonly ManualStep[];
  readonly cancels: number;
  readonly refreshOk?: boolean;
  readonly recoverOk?: boolean;
  readonly kill?: KillRecord;
  readonly afterConvergence: Comparison & { readonly pending: Readonly<Record<string, number>> };
  readonly destroy: { readonly ok: boolean; readonly attempts: number; readonly left: KindCounts };
  /** The emulator's count of injected faults during the round (`/_emulator/stats`). */
  readonly injected: Readonly<Record<string, number>>;
  readonly steps: readonly Step[];
  /** The soak itself failed during the round: its numbers are unknown and left out of the totals. */
  readonly harnessError?: string;
}

export interface EmulatorCycle {
  readonly cycle: number;
  /** Acknowledged writes (all cycles so far) checked after this cycle's restart. */
  readonly acknowledged: number;
  readonly missing: number;
  readonly missingExamples: readonly string[];
  readonly killedAfterAcks: number;
  readonly restartMs: number;
}

export interface SituationResult {
  readonly name: SituationName;
  readonly title: string;
  /** False when the emulator cannot play the situation yet (e.g. it refuses `loseRate`). */
  readonly available: boolean;
  readonly reason?: string;
  readonly seconds: number;
  readonly rounds: readonly DeployRound[];
  readonly cycles: readonly EmulatorCycle[];
}

export interface Goal {
  readonly situation: SituationName;
  readonly goal: string;
  readonly met: boolean;
  readonly detail: string;
  /** Shown, never failing --check: a finding outside the issue's goals. */
  readonly informational?: boolean;
}

export const columns = [
  "Situation",
  "first `up` succeeded",
  "`up`s to converge (median / max)",
  "duplicates",
  "orphans after convergence",
  "orphans after destroy",
  "manual steps",
  "notes",
] as const;

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function sum(rounds: readonly DeployRound[], pick: (r: DeployRound) => KindCounts): KindCounts {
  return rounds.reduce((acc, r) => addCounts(acc, pick(r)), noCounts);
}

/** "0", or "7 (2 buckets, 5 credentials)". */
export function countCell(counts: KindCounts): string {
  const n = total(counts);
  if (n === 0) return "0";
  const parts = (["buckets", "credentials", "zones"] as const)
    .filter((k) => counts[k] > 0)
    .map((k) => `${counts[k]} ${counts[k] === 1 ? k.slice(0, -1) : k}`);
  return `${n} (${parts.join(", ")})`;
}

/**
 * The rounds that measure something: not a kill that never landed (the `up` finished first), nor a
 * round the soak itself failed in.
 */
export function measured(result: SituationResult): readonly DeployRound[] {
  return result.rounds.filter((r) => (r.kill === undefined || r.kill.landed) && r.harnessError === undefined);
}

/** Repairs of the file:// backend's state file: hand work, but the backend's, not the provider's. */
export function isStateRepair(step: ManualStep): boolean {
  return step.action === "repaired the state file by hand";
}

/** "0", or "5 (3 deleted zone by hand, 2 added adopt: true)". */
export function manualCell(steps: readonly ManualStep[]): string {
  if (steps.length === 0) return "0";
  const byAction = new Map<string, number>();
  for (const s of steps) byAction.set(s.action, (byAction.get(s.action) ?? 0) + 1);
  return `${steps.length} (${[...byAction].map(([action, n]) => `${n} ${action}`).join(", ")})`;
}

interface Totals {
  readonly rounds: readonly DeployRound[];
  readonly firstUps: number;
  readonly converged: readonly DeployRound[];
  readonly duplicates: KindCounts;
  readonly orphans: KindCounts;
  readonly leftAfterDestroy: KindCounts;
  readonly missing: KindCounts;
  readonly manualSteps: readonly ManualStep[];
}

export function totals(result: SituationResult): Totals {
  const rounds = measured(result);
  return {
    rounds,
    firstUps: rounds.filter((r) => r.firstUpOk).length,
    converged: rounds.filter((r) => r.converged),
    duplicates: sum(rounds, (r) => r.afterConvergence.duplicates),
    orphans: sum(rounds, (r) => r.afterConvergence.orphans),
    leftAfterDestroy: sum(rounds, (r) => r.destroy.left),
    missing: sum(rounds, (r) => r.afterConvergence.missing),
    manualSteps: rounds.flatMap((r) => r.manualSteps),
  };
}

function injectedNote(rounds: readonly DeployRound[]): string {
  const all: Record<string, number> = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.injected)) all[k] = (all[k] ?? 0) + v;
  const parts = Object.entries(all)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ×${v}`);
  return parts.length === 0 ? "no fault injected" : `injected: ${parts.join(", ")}`;
}

function killNote(result: SituationResult): string {
  const landed = measured(result);
  const cli = landed.filter((r) => r.kill?.victim === "cli").length;
  const program = landed.length - cli;
  const missed = result.rounds.length - landed.length;
  const cancels = landed.reduce((n, r) => n + r.cancels, 0);
  return [
    `${landed.length} kills (CLI ${cli}, program ${program})`,
    ...(missed > 0 ? [`${missed} not landed (the up ended first)`] : []),
    `${cancels} \`pulumi cancel\``,
  ].join(", ");
}

/** Pending operations the engine still keeps in state once the stack has converged (it only warns about them). */
function pendingNote(rounds: readonly DeployRound[]): string[] {
  const all: Record<string, number> = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.afterConvergence.pending)) all[k] = (all[k] ?? 0) + v;
  const parts = Object.entries(all).map(([k, v]) => `${v} ${k}`);
  return parts.length === 0 ? [] : [`pending operations left in state after convergence: ${parts.join(", ")}`];
}

function unmeasured(result: SituationResult): number {
  return result.rounds.filter((r) => r.harnessError !== undefined).length;
}

function deployRow(result: SituationResult): string[] {
  const t = totals(result);
  const ups = t.converged.map((r) => r.ups);
  const notConverged = t.rounds.length - t.converged.length;
  const upsCell =
    ups.length === 0
      ? "never converged"
      : `${median(ups)} / ${Math.max(...ups)}${notConverged > 0 ? ` (${notConverged} not converged)` : ""}`;
  const notes = [
    result.name === "kills" ? killNote(result) : injectedNote(t.rounds),
    ...(total(t.missing) > 0 ? [`state holds ${countCell(t.missing)} missing from the platform`] : []),
    ...(t.rounds.some((r) => !r.destroy.ok) ? [`destroy failed ${t.rounds.filter((r) => !r.destroy.ok).length}×`] : []),
    ...(unmeasured(result) > 0 ? [`${unmeasured(result)} rounds not measured (soak error)`] : []),
    ...pendingNote(t.rounds),
  ];
  return [
    result.title,
    `${t.firstUps}/${t.rounds.length}${result.name === "kills" ? " (after the kill)" : ""}`,
    upsCell,
    countCell(t.duplicates),
    countCell(t.orphans),
    countCell(t.leftAfterDestroy),
    manualCell(t.manualSteps),
    notes.join("; "),
  ];
}

function emulatorRow(result: SituationResult): string[] {
  const last = result.cycles.at(-1);
  const restarts = result.cycles.map((c) => c.restartMs / 1000);
  const missing = result.cycles.reduce((n, c) => Math.max(n, c.missing), 0);
  const note =
    last === undefined
      ? "no cycle ran"
      : `${missing} of ${last.acknowledged.toLocaleString("en-US")} acknowledged writes missing over ${result.cycles.length} kill -9s; ` +
        `restart ${median(restarts).toFixed(2)} s median, ${Math.max(...restarts).toFixed(2)} s max`;
  return [result.title, "—", "—", "—", "—", "—", "—", note];
}

export function row(result: SituationResult): string[] {
  if (!result.available) return [result.title, ...columns.slice(1, -1).map(() => "not available"), result.reason ?? ""];
  return result.name === "emulator" ? emulatorRow(result) : deployRow(result);
}

function escapeCell(cell: string): string {
  return cell.replaceAll("|", "\\|");
}

export function table(results: readonly SituationResult[]): string {
  const lines = [
    `| ${columns.join(" | ")} |`,
    `|${columns.map(() => "---").join("|")}|`,
    ...results.map((r) => `| ${row(r).map(escapeCell).join(" | ")} |`),
  ];
  return lines.join("\n");
}

/** The issue's goals, one line each; a situation that could not run misses its goals. */
export function goals(results: readonly SituationResult[]): Goal[] {
  const out: Goal[] = [];
  for (const result of results) {
    const g = (goal: string, met: boolean, detail: string): void =>
      void out.push({ situation: result.name, goal, met, detail });
    if (!result.available) {
      g("measured", false, `not measured: ${result.reason ?? "not available"}`);
      continue;
    }
    if (result.name === "emulator") {
      const missing = result.cycles.reduce((n, c) => Math.max(n, c.missing), 0);
      g("0 lost acknowledged writes", result.cycles.length > 0 && missing === 0, `${missing} missing`);
      continue;
    }
    const t = totals(result);
    if (result.name !== "kills")
      g(
        "every round's first up succeeded",
        t.rounds.length > 0 && t.firstUps === t.rounds.length,
        `${t.firstUps}/${t.rounds.length}`,
      );
    else g("at least one kill landed", t.rounds.length > 0, `${t.rounds.length} of ${result.rounds.length}`);
    g("every round converged", t.converged.length === t.rounds.length, `${t.converged.length}/${t.rounds.length}`);
    g("0 duplicates", total(t.duplicates) === 0, countCell(t.duplicates));
    g("0 orphans after convergence", total(t.orphans) === 0, countCell(t.orphans));
    g("0 orphans after destroy", total(t.leftAfterDestroy) === 0, countCell(t.leftAfterDestroy));
    const byHand = t.manualSteps.filter((s) => !isStateRepair(s));
    g("0 manual steps", byHand.length === 0, manualCell(byHand));
    g("nothing in state missing from the platform", total(t.missing) === 0, countCell(t.missing));
    g("every round measured", unmeasured(result) === 0, `${unmeasured(result)} soak errors`);
    const repairs = t.manualSteps.filter(isStateRepair).length;
    if (repairs > 0)
      out.push({
        situation: result.name,
        goal: "file:// backend state repaired by hand (the backend's, not a provider goal)",
        met: true,
        detail: String(repairs),
        informational: true,
      });
  }
  return out;
}

/** The goal of the fault and kill test files the soak runs (fault-tests.mts): each of them passed. */
export function testsGoal(tests: { readonly passed: number; readonly failed: number }): Goal {
  return {
    situation: "tests",
    goal: "the end-to-end files of fault loops and kills passed (vitest project faults)",
    met: tests.failed === 0 && tests.passed > 0,
    detail: `${tests.passed} passed, ${tests.failed} failed`,
  };
}

/** How the error of an `up` the soak killed on purpose begins (deployments.mts writes it). */
export const killedMark = "killed: ";

/** A round's line in the soak's log: its `up`s, what it left, and why a first `up` failed. */
export function roundLine(r: DeployRound): string {
  const ups = r.steps
    .filter((s) => s.op === "up")
    .map((s) => (s.ok ? "✓" : "✗"))
    .join("");
  const c = r.afterConvergence;
  // A failed `up` the soak did not cause itself (a kill) is what a missed goal is about: its first
  // error goes on the round's line, so that a short run in CI says why without its --json record.
  const failed = r.steps.find((s) => s.op === "up" && !s.ok && !s.errors.some((e) => e.startsWith(killedMark)));
  const why = failed?.errors[0] === undefined ? "" : `; a failed up: ${failed.errors[0]}`;
  return (
    `ups ${ups || "-"}${r.converged ? "" : " (not converged)"}, ${total(c.duplicates)} duplicates, ` +
    `${total(c.orphans)} orphans, ${total(r.destroy.left)} left after destroy, ${r.manualSteps.length} manual steps, ${r.seconds} s${why}`
  );
}
