import { defineConfig } from "vitest/config";
import { debianToolTag } from "./test/support/tools.mts";

// Given by `needs(...)` (test/support/tools.mts) to the tests that drive a Debian tool.
const tags = [{ name: debianToolTag, description: "drives a Debian tool, declared with needs(...)" }];

// End-to-end files that kill processes mid-deployment, race two deployments, or wait on the clock:
// each waits for a window that a second engine on the same two cores would stretch or close, so
// they run alone, one at a time, after the others. Not here: state-backend.test.ts (its race of two
// `up`s is state-backend-race.test.ts; the rest waits on nothing), gitops.test.ts (its `up` meets
// a lock that is let go once the `up` has met it, not after a fixed time), rotation-answer-faults
// (lost and garbled answers, no window) and rotation.test.ts: its schedule test waits two minutes
// on the clock, which is cheap beside another file and dear alone, and its window (a preview, an
// up and a preview within 59 s) is several times what they take beside another engine; the test
// says so when a machine misses it.
const alone = [
  "test/e2e/interrupted.test.ts",
  "test/e2e/rotation-faults.test.ts",
  "test/e2e/synced-folder-interrupted.test.ts",
  // Two `up`s started together must overlap by less than an `up` takes to reach the lock
  // (REACH_LOCK_SECONDS) when both ran: a second engine stretches that time.
  "test/e2e/state-backend-race.test.ts",
];

// Four projects in three groups, one group after another (sequence.groupOrder):
// 0. unit: provider and SDK logic, network disabled (nock), and the pure parts of the soak harness;
//    emulator: the emulator over real HTTP on loopback, with real S3 clients;
// 1. e2e: real Pulumi engine (Automation API or the CLI) against the emulator, in child processes.
//    Three files at a time: each has its own emulator (port 0), backend folder and PULUMI_HOME
//    (test/support/runner.ts, e2e/support/plugin-cli.ts). On two cores a third file fills the time
//    the others spend waiting: on the clock (rotation's schedule, rotation-overlap's three minutes),
//    on a rate limit, on npm and the Go toolchain, on processes and loopback;
// 2. e2e-alone: the files above, one at a time with nothing else running.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/soak/**/*.test.mts"],
          environment: "node",
          tags,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "emulator",
          include: ["emulator/test/**/*.test.ts"],
          environment: "node",
          tags,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          exclude: alone,
          environment: "node",
          tags,
          testTimeout: 600_000,
          hookTimeout: 600_000,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "e2e-alone",
          include: alone,
          environment: "node",
          tags,
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
