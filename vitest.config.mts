import { defineConfig } from "vitest/config";

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
        },
      },
      {
        test: {
          name: "emulator",
          include: ["emulator/test/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
