// RotatingBucketCredential exactly once (docs/api-contract.md §2.4) with the real engine against the
// emulator (examples/rotation): two stacks creating credentials on one bucket at once while 40 % of
// the create answers are lost, three rounds. After each round the credentials on the platform are
// counted: never one claimed by both stacks; a stack that cannot tell which credential is its own
// stops and names the candidates, and docs/interruptions.md's way out (delete the candidates no
// stack holds, then `up` again) works. Kills of an `up` during a create or a rotation:
// rotation-faults.test.ts.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Faults } from "../support/platform.mts";
import { SoakStack } from "../support/stacks.mts";
import { management, providerConfig } from "../support/emulator.js";
import { useExampleStack } from "../support/hooks.js";
import { credentialsOn, setting } from "./support/rotation.js";
import type { Config } from "../support/runner.js";

const project = "cloudplatform-rotation";

/** The access key ids a stack's export holds: every RotatingBucketCredential's current and previous. */
function heldBy(exported: string): string[] {
  const state = JSON.parse(exported) as {
    deployment?: { resources?: { type?: string; outputs?: Record<string, unknown> }[] };
  };
  return (state.deployment?.resources ?? [])
    .filter((r) => r.type?.endsWith(":RotatingBucketCredential"))
    .flatMap((r) => [r.outputs?.["accessKeyId"], r.outputs?.["previousAccessKeyId"]])
    .filter((id): id is string => typeof id === "string" && id !== "");
}

describe("two stacks creating credentials on one bucket at once, 40 % of the create answers lost", () => {
  const rotating = useExampleStack("rotation", { config: () => ({}) });
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-e2e-two-stacks-"));
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("never lets both claim a credential; where a stack cannot tell, it names the candidates, and the README's way out works", async () => {
    const made = await management(rotating.emulator, "POST", "/object-storage/buckets", { name: "shared-bucket" });
    const bucketId = ((await made.json()) as { id: string }).id;
    const config: Config = { ...providerConfig(rotating.emulator), ...setting({ bucketId }) };
    /** Per round, the stacks that stopped naming the credentials they could not tell apart. */
    const named: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const stacks = ["a", "b"].map(
        (name) => new SoakStack(rotating.stack.workDir, path.join(root, `round-${round}-${name}`), name, project),
      );
      // Every credential POST held back half a second, so that the two stacks' creates overlap.
      const lost: Faults = { loseRate: 0.4, latencyMs: 500, routes: "POST /object-storage/buckets/", seed: round };
      expect(await rotating.platform.setFaults(lost)).toEqual({ accepted: true });
      const results = await Promise.all(stacks.map((s) => s.run("up", config)));
      await rotating.platform.clearFaults();

      const held = await Promise.all(stacks.map(async (s) => heldBy((await s.run("export")).exported ?? "{}")));
      // Never one credential in both stacks.
      expect(held[0]?.filter((id) => held[1]?.includes(id))).toEqual([]);
      // A failure is the one that names the candidates it cannot tell apart, or a partial create that
      // kept what it made; the candidates are the credentials no stack may take as its own alone.
      const candidates = new Set<string>();
      let stopped = 0;
      for (const result of results.filter((r) => !r.ok)) {
        const error = result.error ?? "";
        expect(error, error).toMatch(/CLOUDPLATFORM_OUTCOME_UNKNOWN|CLOUDPLATFORM_PARTIAL/);
        const lists = [...error.matchAll(/appeared while this one was being created \(([A-Z0-9, ]+)\)/g)];
        if (lists.length > 0) stopped++;
        for (const m of lists) for (const id of (m[1] ?? "").split(", ")) candidates.add(id);
      }
      named.push(stopped);
      // The way out: delete the named credentials that no stack holds (their secrets were in the
      // lost answers: nobody can use them), then `pulumi up` again.
      const all = new Set([...(held[0] ?? []), ...(held[1] ?? [])]);
      for (const id of [...candidates].filter((c) => !all.has(c))) {
        const gone = await management(
          rotating.emulator,
          "DELETE",
          `/object-storage/buckets/${bucketId}/credentials/${id}`,
        );
        expect([204, 404]).toContain(gone.status);
      }
      for (const [index, result] of results.entries()) {
        if (!result.ok) {
          const again = await stacks[index]!.run("up", config);
          expect(again.ok, again.error).toBe(true);
        }
      }
      const after = await Promise.all(stacks.map(async (s) => heldBy((await s.run("export")).exported ?? "{}")));
      expect(after.map((ids) => ids.length)).toEqual([2, 2]);
      expect(after[0]?.filter((id) => after[1]?.includes(id))).toEqual([]);
      expect(await credentialsOn(rotating.platform, "shared-bucket")).toEqual(
        [...(after[0] ?? []), ...(after[1] ?? [])].sort(),
      );
      for (const s of stacks) expect((await s.run("destroy", config)).ok).toBe(true);
      expect(await credentialsOn(rotating.platform, "shared-bucket")).toEqual([]);
    }
    console.info(`two stacks, 3 rounds: stacks that stopped naming the candidates, per round: ${named.join(", ")}`);
  });
});
