// RotatingBucketCredential exactly once (docs/api-contract.md §2.4) with the real engine against the
// emulator (examples/rotation): an `up` SIGKILLed during the create of the two credentials and during
// a rotation (README, "When a deployment is interrupted"). After each step the credentials on the
// platform are counted: never a third per resource, never both slots unusable, and the next `up`
// finishes what an interrupted one left. Two stacks creating credentials on one bucket while answers
// are lost: rotation-two-stacks.test.ts (a file of its own, so that the soak's two workers share the
// work); rotations while the platform loses, garbles and drops answers: rotation-answer-faults.test.ts.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { putObject, readOnce, S3Reader } from "../../scripts/lib/s3-reader.mts";
import { emulatorStats } from "../support/platform.mts";
import { endAll } from "../support/processes.mts";
import { SoakStack } from "../support/stacks.mts";
import { providerConfig } from "../support/emulator.js";
import { useExampleStack } from "../support/hooks.js";
import { killedUp as killUp } from "./support/kill.js";
import { credentialsOn, pairOf, setting } from "./support/rotation.js";
import { changesOtherThanSame, output, type Config } from "../support/runner.js";

const project = "cloudplatform-rotation";

describe("an up killed during the create of the credentials, or during a rotation", () => {
  const rotating = useExampleStack("rotation", { config: () => ({}) });
  const roots: string[] = [];

  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  async function freshStack(): Promise<SoakStack> {
    await rotating.platform.clearFaults();
    await rotating.platform.reset();
    const root = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-e2e-rotation-kill-"));
    roots.push(root);
    return new SoakStack(rotating.stack.workDir, path.join(root, "state"), "e2e", project);
  }

  const config = (more: Record<string, string>): Config => ({ ...providerConfig(rotating.emulator), ...setting(more) });

  async function ok(stack: SoakStack, op: "up" | "cancel" | "destroy", more: Record<string, string> = {}) {
    const result = await stack.run(op, config(more));
    expect(result.ok, `pulumi ${op}: ${result.error ?? ""}`).toBe(true);
    return result;
  }

  /** Requests of `route` the platform served so far. */
  const served = async (route: string) => (await emulatorStats(rotating.emulator)).requests[route] ?? 0;

  /** `up` SIGKILLed once `ready()` says so, every credential POST held back 1.5 s so that one is in flight. */
  const killedUp = (
    stack: SoakStack,
    victim: "cli" | "program",
    more: Record<string, string>,
    ready: () => Promise<boolean>,
  ) =>
    killUp({
      platform: rotating.platform,
      stack,
      config: config(more),
      victim,
      ready,
      faults: { latencyMs: 1500, routes: "POST /object-storage/buckets/" },
    });

  const create = "POST /object-storage/buckets/{bucketId}/credentials";
  const regenerate = "POST /object-storage/buckets/{bucketId}/credentials/{accessKeyId}/regenerate";

  for (const victim of ["cli", "program"] as const) {
    it(`a kill of the ${victim} during the create: the next up ends with the two credentials, no third`, async () => {
      const stack = await freshStack();
      // The first credential is made; the second one's create is on its way.
      const killed = await killedUp(stack, victim, { rotation: "1" }, async () => (await served(create)) >= 1);
      try {
        if (await stack.isLocked()) await ok(stack, "cancel");
        const up = await ok(stack, "up", { rotation: "1" });
        const bucket = output(up, "bucketName");
        expect(await credentialsOn(rotating.platform, bucket)).toEqual(
          [output(up, "accessKeyId"), output(up, "previousAccessKeyId")].sort(),
        );
        expect(await readOnce(pairOf(up), "none.txt")).toBe("NoSuchKey");
        expect(await readOnce(pairOf(up, "previous"), "none.txt")).toBe("NoSuchKey");
        await ok(stack, "destroy", { rotation: "1" });
        expect(await credentialsOn(rotating.platform, bucket)).toEqual([]);
      } finally {
        await endAll(killed);
      }
    });

    it(`a kill of the ${victim} during a rotation: the next up finishes it, the current credential untouched`, async () => {
      const stack = await freshStack();
      const created = await ok(stack, "up", { rotation: "1" });
      const bucket = output(created, "bucketName");
      await putObject(pairOf(created), "notes.txt", "hello");
      const reader = new S3Reader(pairOf(created), "notes.txt");
      try {
        const killed = await killedUp(stack, victim, { rotation: "2" }, async () => (await served(regenerate)) >= 1);
        try {
          // Whatever the kill left, the application's pair works, and the bucket holds two credentials.
          expect(await readOnce(pairOf(created), "notes.txt")).toBe("ok");
          expect((await credentialsOn(rotating.platform, bucket)).length).toBe(2);
          if (await stack.isLocked()) await ok(stack, "cancel");
          const rotated = await ok(stack, "up", { rotation: "2" });
          reader.use(pairOf(rotated));
          expect(rotated.outputs?.["rotations"]?.value).toBe(1);
          expect(output(rotated, "accessKeyId")).toBe(output(created, "previousAccessKeyId"));
          expect(output(rotated, "previousAccessKeyId")).toBe(output(created, "accessKeyId"));
          expect(output(rotated, "previousSecretFingerprint")).toBe(output(created, "secretFingerprint"));
          expect(await credentialsOn(rotating.platform, bucket)).toEqual(
            [output(rotated, "accessKeyId"), output(rotated, "previousAccessKeyId")].sort(),
          );
          expect(await readOnce(pairOf(rotated), "notes.txt")).toBe("ok");
          expect(await readOnce(pairOf(rotated, "previous"), "notes.txt")).toBe("ok");
          const again = await stack.run("preview", config({ rotation: "2" }));
          expect(changesOtherThanSame(again)).toEqual({});
        } finally {
          await endAll(killed);
        }
      } finally {
        expect((await reader.stop()).refused).toEqual([]);
      }
      await ok(stack, "destroy", { rotation: "2" });
      expect(await credentialsOn(rotating.platform, bucket)).toEqual([]);
    });
  }
});
