// The table and the goals, made from hand-made round records.
import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { noCounts, type KindCounts } from "../support/compare.mts";
import {
  goals,
  median,
  roundLine,
  row,
  table,
  testsGoal,
  type DeployRound,
  type EmulatorCycle,
  type SituationName,
  type SituationResult,
} from "./report.mts";
import type { ManualStep } from "./user.mts";

function round(overrides: Partial<DeployRound> & { orphans?: KindCounts; duplicates?: KindCounts } = {}): DeployRound {
  const { orphans = noCounts, duplicates = noCounts, ...rest } = overrides;
  return {
    round: 1,
    seconds: 10,
    firstUpOk: true,
    ups: 1,
    converged: true,
    manualSteps: [],
    cancels: 0,
    afterConvergence: { duplicates, orphans, missing: noCounts, orphanNames: [], pending: {} },
    destroy: { ok: true, attempts: 1, left: noCounts },
    injected: { "503": 3 },
    steps: [],
    ...rest,
  };
}

function situation(name: SituationName, rounds: DeployRound[], cycles: EmulatorCycle[] = []): SituationResult {
  return { name, title: name, available: true, seconds: 1, rounds, cycles };
}

const goalsOf = (results: SituationResult[]): Record<string, boolean> =>
  Object.fromEntries(goals(results).map((g) => [`${g.situation}: ${g.goal}`, g.met]));

describe("median", () => {
  it("takes the middle value, or the mean of the two middle ones", () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([1, 4]), 2.5);
    assert.equal(median([]), 0);
  });
});

describe("row", () => {
  it("shows first-up successes, ups to converge and the counts by kind", () => {
    const cells = row(
      situation("faults", [
        round(),
        round({ firstUpOk: false, ups: 3, duplicates: { buckets: 0, credentials: 2, zones: 0 } }),
        round({ firstUpOk: false, ups: 5, converged: false }),
      ]),
    );
    assert.deepEqual(cells.slice(1, 7), ["1/3", "2 / 3 (1 not converged)", "2 (2 credentials)", "0", "0", "0"]);
    assert.match(cells[7]!, /injected: 503 ×9/);
  });

  it("leaves kills that never landed out, and says so", () => {
    const cells = row(
      situation("kills", [
        round({ kill: { victim: "cli", targetWrites: 5, landed: true, survivorsEnded: 2 } }),
        round({ kill: { victim: "program", targetWrites: 90, landed: false, survivorsEnded: 0 } }),
      ]),
    );
    assert.equal(cells[1], "1/1 (after the kill)");
    assert.match(cells[7]!, /1 kills \(CLI 1, program 0\), 1 not landed/);
  });

  it("says when a situation could not run, and why", () => {
    const cells = row({ ...situation("lost", []), available: false, reason: "the emulator refuses loseRate" });
    assert.equal(cells[1], "not available");
    assert.equal(cells.at(-1), "the emulator refuses loseRate");
  });

  it("reports lost acknowledged writes and restart times of the emulator", () => {
    const cycles: EmulatorCycle[] = [
      { cycle: 1, acknowledged: 800, missing: 0, missingExamples: [], killedAfterAcks: 800, restartMs: 300 },
      { cycle: 2, acknowledged: 1700, missing: 2, missingExamples: [], killedAfterAcks: 900, restartMs: 500 },
    ];
    const cells = row(situation("emulator", [], cycles));
    assert.equal(
      cells.at(-1),
      "2 of 1,700 acknowledged writes missing over 2 kill -9s; restart 0.40 s median, 0.50 s max",
    );
  });
});

describe("table", () => {
  it("is a markdown table with the issue's columns, pipes in cells escaped", () => {
    const text = table([{ ...situation("lost", []), available: false, reason: "a | b" }]);
    const lines = text.split("\n");
    assert.match(lines[0]!, /^\| Situation \| first `up` succeeded \| `up`s to converge \(median \/ max\) \|/);
    assert.match(lines[2]!, /a \\\| b \|$/);
  });
});

describe("goals", () => {
  it("are all met by clean rounds", () => {
    const results = [
      situation("faults", [round(), round()]),
      situation("kills", [round({ kill: { victim: "cli", targetWrites: 5, landed: true, survivorsEnded: 0 } })]),
      situation(
        "emulator",
        [],
        [{ cycle: 1, acknowledged: 10, missing: 0, missingExamples: [], killedAfterAcks: 10, restartMs: 1 }],
      ),
    ];
    assert.ok(goals(results).every((g) => g.met));
  });

  it("are missed by a failed first up, a duplicate, an orphan, a manual step or a lost write", () => {
    const adopt: ManualStep = { action: "added adopt: true", object: "soak-bucket-00" };
    const met = goalsOf([
      situation("faults", [round({ firstUpOk: false, ups: 2 })]),
      situation("lost", [round({ duplicates: { buckets: 0, credentials: 1, zones: 0 } })]),
      situation("kills", [
        round({
          kill: { victim: "cli", targetWrites: 5, landed: true, survivorsEnded: 0 },
          orphans: { buckets: 1, credentials: 0, zones: 0 },
          manualSteps: [adopt],
          destroy: { ok: true, attempts: 1, left: { buckets: 1, credentials: 0, zones: 0 } },
        }),
      ]),
      situation(
        "emulator",
        [],
        [{ cycle: 1, acknowledged: 10, missing: 1, missingExamples: [], killedAfterAcks: 10, restartMs: 1 }],
      ),
    ]);
    assert.equal(met["faults: every round's first up succeeded"], false);
    assert.equal(met["lost: 0 duplicates"], false);
    assert.equal(met["kills: 0 orphans after convergence"], false);
    assert.equal(met["kills: 0 orphans after destroy"], false);
    assert.equal(met["kills: 0 manual steps"], false);
    assert.equal(met["emulator: 0 lost acknowledged writes"], false);
  });

  it("count a repair of the file:// backend's state as information, not as a missed goal", () => {
    const repair: ManualStep = { action: "repaired the state file by hand", object: "kills-01.json.attrs" };
    const all = goals([
      situation("kills", [
        round({ kill: { victim: "cli", targetWrites: 5, landed: true, survivorsEnded: 0 }, manualSteps: [repair] }),
      ]),
    ]);
    assert.ok(all.filter((g) => !g.informational).every((g) => g.met));
    assert.deepEqual(
      all.filter((g) => g.informational).map((g) => g.detail),
      ["1"],
    );
  });

  it("are missed by a situation that could not run, and by a round the soak failed in", () => {
    const met = goalsOf([
      { ...situation("lost", []), available: false, reason: "no loseRate" },
      situation("faults", [round(), round({ harnessError: "boom" })]),
    ]);
    assert.equal(met["lost: measured"], false);
    assert.equal(met["faults: every round measured"], false);
    assert.equal(met["faults: every round's first up succeeded"], true, "the failed round is left out of the totals");
  });
});

describe("testsGoal", () => {
  it("is met when the fault and kill test files passed, missed when one failed or none ran", () => {
    assert.equal(testsGoal({ passed: 19, failed: 0 }).met, true);
    assert.equal(testsGoal({ passed: 19, failed: 0 }).detail, "19 passed, 0 failed");
    assert.equal(testsGoal({ passed: 18, failed: 1 }).met, false);
    assert.equal(testsGoal({ passed: 0, failed: 0 }).met, false);
  });
});

describe("roundLine", () => {
  const up = (ok: boolean, errors: string[] = []) => ({ op: "up" as const, ok, ms: 1, errors });

  it("names the error of a failed up, so that a missed goal in CI says why", () => {
    const line = roundLine(
      round({ firstUpOk: false, ups: 2, steps: [up(false, ["error: CLOUDPLATFORM_X: what to do"]), up(true)] }),
    );
    assert.match(line, /^ups ✗✓, 0 duplicates, /);
    assert.match(line, /10 s; a failed up: error: CLOUDPLATFORM_X: what to do$/);
  });

  it("leaves out the ups the soak killed itself, and says nothing more when every up succeeded", () => {
    assert.doesNotMatch(roundLine(round({ steps: [up(false, ["killed: cli"]), up(true)] })), /failed/);
    assert.equal(
      roundLine(round({ steps: [up(true)] })),
      "ups ✓, 0 duplicates, 0 orphans, 0 left after destroy, 0 manual steps, 10 s",
    );
  });
});
