// RotatingBucketCredential with the real engine against the emulator (examples/rotation): rotations in
// a row while an S3 client reads objects throughout with the pair the last `up` gave it (no request
// refused), the secret that changes named by its fingerprint in the preview, the schedule firing
// without a refresh, outside changes seen by `refresh` and repaired by `up` without touching the
// current credential, and no secret in `pulumi stack export`. The bucket's credentials are counted
// on the platform after each step: always two.
import { afterAll, describe, expect, it } from "vitest";
import { putObject, readOnce, S3Reader } from "../../scripts/lib/s3-reader.mts";
import { bucketIdByName, management } from "../support/emulator.js";
import { useExampleStack } from "../support/hooks.js";
import { expectAtRest } from "./support/lifecycle.js";
import { pairOf, setting } from "./support/rotation.js";
import { changesOtherThanSame, output, type Config, type RunResult } from "../support/runner.js";

const project = "cloudplatform-rotation";

const value = (up: RunResult, name: string): unknown => up.outputs?.[name]?.value;

describe("RotatingBucketCredential, rotated while an application reads its bucket", () => {
  const rotating = useExampleStack("rotation");
  let last: RunResult;
  let reader: S3Reader | undefined;
  /** Every secret the stack's outputs showed, to look for in its export. */
  const secrets = new Set<string>();
  let config: Config = {};

  /** The bucket's credentials on the platform. */
  async function credentialsOnBucket(): Promise<string[]> {
    const bucket = (await rotating.platform.inventory()).buckets.find((b) => b.name === output(last, "bucketName"));
    return [...(bucket?.credentials ?? [])].sort();
  }

  /**
   * An `up` with `more` config (and without `removed`), its outputs noted; the bucket holds exactly
   * the stack's two credentials.
   */
  async function up(more: Record<string, string> = {}, removed: readonly string[] = []): Promise<RunResult> {
    config = Object.fromEntries(
      Object.entries({ ...config, ...setting(more) }).filter(([key]) => !removed.includes(key.split(":")[1] ?? "")),
    );
    last = await rotating.stack.up(
      config,
      removed.map((key) => `${project}:${key}`),
    );
    for (const role of ["current", "previous"] as const) {
      const secret = pairOf(last, role).secretAccessKey;
      if (secret !== "") secrets.add(secret);
    }
    reader?.use(pairOf(last));
    expect(await credentialsOnBucket()).toEqual(
      [output(last, "accessKeyId"), output(last, "previousAccessKeyId")].sort(),
    );
    return last;
  }

  afterAll(async () => {
    await reader?.stop();
  });

  it("creates two working credentials, one current; a preview and a refresh right after change nothing", async () => {
    // Rotations seconds apart, the reader on the pair of each up, which all succeed: no wait needed
    // (rotation-overlap.test.ts covers the wait).
    const created = await up({ rotation: "1", minimumOverlap: "0m" });
    expect(created.changes).toEqual({ create: 3 });
    expect(value(created, "currentSlot")).toBe("a");
    expect(value(created, "rotations")).toBe(0);
    expect(created.outputs?.["secretAccessKey"]?.secret).toBe(true);
    expect(created.outputs?.["previousSecretAccessKey"]?.secret).toBe(true);
    expect(created.outputs?.["secretFingerprint"]?.secret).toBe(false);
    expect(Date.parse(output(created, "nextRotationAt"))).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(await readOnce(pairOf(created), "missing.txt")).toBe("NoSuchKey");
    expect(await readOnce(pairOf(created, "previous"), "missing.txt")).toBe("NoSuchKey");
    await expectAtRest(rotating.stack);
  });

  it("rotates five times in a row while an S3 client reads throughout with the pair of the last up: none refused", async () => {
    await putObject(pairOf(last), "notes.txt", "hello");
    reader = new S3Reader(pairOf(last), "notes.txt");
    for (let rotation = 2; rotation <= 6; rotation++) {
      const before = last;
      // The preview shows the rotation, and which secret it changes by its fingerprint.
      const preview = await rotating.stack.preview({ ...config, ...setting({ rotation: String(rotation) }) });
      expect(changesOtherThanSame(preview)).toEqual({ update: 1 });
      const next = before.outputs?.["currentSlot"]?.value === "a" ? "b" : "a";
      expect(preview.stdout).toContain(
        `regenerates the secret of the previous credential ${output(before, "previousAccessKeyId")} (slot ${next}, ` +
          `secret fingerprint ${output(before, "previousSecretFingerprint")}) and makes slot ${next} current`,
      );
      expect(preview.stdout).toContain(`secret fingerprint ${output(before, "secretFingerprint")}) stays valid`);
      const rotated = await up({ rotation: String(rotation) });
      expect(changesOtherThanSame(rotated)).toEqual({ update: 1 });
      // The previous credential became current with a new secret; the current one became previous, unchanged.
      expect(output(rotated, "accessKeyId")).toBe(output(before, "previousAccessKeyId"));
      expect(output(rotated, "secretFingerprint")).not.toBe(output(before, "previousSecretFingerprint"));
      expect(output(rotated, "previousAccessKeyId")).toBe(output(before, "accessKeyId"));
      expect(output(rotated, "previousSecretFingerprint")).toBe(output(before, "secretFingerprint"));
      expect(value(rotated, "rotations")).toBe(rotation - 1);
      // The pair the application used until now still works; the one before it no longer does.
      expect(await readOnce(pairOf(before), "notes.txt")).toBe("ok");
      expect(await readOnce(pairOf(before, "previous"), "notes.txt")).toBe("SignatureDoesNotMatch");
    }
    const reading = reader.reading();
    expect(reading.refused).toEqual([]);
    expect(reading.ok).toBeGreaterThan(50);
    await expectAtRest(rotating.stack);
  });

  it("sees outside changes on refresh, and up repairs them without touching the current credential", async () => {
    const current = { id: output(last, "accessKeyId"), print: output(last, "secretFingerprint") };
    const credentials = `/object-storage/buckets/${await bucketIdByName(rotating.emulator, output(last, "bucketName"))}/credentials`;
    const outside = async (action: string, accessKeyId: string) => {
      const path = `${credentials}/${accessKeyId}${action === "delete" ? "" : `/${action}`}`;
      const response = await management(rotating.emulator, action === "delete" ? "DELETE" : "POST", path);
      expect(response.ok, `${action} ${accessKeyId}: ${response.status}`).toBe(true);
    };
    for (const action of ["regenerate", "deactivate", "delete"]) {
      await outside(action, output(last, "previousAccessKeyId"));
      const refreshed = await rotating.stack.refresh();
      expect(changesOtherThanSame(refreshed), `refresh after ${action}`).toEqual({ update: 1 });
      const repaired = await up();
      expect(changesOtherThanSame(repaired), `up after ${action}`).toEqual({ update: 1 });
      expect(value(repaired, "previousStatus")).toBe("active");
      expect(await readOnce(pairOf(repaired, "previous"), "notes.txt")).toBe("ok");
      // The current credential, which worked all along, is the same, with the same secret.
      expect({ id: output(repaired, "accessKeyId"), print: output(repaired, "secretFingerprint") }).toEqual(current);
      await expectAtRest(rotating.stack);
    }
    expect(reader?.reading().refused).toEqual([]);
  });

  it("rotates on its schedule and deactivates the previous credential after its grace period, with no refresh", async () => {
    // Set right after a rotation, so neither is due yet.
    await up({ rotation: "7" });
    const rotatedAt = Date.parse(output(last, "rotatedAt"));
    await up({ rotateAfter: "2m", deactivatePreviousAfter: "1m" });
    expect(output(last, "nextRotationAt")).toBe(new Date(rotatedAt + 120_000).toISOString());
    const waitUntil = async (ms: number) => {
      while (Date.now() < ms) await new Promise((resolve) => setTimeout(resolve, 500));
    };

    await waitUntil(rotatedAt + 61_000);
    const graceOver = await rotating.stack.preview(config);
    expect(changesOtherThanSame(graceOver)).toEqual({ update: 1 });
    expect(graceOver.stdout).toContain("deactivatePreviousAfter 1m has passed since the last rotation");
    const retiredPair = pairOf(last, "previous");
    await up();
    expect(value(last, "previousStatus")).toBe("inactive");
    expect(await readOnce(retiredPair, "notes.txt")).toBe("InvalidAccessKeyId");
    expect(changesOtherThanSame(await rotating.stack.preview(config))).toEqual({});
    // Had the rotation come due already, the steps above would have met it: say so rather than fail later.
    expect(Date.now(), "the grace period's steps ended before the rotation was due (a machine too slow?)").toBeLessThan(
      rotatedAt + 120_000,
    );

    await waitUntil(rotatedAt + 121_000);
    const due = await rotating.stack.preview(config);
    expect(changesOtherThanSame(due)).toEqual({ update: 1 });
    expect(due.stdout).toContain("rotation due (rotateAfter 2m");
    const before = last;
    await up();
    expect(value(last, "rotations")).toBe(Number(value(before, "rotations")) + 1);
    expect(output(last, "accessKeyId")).toBe(output(before, "previousAccessKeyId"));
    expect(value(last, "previousStatus")).toBe("active");
    expect(await readOnce(pairOf(last), "notes.txt")).toBe("ok");
    expect(await readOnce(pairOf(before), "notes.txt")).toBe("ok");
    await up({ rotateAfter: "30d" }, ["deactivatePreviousAfter"]);
    expect(changesOtherThanSame(await rotating.stack.preview(config))).toEqual({});
    expect(reader?.reading().refused).toEqual([]);
  }, 420_000);

  it("never writes a secret into `pulumi stack export`; the fingerprints are there", async () => {
    const exported = await rotating.stack.exportState();
    expect(secrets.size).toBeGreaterThan(8);
    for (const secret of [...secrets, rotating.emulator.apiKey]) expect(exported.includes(secret)).toBe(false);
    expect(exported).toContain(output(last, "secretFingerprint"));
  });

  it("destroy deletes both credentials", async () => {
    const reading = await reader?.stop();
    reader = undefined;
    expect(reading?.refused).toEqual([]);
    await rotating.stack.destroy();
    expect((await rotating.platform.inventory()).buckets).toEqual([]);
  });
});
