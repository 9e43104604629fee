import { defineConfig } from "vitest/config";
import { debianToolTag } from "./test/support/tools.mts";

// Given by `needs(...)` (test/support/tools.mts) to the tests that drive a Debian tool.
const tags = [{ name: debianToolTag, description: "drives a Debian tool, declared with needs(...)" }];

// Three projects, run by scripts/test.sh in this order:
// - unit: provider and SDK logic, network disabled (nock), and the pure parts of the soak harness;
// - emulator: the emulator over real HTTP on loopback, with real S3 clients;
// - e2e: real Pulumi engine (Automation API) against the emulator, in child processes.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/soak/**/*.test.mts"],
          environment: "node",
          tags,
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
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          tags,
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
