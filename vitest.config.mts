import { defineConfig } from "vitest/config";
import { faultFiles } from "./test/support/phases.mts";
import { debianToolTag } from "./test/support/tools.mts";

// Given by `needs(...)` (test/support/tools.mts) to the tests that drive a Debian tool.
const tags = [{ name: debianToolTag, description: "drives a Debian tool, declared with needs(...)" }];

// Each file's CPU, for npm test's closing figures (test/support/file-cpu.mts).
const setupFiles = ["./test/support/file-cpu.mts"];

// The unit and emulator files, three at a time. Vitest's default is one fewer than the cores: one
// at a time on two cores, which left a core idle while a file waited on loopback, on a child process
// or on a timer (228 s for group 0 against 141 s with three, 1,228 tests either way). Both projects
// share a group, so they must name the same number.
const groupZeroWorkers = 3;

// Four projects; `npm test` runs the first three, in two groups, one group after another
// (sequence.groupOrder):
// 0. unit: provider and SDK logic, network disabled (nock), and the pure parts of the soak harness;
//    emulator: the emulator over real HTTP on loopback, with real S3 clients;
// 1. e2e: real Pulumi engine (Automation API or the CLI) against the emulator, in child processes.
//    Three files at a time: each has its own emulator (port 0), backend folder and PULUMI_HOME
//    (test/support/runner.ts, e2e/support/plugin-cli.ts). On two cores a third file fills the time
//    the others spend waiting: on the clock (rotation's schedule, rotation-overlap's three minutes),
//    on a rate limit, on npm and the Go toolchain, on processes and loopback. None runs alone: none
//    waits for a window of time that another engine would stretch (test/support/phases.mts, why).
// The fourth, faults: the end-to-end files of fault loops and kills, run by the soak beside its
// rounds (`npm run soak`, CI's short soak) or alone (`npm run test:faults`); test/support/phases.mts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/soak/**/*.test.mts"],
          environment: "node",
          // Files here, each its own process, call one made-up address with one key: sharing a
          // pacing gate (provider/request/shared-gate.ts), one file's 429s and fake timers would
          // pace the others. test/unit/shared-gate.test.ts makes its shared gates itself.
          env: { CLOUDPLATFORM_SHARED_GATE: "0" },
          tags,
          setupFiles,
          maxWorkers: groupZeroWorkers,
          // Not vitest's 5 s: three files at a time on two cores, in a CI shared with other work,
          // stretched the test that parses every test source from 4.7 s to 6.3 s. A test that has
          // grown slow shows in npm test's slowest files; the timeout only stops a hang.
          testTimeout: 30_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "emulator",
          include: ["emulator/test/**/*.test.ts"],
          environment: "node",
          tags,
          setupFiles,
          maxWorkers: groupZeroWorkers,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          exclude: [...faultFiles],
          environment: "node",
          tags,
          setupFiles,
          testTimeout: 600_000,
          hookTimeout: 600_000,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "faults",
          include: [...faultFiles],
          environment: "node",
          tags,
          setupFiles,
          testTimeout: 600_000,
          hookTimeout: 600_000,
          // Beside the soak's rounds, which mostly wait (retry back-offs, Retry-After pauses).
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
