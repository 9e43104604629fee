// A provider error as the CLI prints it: each line says it once. Seen with a revoked API key, the
// message came three times on one line (issue 37). examples/quickstart, deployed, then its API key
// revoked on the platform (rotated by a dashboard token): a refresh and an up fail with it.
import { describe, expect, it } from "vitest";
import { management } from "../support/emulator.js";
import { useExampleStack } from "../support/hooks.js";
import type { RunResult } from "../support/runner.js";

const code = "(CLOUDPLATFORM_UNAUTHORIZED)";

/** How many times each line of what the CLI printed that carries the error says it. */
function timesPerLine(result: RunResult): number[] {
  const printed = `${result.error ?? ""}\n${result.stdout ?? ""}\n${result.stderr ?? ""}`;
  return printed
    .split("\n")
    .filter((line) => line.includes(code))
    .map((line) => line.split(code).length - 1);
}

describe("a provider error", () => {
  const quickstart = useExampleStack("quickstart");

  it("is said once per line by a refresh and an up whose API key was revoked", async () => {
    await quickstart.stack.up();
    expect((await management(quickstart.emulator, "POST", "/security/apikey")).status).toBe(200);
    const refresh = await quickstart.stack.refreshFailing();
    const up = await quickstart.stack.upFailing({ "cloudplatform-quickstart:storageClass": { value: "Archive" } });
    for (const failed of [refresh, up]) {
      expect(failed.ok).toBe(false);
      const lines = timesPerLine(failed);
      expect(lines.length, failed.error).toBeGreaterThan(0);
      expect(lines, failed.error).toEqual(lines.map(() => 1));
    }
  });
});
