// cloudplatform-import with the real engine against the emulator (paged lists): a stack moved from
// the dynamic SDK to the plugin (a YAML project) and back, each time the command's --release leaving
// the old stack holding none of the objects and its destroy deleting nothing on the platform; the
// secrets the old stack knows carried over, never printed. (The import of objects made behind
// Pulumi's back: cloudplatform-import.test.ts.)
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startEmulator } from "../../emulator/src/index.js";
import { providerConfig, type Emulator } from "../support/emulator.js";
import { Platform, type EmulatorInventory } from "../support/platform.mts";
import { changesOtherThanSame, ExampleStack } from "../support/runner.js";
import {
  expectNoSecret,
  ofThisPackage,
  resourcesOf,
  toolsFor,
  typescriptProgram,
  usePackedForImport,
  writes,
  type ImportTools,
} from "./support/import.js";
import { roundTrip } from "./support/s3.js";

const packed = usePackedForImport();

function inventory(emulator: Emulator): Promise<EmulatorInventory> {
  return new Platform(emulator).objects();
}

/** The credentials' secrets a stack's state knows: `pulumi stack export --show-secrets`, read by the test. */
function knownSecrets(exported: string): Map<string, { bucketName: string; secret: string }> {
  const known = new Map<string, { bucketName: string; secret: string }>();
  for (const r of resourcesOf(exported).filter((x) => x.type.endsWith(":BucketCredential"))) {
    const value = r.outputs?.["secretAccessKey"] as { plaintext?: string } | string | undefined;
    const secret = typeof value === "string" ? value : JSON.parse(value?.plaintext ?? '""');
    known.set(String(r.outputs?.["accessKeyId"]), { bucketName: String(r.outputs?.["bucketName"]), secret });
  }
  return known;
}

describe("moving a stack from the dynamic SDK to the plugin and back", () => {
  let emulator: Emulator;
  let scratch: string;
  let tools: ImportTools;
  let stateDir: string;
  let old: ExampleStack;
  let moved: ExampleStack | undefined;
  let yamlDir: string;
  /** What the dynamic stack made, and the secrets it knows. */
  let secrets: Map<string, { bucketName: string; secret: string }>;
  let platform: EmulatorInventory;

  async function expectSecretsWork(): Promise<void> {
    for (const [accessKeyId, c] of secrets) {
      const access = {
        endpoint: emulator.s3Url,
        region: "us-east-1",
        bucket: c.bucketName,
        accessKeyId,
        secretAccessKey: c.secret,
      };
      expect(await roundTrip(access), accessKeyId).toBe("ok");
    }
  }

  beforeAll(async () => {
    emulator = await startEmulator({ logger: silentLogger, pageSize: 3 });
    scratch = packed().scratch;
    stateDir = path.join(scratch, "move-state");
    tools = await toolsFor(packed(), stateDir, emulator);
    old = await ExampleStack.create(
      "soak",
      {
        ...providerConfig(emulator),
        "cloudplatform-soak:buckets": { value: "3" },
        "cloudplatform-soak:credentialsPerBucket": { value: "2" },
        "cloudplatform-soak:zones": { value: "2" },
        "cloudplatform-soak:namePrefix": { value: "moved" },
      },
      { stateDir },
    );
    expect((await old.up()).changes).toMatchObject({ create: 12 });
    secrets = knownSecrets(await tools.pulumi(old.workDir, ["stack", "export", "--show-secrets", "--stack", "e2e"]));
    expect(secrets.size).toBe(6);
    for (const { secret } of secrets.values()) expect(secret.length).toBeGreaterThan(20);
    platform = await inventory(emulator);
    yamlDir = path.join(scratch, "moved-yaml");
  });
  afterAll(async () => {
    await moved?.dispose();
    await old?.dispose();
    await emulator?.close();
  });

  it("dynamic SDK → plugin: imported unchanged; --release leaves the old stack holding none of them, nothing deleted", async () => {
    const before = await writes(emulator);
    await tools.yamlProject(yamlDir, "cloudplatform-moved-yaml");
    const from = ["--from", "e2e", "--from-cwd", old.workDir];
    const { stdout } = await tools.importCommand(yamlDir, from);
    expect(stdout).toContain("2 zones, 3 buckets, 6 credentials to import (11 objects)");
    await tools.importInto(yamlDir, ["cloudplatform-import.json"]);
    await tools.pulumi(yamlDir, ["preview", "--expect-no-changes"]);

    const dry = await tools.importCommand(yamlDir, [...from, "--release", "--dry-run"]);
    expect(dry.stdout).toContain("pulumi state delete");
    expect(resourcesOf(await old.exportState()).filter(ofThisPackage)).toHaveLength(11);
    const released = await tools.importCommand(yamlDir, [...from, "--release"]);
    expect(released.stdout).toContain("carried 6 secret(s) stack e2e knows to stack e2e (secretKnown: true)");
    expect(released.stdout).toContain("removed 11 resource(s) from stack e2e's state");
    for (const { secret } of secrets.values()) expect(released.stdout + released.stderr).not.toContain(secret);

    expect(resourcesOf(await old.exportState()).filter(ofThisPackage)).toEqual([]);
    const exported = await tools.pulumi(yamlDir, ["stack", "export"]);
    expectNoSecret(
      exported,
      [...secrets.values()].map((s) => s.secret),
      emulator,
    );
    const credentials = resourcesOf(exported).filter((r) => r.type === "cloudplatform:index:BucketCredential");
    for (const c of credentials) expect(c.outputs?.["secretKnown"]).toBe(true);
    const carried = knownSecrets(await tools.pulumi(yamlDir, ["stack", "export", "--show-secrets"]));
    expect(carried).toEqual(secrets);
    await tools.pulumi(yamlDir, ["preview", "--expect-no-changes"]);

    // The old stack lets them go: its destroy deletes nothing on the platform.
    await old.destroy();
    expect(await inventory(emulator)).toEqual(platform);
    expect(await writes(emulator)).toBe(before);
    await expectSecretsWork();
  });

  it("plugin → dynamic SDK: the written program takes them over unchanged; --release empties the YAML stack", async () => {
    const before = await writes(emulator);
    const outside = path.join(scratch, "moved-out");
    await mkdir(outside, { recursive: true });
    // No stack to go into yet: the settings come from the old stack's config.
    const { stdout } = await tools.importCommand(outside, ["--from", "e2e", "--from-cwd", yamlDir]);
    expect(stdout).toContain("2 zones, 3 buckets, 6 credentials to import (11 objects)");
    await typescriptProgram(
      path.join(scratch, "moved-src"),
      "moved-ts",
      path.join(outside, "cloudplatform-imported.ts"),
    );
    moved = await ExampleStack.create("moved-ts", providerConfig(emulator), {
      sourceRoot: path.join(scratch, "moved-src"),
      stateDir,
    });
    expect(changesOtherThanSame(await moved.up())).toEqual({ create: 12 });
    expect(changesOtherThanSame(await moved.preview())).toEqual({});

    const released = await tools.importCommand(moved.workDir, [
      "--stack",
      "e2e",
      "--from",
      "e2e",
      "--from-cwd",
      yamlDir,
      "--release",
    ]);
    expect(released.stdout).toContain("carried 6 secret(s)");
    expect(released.stdout).toContain("removed 11 resource(s) from stack e2e's state");
    const exported = await moved.exportState();
    expectNoSecret(
      exported,
      [...secrets.values()].map((s) => s.secret),
      emulator,
    );
    for (const c of resourcesOf(exported).filter((r) => r.type.endsWith(":BucketCredential"))) {
      expect(c.outputs?.["secretKnown"]).toBe(true);
    }
    expect(changesOtherThanSame(await moved.preview())).toEqual({});
    const yamlState = resourcesOf(await tools.pulumi(yamlDir, ["stack", "export"]));
    expect(yamlState.filter(ofThisPackage)).toEqual([]);
    await tools.pulumi(yamlDir, ["destroy", "--yes"]);
    expect(await inventory(emulator)).toEqual(platform);
    expect(await writes(emulator)).toBe(before);
    await expectSecretsWork();
  });
});
