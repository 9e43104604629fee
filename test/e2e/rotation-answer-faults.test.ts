// RotatingBucketCredential exactly once (docs/api-contract.md §2.4) with the real engine against the
// emulator (examples/rotation): rotations while the platform loses, garbles and drops the answers of
// the credential calls. After each step the credentials on the platform are counted: never a third,
// never both slots unusable, and the next `up` finishes what a failed one left. Its kills and races:
// rotation-faults.test.ts; this file waits on no window.
import { describe, expect, it } from "vitest";
import { putObject, readOnce, S3Reader } from "../../scripts/lib/s3-reader.mts";
import type { Faults } from "../support/platform.mts";
import { useExampleStack } from "../support/hooks.js";
import { credentialsOn, pairOf, setting } from "./support/rotation.js";
import { changesOtherThanSame, output, type Config, type RunResult } from "../support/runner.js";

describe("rotations while the platform loses, garbles and drops the credential calls' answers", () => {
  const rotating = useExampleStack("rotation");
  // Only the credential calls: the application's S3 requests and the bucket's own calls go through
  // untouched. Seeded (§9), a seed per attempt: the same rolls every run, other rolls each attempt.
  const faults = (seed: number): Faults => ({
    loseRate: 0.15,
    garbleRate: 0.1,
    dropRate: 0.1,
    statusRates: { "503": 0.05 },
    routes: "/credentials",
    retryAfterSeconds: 0,
    seed,
  });

  // Rotations seconds apart, the reader on the pair of each up that went through: no wait needed.
  const rotationSetting = (rotation: string): Config => setting({ rotation, minimumOverlap: "0m" });
  let config: Config = rotationSetting("1");
  let last: RunResult;
  let bucketName = "";
  let reader: S3Reader;
  let seed = 2026;

  /** Both of the stack's credentials, and nothing else, are on the bucket; both pairs work. */
  async function expectTwoWorking(up: RunResult): Promise<void> {
    expect(await credentialsOn(rotating.platform, bucketName)).toEqual(
      [output(up, "accessKeyId"), output(up, "previousAccessKeyId")].sort(),
    );
    expect(await readOnce(pairOf(up), "notes.txt")).toBe("ok");
    expect(await readOnce(pairOf(up, "previous"), "notes.txt")).toBe("ok");
  }

  it("creates, then rotates five times under faults: one rotation per up, never a third credential, no read refused", async () => {
    let failedUps = 0;
    /** `up` under faults until one succeeds; after every attempt, the bucket holds two credentials at most. */
    const upUntilDone = async (): Promise<RunResult> => {
      for (let attempt = 1; attempt <= 4; attempt++) {
        expect(await rotating.platform.setFaults(faults(seed++))).toEqual({ accepted: true });
        const result = await rotating.stack.upFailing(config);
        await rotating.platform.clearFaults();
        if (bucketName !== "")
          expect((await credentialsOn(rotating.platform, bucketName)).length).toBeLessThanOrEqual(2);
        if (result.ok) return result;
        failedUps++;
        expect(result.error ?? "").toMatch(/CLOUDPLATFORM_/);
      }
      throw new Error("four ups in a row failed");
    };

    last = await upUntilDone();
    bucketName = output(last, "bucketName");
    await putObject(pairOf(last), "notes.txt", "hello");
    await expectTwoWorking(last);
    reader = new S3Reader(pairOf(last), "notes.txt");
    for (let rotation = 2; rotation <= 6; rotation++) {
      const before = last;
      config = rotationSetting(String(rotation));
      last = await upUntilDone();
      reader.use(pairOf(last));
      // One rotation exactly, whatever the faults made of the attempts.
      expect(last.outputs?.["rotations"]?.value).toBe(rotation - 1);
      expect(output(last, "accessKeyId")).toBe(output(before, "previousAccessKeyId"));
      expect(output(last, "previousAccessKeyId")).toBe(output(before, "accessKeyId"));
      await expectTwoWorking(last);
    }
    const injected = (await rotating.platform.stats()).injected;
    for (const kind of ["lose", "garble", "drop", "503"]) {
      expect(injected[kind] ?? 0, JSON.stringify(injected)).toBeGreaterThan(0);
    }
    console.info(
      `rotation under faults: ${failedUps} of the ups failed and were finished by the next; ${JSON.stringify(injected)}`,
    );
    expect(reader.reading().refused).toEqual([]);
  });

  it("fails a rotation whose regenerations are all answered unreadably, without harm, and the next up finishes it", async () => {
    const before = last;
    config = rotationSetting("7");
    expect(await rotating.platform.setFaults({ garbleRate: 1, routes: "/regenerate" })).toEqual({ accepted: true });
    const failed = await rotating.stack.upFailing(config);
    await rotating.platform.clearFaults();
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain("CLOUDPLATFORM_UNEXPECTED_RESPONSE");
    // The state keeps the current credential as it was, and says the previous one's secret is lost.
    const state = JSON.parse(await rotating.stack.exportState()) as {
      deployment: { resources: { type: string; outputs?: Record<string, unknown> }[] };
    };
    const outputs = state.deployment.resources.find((r) => r.type.endsWith(":RotatingBucketCredential"))?.outputs;
    expect(outputs).toMatchObject({
      accessKeyId: output(before, "accessKeyId"),
      secretFingerprint: output(before, "secretFingerprint"),
      previousAccessKeyId: output(before, "previousAccessKeyId"),
      previousStatus: "secretLost",
      previousSecretFingerprint: "",
      rotations: 5,
    });
    expect(await readOnce(pairOf(before), "notes.txt")).toBe("ok");
    expect((await credentialsOn(rotating.platform, bucketName)).length).toBe(2);

    last = await rotating.stack.up(config);
    reader.use(pairOf(last));
    expect(last.outputs?.["rotations"]?.value).toBe(6);
    expect(output(last, "accessKeyId")).toBe(output(before, "previousAccessKeyId"));
    expect(output(last, "previousSecretFingerprint")).toBe(output(before, "secretFingerprint"));
    await expectTwoWorking(last);
    expect(changesOtherThanSame(await rotating.stack.preview(config))).toEqual({});
  });

  it("destroys both credentials; the application met no refusal throughout", async () => {
    const reading = await reader.stop();
    expect(reading.refused).toEqual([]);
    expect(reading.ok).toBeGreaterThan(20);
    await rotating.stack.destroy();
    expect(await credentialsOn(rotating.platform, bucketName)).toEqual([]);
  });
});
