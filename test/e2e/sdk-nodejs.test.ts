// The generated Node.js SDK (sdks/nodejs, @pulumi-cloudplatform/sdk) run against the plugin, as a
// TypeScript user runs it: `npm run sdk:pack` builds it with tsc and packs it, the tarball is
// installed with @pulumi/pulumi into an empty program folder, the plugin is installed from its
// tarball into a PULUMI_HOME of its own, and an inline program over the SDK's classes and lookups
// goes through create, a preview with no change, an update, refresh and destroy with the real
// engine, against the emulator, with nothing of this repository on the engine's PATH.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, management, providerConfig, type Emulator } from "../support/emulator.js";
import { emulatorState } from "../support/platform.mts";
import { npmInstall, packSdk } from "./support/packages.js";
import { packPlugin, PluginSandbox, pulumiBinDir, repoRoot } from "./support/plugin-cli.js";
import { roundTrip, type S3Access } from "./support/s3.js";
// Types only: the program runs in a child process, never inside vitest.
import type { SdkProgramAnswer, SdkProgramRequest } from "./support/sdk-program.mts";

const run = promisify(execFile);
const sdkProgram = path.join(repoRoot, "test", "e2e", "support", "sdk-program.mts");

let scratch: string;
let sdkTarball: string;
let sandbox: PluginSandbox;
let emulator: Emulator;
let workDir: string;
let credentialActive = true;

async function op(name: SdkProgramRequest["op"]): Promise<SdkProgramAnswer> {
  const request: SdkProgramRequest = {
    op: name,
    pulumiBinDir: await pulumiBinDir(),
    workDir,
    config: providerConfig(emulator),
    zoneName: "sdk-nodejs.example",
    credentialActive,
  };
  const { stdout } = await run(process.execPath, [sdkProgram, JSON.stringify(request)], {
    cwd: workDir,
    env: sandbox.env,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as SdkProgramAnswer;
  if (!answer.ok) throw new Error(`${name} failed: ${answer.error}`);
  return answer;
}

const value = (a: SdkProgramAnswer, key: string): string => String(a.outputs?.[key]?.value);
const access = (a: SdkProgramAnswer): S3Access => ({
  endpoint: value(a, "s3Endpoint"),
  region: value(a, "region"),
  bucket: value(a, "bucketName"),
  accessKeyId: value(a, "accessKeyId"),
  secretAccessKey: value(a, "secretAccessKey"),
});

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-sdk-nodejs-"));
  const pulumiVersion = (
    createRequire(path.join(repoRoot, "package.json"))("@pulumi/pulumi/package.json") as { version: string }
  ).version;
  let pluginTarball: string;
  [sdkTarball, pluginTarball] = await Promise.all([packSdk(scratch), packPlugin(scratch)]);
  [sandbox, emulator] = await Promise.all([PluginSandbox.create(pluginTarball, []), launchEmulator()]);
  workDir = path.join(sandbox.root, "program");
  await mkdir(workDir);
  await npmInstall(workDir, [sdkTarball, `@pulumi/pulumi@${pulumiVersion}`]);
});
afterAll(async () => {
  await emulator?.close();
  await sandbox?.dispose();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the generated Node.js SDK, built, installed and run against the installed plugin", () => {
  let first: SdkProgramAnswer;

  it("is installed from its packed tarball: compiled code and declarations at the package's root", async () => {
    const sdk = path.join(workDir, "node_modules", "@pulumi-cloudplatform", "sdk");
    const manifest = JSON.parse(await readFile(path.join(sdk, "package.json"), "utf8")) as {
      name: string;
      pulumi: { resource: boolean; name: string; version: string };
    };
    expect(manifest.name).toBe("@pulumi-cloudplatform/sdk");
    expect(manifest.pulumi).toMatchObject({ resource: true, name: "cloudplatform" });
    await readFile(path.join(sdk, "index.js"));
    await readFile(path.join(sdk, "bucket.d.ts"));
  });

  it("up creates a Bucket, a BucketCredential and a DnsZone through the plugin; the lookups answer; the credential works", async () => {
    first = await op("up");
    expect(first.changes).toEqual({ create: 4 });
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 1, zones: 1 });
    expect(value(first, "accessKeyId")).toMatch(/^CPAK/);
    expect(value(first, "zoneId")).toMatch(/^zone_/);
    expect(first.outputs?.["nameservers"]?.value).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(value(first, "lookedUpZoneId")).toBe(value(first, "zoneId"));
    expect(first.outputs?.["listedCredentials"]?.value).toEqual([
      expect.objectContaining({ accessKeyId: value(first, "accessKeyId"), active: true }),
    ]);
    expect(await roundTrip(access(first))).toBe("ok");
  });

  it("secrets stay secret: marked so, and absent from `pulumi stack export` without --show-secrets", async () => {
    expect(first.outputs?.["secretAccessKey"]?.secret).toBe(true);
    expect(first.outputs?.["accessKeyId"]?.secret).toBe(false);
    const { stdout } = await sandbox.cli(workDir, ["stack", "export", "--stack", "dev"]);
    expect(stdout).toContain(value(first, "accessKeyId"));
    for (const secret of [value(first, "secretAccessKey"), emulator.apiKey]) {
      expect(secret.length).toBeGreaterThan(20);
      expect(stdout.includes(secret)).toBe(false);
    }
  });

  it("a preview right after plans no change", async () => {
    expect((await op("preview")).changes).toEqual({ same: 4 });
  });

  it("an update deactivates the credential in place: same access key id, S3 refuses it", async () => {
    credentialActive = false;
    const down = await op("up");
    expect(down.changes).toEqual({ same: 3, update: 1 });
    expect(value(down, "accessKeyId")).toBe(value(first, "accessKeyId"));
    expect(down.outputs?.["active"]?.value).toBe(false);
    expect(await roundTrip(access(first))).not.toBe("ok");
    expect((await op("preview")).changes).toEqual({ same: 4 });
  });

  it("refresh finds no change, then finds the change made outside Pulumi", async () => {
    expect((await op("refresh")).changes).toEqual({ same: 4 });
    const credential = `/object-storage/buckets/${value(first, "bucketId")}/credentials/${value(first, "accessKeyId")}`;
    expect((await management(emulator, "POST", `${credential}/activate`)).status).toBe(200);
    expect((await op("refresh")).changes).toEqual({ same: 3, update: 1 });
    // The program still says inactive: the next up puts it back.
    expect((await op("up")).changes).toEqual({ same: 3, update: 1 });
    expect(await roundTrip(access(first))).not.toBe("ok");
  });

  it("destroy leaves the emulator empty", async () => {
    expect((await op("destroy")).changes).toEqual({ delete: 4 });
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0, zones: 0 });
  });
});
