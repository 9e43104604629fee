// Issue 37, item 3, with the real engine against the emulator: an `up` that rotates a
// RotatingBucketCredential and then fails on another resource leaves the stack's outputs with the old
// pair, where applications read it. The next `up` that asks for a rotation must not regenerate that
// pair: it waits for `minimumOverlap` (a warning says why and until when), and the first `up` after
// that time rotates with no further change. An S3 client reads throughout with the pair the stack's
// outputs give it; none of its requests is refused.
//
// The program is examples/rotation with one resource added after the credential, and exported: a
// Bucket the platform refuses at create (its name is taken) while `laterBucketName` is set.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putObject, readOnce, S3Reader } from "../../scripts/lib/s3-reader.mts";
import { providerConfig } from "../support/emulator.js";
import { useEmulator } from "../support/hooks.js";
import { changesOtherThanSame, ExampleStack, output, type Config, type RunResult } from "../support/runner.js";
import { pairOf, setting } from "./support/rotation.js";

const repoRoot = path.resolve(__dirname, "..", "..");
const project = "cloudplatform-rotation";

/**
 * What the test adds to examples/rotation/index.ts: a resource made after the credential, refused by
 * the platform while laterBucketName names a bucket that exists, so that an up rotates, then fails.
 * The stack exports one of its outputs, as a program that exports what it makes does: a failed
 * resource then leaves the stack's outputs as the last up that went through wrote them.
 */
const laterResource = `
const laterBucketName = config.get("laterBucketName");
const later =
  laterBucketName === undefined
    ? undefined
    : new cloudplatform.Bucket("later", { name: laterBucketName }, { dependsOn: [app] });
export const laterBucketId = later === undefined ? "" : later.bucketId;
`;

interface Exported {
  deployment: { resources: { type: string; outputs?: Record<string, unknown> }[] };
}

/** The outputs `pulumi stack export` holds for the stack itself and for the credential. */
function exportedOutputs(exported: string): { stack: Record<string, unknown>; credential: Record<string, unknown> } {
  const resources = (JSON.parse(exported) as Exported).deployment.resources;
  const of = (suffix: string) => resources.find((r) => r.type.endsWith(suffix))?.outputs ?? {};
  return { stack: of("pulumi:pulumi:Stack"), credential: of(":RotatingBucketCredential") };
}

describe("a rotation asked for right after an up that rotated and failed waits for minimumOverlap", () => {
  const platform = useEmulator();
  let scratch: string;
  let stack: ExampleStack;
  let reader: S3Reader;
  // Short enough to wait for here, long enough for the steps that must fall within it (an engine
  // operation took up to 30 s here with four test runs sharing two cores).
  const overlap = "3m";
  const overlapMs = 180_000;
  let config: Config = setting({ rotation: "1", minimumOverlap: overlap });
  /** The last up that went through: the stack's outputs, what the application reads. */
  let outputs: RunResult;
  /** The outputs of the create, whose pair the application keeps through the failed up. */
  let created: RunResult;
  /** When the failed up rotated. */
  let rotatedAt: number;

  const up = async (more: Record<string, string>, removed: readonly string[] = []): Promise<RunResult> => {
    config = { ...config, ...setting(more) };
    outputs = await stack.up(
      config,
      removed.map((key) => `${project}:${key}`),
    );
    reader.use(pairOf(outputs));
    return outputs;
  };

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-e2e-rotation-overlap-"));
    const example = path.join(repoRoot, "examples", "rotation");
    const dir = path.join(scratch, "rotation");
    await mkdir(dir, { recursive: true });
    for (const file of ["Pulumi.yaml", "package.json", "tsconfig.json"]) {
      await copyFile(path.join(example, file), path.join(dir, file));
    }
    await writeFile(
      path.join(dir, "index.ts"),
      (await readFile(path.join(example, "index.ts"), "utf8")) + laterResource,
    );
    stack = await ExampleStack.create("rotation", providerConfig(platform.emulator), { sourceRoot: scratch });
  });

  afterAll(async () => {
    await reader?.stop();
    await stack?.dispose();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("creates the credentials; the application reads with the pair of the stack's outputs", async () => {
    created = await stack.up(config);
    outputs = created;
    expect(changesOtherThanSame(created)).toEqual({ create: 3 });
    await putObject(pairOf(created), "notes.txt", "hello");
    reader = new S3Reader(pairOf(created), "notes.txt");
  });

  it("an up that rotates and then fails on another resource keeps the old pair in the stack's outputs", async () => {
    const failed = await stack.upFailing({
      ...config,
      ...setting({ rotation: "2", laterBucketName: output(created, "bucketName") }),
    });
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain("name_taken");
    const { stack: stackOutputs, credential } = exportedOutputs(await stack.exportState());
    // The credential rotated: its state holds the new pair as current ...
    expect(credential).toMatchObject({
      rotations: 1,
      accessKeyId: output(created, "previousAccessKeyId"),
      previousAccessKeyId: output(created, "accessKeyId"),
    });
    // ... while the stack's outputs, where the application reads, still give the old one.
    expect(stackOutputs["accessKeyId"]).toBe(output(created, "accessKeyId"));
    rotatedAt = Date.parse(String(credential["rotatedAt"]));
    expect(await readOnce(pairOf(created), "notes.txt")).toBe("ok");
  });

  it("the next up that asks for a rotation waits, with a warning: the pair of the outputs still works", async () => {
    const waited = await up({ rotation: "3" }, ["laterBucketName"]);
    const withinOverlap = (what: string) =>
      expect(Date.now(), `${what} ended within the overlap (a machine too slow?)`).toBeLessThan(rotatedAt + overlapMs);
    withinOverlap("the up");
    // The pair the application held until this up (the outputs' before the failed up) still works,
    // and none of its requests was refused during the up.
    expect(await readOnce(pairOf(created), "notes.txt")).toBe("ok");
    expect(reader.reading().refused).toEqual([]);
    const until = new Date(rotatedAt + overlapMs).toISOString();
    expect(waited.stdout).toContain(`rotation due (rotateWhenChanged changed) waits until ${until}`);
    expect(waited.stdout).toContain(`less than minimumOverlap ${overlap} ago`);
    // Nothing rotated: the outputs now give the pair the failed up made current.
    expect(waited.outputs?.["rotations"]?.value).toBe(1);
    expect(output(waited, "accessKeyId")).toBe(output(created, "previousAccessKeyId"));
    expect(output(waited, "previousAccessKeyId")).toBe(output(created, "accessKeyId"));
    expect(await readOnce(pairOf(waited), "notes.txt")).toBe("ok");
    // While it waits, a preview plans no change (`--expect-no-changes` passes) and warns again; a
    // refresh keeps the rotation due.
    expect(changesOtherThanSame(await stack.refresh())).toEqual({});
    const preview = await stack.preview(config);
    withinOverlap("the preview");
    expect(changesOtherThanSame(preview)).toEqual({});
    expect(preview.stdout).toContain(`waits until ${until}`);
  });

  it("once the overlap has passed, the next up rotates with no further change", async () => {
    while (Date.now() < rotatedAt + overlapMs + 1_000) await new Promise((resolve) => setTimeout(resolve, 500));
    const before = outputs;
    const due = await stack.preview(config);
    expect(changesOtherThanSame(due)).toEqual({ update: 1 });
    expect(due.stdout).toContain("rotation due (rotateWhenChanged changed): this update regenerates the secret of");
    const rotated = await up({});
    expect(rotated.outputs?.["rotations"]?.value).toBe(2);
    expect(output(rotated, "accessKeyId")).toBe(output(before, "previousAccessKeyId"));
    expect(output(rotated, "previousAccessKeyId")).toBe(output(before, "accessKeyId"));
    // The pair of the last up still works; the one before it, regenerated now, no longer does.
    expect(await readOnce(pairOf(before), "notes.txt")).toBe("ok");
    expect(await readOnce(pairOf(created), "notes.txt")).toBe("SignatureDoesNotMatch");
    const after = await stack.preview(config);
    expect(changesOtherThanSame(after)).toEqual({});
    expect(after.stdout).not.toContain("waits until");
    const reading = await reader.stop();
    expect(reading.refused).toEqual([]);
    expect(reading.ok).toBeGreaterThan(20);
  });

  it("destroy deletes both credentials and the bucket", async () => {
    await stack.destroy();
    expect((await platform.platform.inventory()).buckets).toEqual([]);
  });
});
