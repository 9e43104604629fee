// Stacks written by earlier versions keep working with this one, with the real engine against the
// emulator: no change planned, refresh, an in-place update and destroy all go through. Two old
// shapes: before the provider text named its resources (through 648af61: the per-type shim line,
// and the logical name and stack as `__logicalName` / `__stack` in every bag), and a SyncedFolder
// whose manifest was two maps (`files` in its inputs and outputs, `etags` in its outputs) before it
// became one string. Each old state is this version's own, rewritten to the old shape (what
// `pulumi stack export` showed of it then), and imported.
import { appendFile } from "node:fs/promises";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { useExampleStack } from "../support/hooks.js";
import { emulatorState } from "../support/platform.mts";
import { changesOtherThanSame, output, type RunResult } from "../support/runner.js";
import { bucketRequests, requestsBetween } from "./support/objects.js";
import { accessFrom, roundTrip, type S3Access } from "./support/s3.js";

interface StateResource {
  urn: string;
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  propertyDependencies?: Record<string, string[]>;
}
interface Exported {
  deployment: { resources: StateResource[] };
}

const ours = (r: StateResource) => r.type.startsWith("pulumi-nodejs:dynamic/cloudplatform:");

/** The state as the version before wrote it: the per-type shim line, the host keys in both bags. */
function asWrittenBefore(exported: string, stack: string): string {
  const state = JSON.parse(exported) as Exported;
  for (const r of state.deployment.resources.filter(ours)) {
    const type = r.type.split(":").pop() ?? "";
    const text = `exports.handler = () => require("pulumi-cloudplatform/shims/${type[0]?.toLowerCase()}${type.slice(1)}Provider");\n`;
    const keys = { __logicalName: r.urn.split("::").pop(), __provider: text, __stack: stack };
    r.inputs = { ...r.inputs, ...keys };
    r.outputs = { ...r.outputs, ...keys };
    r.propertyDependencies = { ...r.propertyDependencies, __logicalName: [], __stack: [] };
  }
  return JSON.stringify(state);
}

describe("a stack written before the provider text named its resources", () => {
  const lifecycle = useExampleStack("credential-lifecycle");
  let accessKeyId: string;

  beforeAll(async () => {
    const up = await lifecycle.stack.up();
    accessKeyId = output(up, "accessKeyId");
    const exported = await lifecycle.stack.exportState();
    await lifecycle.stack.importState(asWrittenBefore(exported, "organization/cloudplatform-credential-lifecycle/e2e"));
  });

  it("holds the old shape after the import (the test's premise)", async () => {
    const state = JSON.parse(await lifecycle.stack.exportState()) as Exported;
    const bucket = state.deployment.resources.find((r) => r.type.endsWith(":Bucket"));
    expect(bucket?.outputs).toMatchObject({
      __logicalName: "uploads",
      __stack: "organization/cloudplatform-credential-lifecycle/e2e",
      __provider: 'exports.handler = () => require("pulumi-cloudplatform/shims/bucketProvider");\n',
    });
  });

  it("plans no change, and the up after it changes nothing", async () => {
    expect(changesOtherThanSame(await lifecycle.stack.preview())).toEqual({});
    expect(changesOtherThanSame(await lifecycle.stack.up())).toEqual({});
  });

  it("refreshes through the old text the outputs still hold, finding no drift", async () => {
    const state = JSON.parse(await lifecycle.stack.exportState()) as Exported;
    const credential = state.deployment.resources.find((r) => r.type.endsWith(":BucketCredential"));
    // A `same` step keeps the old outputs: their text is the per-type shim line, read by its host keys.
    expect(String(credential?.outputs?.["__provider"])).toContain("shims/bucketCredentialProvider");
    expect(String(credential?.inputs?.["__provider"])).toContain('.of("BucketCredential","uploader",');
    expect(changesOtherThanSame(await lifecycle.stack.refresh())).toEqual({});
  });

  it("deactivates and rotates in place, and writes the state in the new shape", async () => {
    const deactivated = await lifecycle.stack.up({ "cloudplatform-credential-lifecycle:active": { value: "false" } });
    expect(deactivated.changes).toMatchObject({ update: 1 });
    const rotated = await lifecycle.stack.up({
      "cloudplatform-credential-lifecycle:active": { value: "true" },
      "cloudplatform-credential-lifecycle:rotation": { value: "2" },
    });
    expect(output(rotated, "accessKeyId")).toBe(accessKeyId);
    expect(await roundTrip(accessFrom(rotated))).toBe("ok");
    const state = JSON.parse(await lifecycle.stack.exportState()) as Exported;
    const credential = state.deployment.resources.find((r) => r.type.endsWith(":BucketCredential"));
    expect(Object.keys(credential?.outputs ?? {}).filter((k) => k.startsWith("__"))).toEqual(["__provider"]);
    expect(changesOtherThanSame(await lifecycle.stack.preview())).toEqual({});
  });

  it("destroys through the old text of the bucket's outputs, leaving the emulator empty", async () => {
    const destroyed = await lifecycle.stack.destroy();
    expect(destroyed.changes?.delete ?? 0).toBe(3);
    expect(await emulatorState(lifecycle.emulator)).toMatchObject({ buckets: 0, credentials: 0 });
  });
});

describe("a stack written before secrets had fingerprints", () => {
  const lifecycle = useExampleStack("credential-lifecycle");

  beforeAll(async () => {
    await lifecycle.stack.up();
    // The state as the version before wrote it: no secretFingerprint among the credential's outputs.
    const state = JSON.parse(await lifecycle.stack.exportState()) as Exported;
    for (const r of state.deployment.resources.filter(ours)) delete r.outputs?.["secretFingerprint"];
    await lifecycle.stack.importState(JSON.stringify(state));
  });

  const fingerprintOf = async () => {
    const state = JSON.parse(await lifecycle.stack.exportState()) as Exported;
    return state.deployment.resources.find((r) => r.type.endsWith(":BucketCredential"))?.outputs?.["secretFingerprint"];
  };

  it("shows no change on preview, up or refresh, and keeps the state as it was", async () => {
    expect(await fingerprintOf()).toBeUndefined();
    expect(changesOtherThanSame(await lifecycle.stack.preview())).toEqual({});
    expect(changesOtherThanSame(await lifecycle.stack.up())).toEqual({});
    expect(changesOtherThanSame(await lifecycle.stack.refresh())).toEqual({});
    expect(await fingerprintOf()).toBeUndefined();
  });

  it("gets its fingerprint with the next change of the secret", async () => {
    const rotated = await lifecycle.stack.up({ "cloudplatform-credential-lifecycle:rotation": { value: "2" } });
    expect(rotated.changes).toMatchObject({ update: 1 });
    expect(await fingerprintOf()).toMatch(/^[0-9a-f]{16}$/);
    expect(await roundTrip(accessFrom(rotated))).toBe("ok");
  });
});

/** The SyncedFolders of a state as the version before the manifest string wrote them: two maps. */
function withManifestMaps(exported: string): string {
  const state = JSON.parse(exported) as Exported;
  for (const r of state.deployment.resources.filter((r) => r.type.endsWith(":SyncedFolder"))) {
    const { manifest, manifestDigest: _digest, ...outputs } = r.outputs ?? {};
    const { manifestDigest: _input, ...inputs } = r.inputs ?? {};
    const lines = gunzipSync(Buffer.from(String(manifest).slice("1:".length), "base64")).toString("utf8");
    const files: Record<string, string> = {};
    const etags: Record<string, string> = {};
    for (const line of lines.split("\n").filter((l) => l !== "")) {
      const [file = "", sha256, size, etag = ""] = line.split("\t");
      files[file] = `${sha256} ${size}`;
      etags[file] = etag;
    }
    r.inputs = { ...inputs, files };
    r.outputs = { ...outputs, files, etags };
  }
  return JSON.stringify(state);
}

const folderOf = (exported: string) =>
  (JSON.parse(exported) as Exported).deployment.resources.find((r) => r.type.endsWith(":SyncedFolder"));

describe("a SyncedFolder whose manifest the state holds as two maps", () => {
  const site = useExampleStack("site");
  let access: S3Access;

  beforeAll(async () => {
    access = accessFrom(await site.stack.up());
    await site.stack.importState(withManifestMaps(await site.stack.exportState()));
  });

  async function counted(op: () => Promise<RunResult>) {
    const before = await bucketRequests(site.emulator, access.bucket);
    const result = await op();
    return { result, requests: requestsBetween(before, await bucketRequests(site.emulator, access.bucket)) };
  }

  it("holds the old shape after the import (the test's premise)", async () => {
    const folder = folderOf(await site.stack.exportState());
    expect(Object.keys(folder?.outputs ?? {})).toEqual(expect.arrayContaining(["files", "etags"]));
    expect(folder?.outputs).not.toHaveProperty("manifest");
    expect(folder?.inputs).not.toHaveProperty("manifestDigest");
    expect(Object.keys((folder?.inputs?.["files"] ?? {}) as object)).toHaveLength(4);
  });

  it("plans no change and sends nothing, nor does the up after it", async () => {
    const preview = await counted(() => site.stack.preview());
    expect(changesOtherThanSame(preview.result)).toEqual({});
    expect(preview.requests).toEqual({});
    const up = await counted(() => site.stack.up());
    expect(changesOtherThanSame(up.result)).toEqual({});
    expect(up.requests).toEqual({});
  });

  it("sends exactly the edited file, and writes the manifest as one string", async () => {
    await appendFile(path.join(site.stack.workDir, "www", "robots.txt"), "Disallow: /old/\n");
    const up = await counted(() => site.stack.up());
    expect(up.requests).toEqual({ "PUT /{bucket}/{key}": 1 });
    const folder = folderOf(await site.stack.exportState());
    expect(folder?.outputs).not.toHaveProperty("files");
    expect(folder?.outputs).not.toHaveProperty("etags");
    expect(folder?.inputs).not.toHaveProperty("files");
    expect(String(folder?.outputs?.["manifest"])).toMatch(/^1:/);
    expect(folder?.inputs?.["manifestDigest"]).toMatch(/^4 files, sha256:[0-9a-f]{64}$/);
    expect(changesOtherThanSame(await site.stack.preview())).toEqual({});
  });

  it("refreshes a state of the old shape without showing a change, and writes the new shape", async () => {
    await site.stack.importState(withManifestMaps(await site.stack.exportState()));
    const refresh = await counted(() => site.stack.refresh());
    expect(changesOtherThanSame(refresh.result)).toEqual({});
    expect(refresh.requests).toEqual({ "GET /{bucket}?list-type=2": 1, "HEAD /{bucket}/{key}": 1 });
    const folder = folderOf(await site.stack.exportState());
    expect(String(folder?.outputs?.["manifest"])).toMatch(/^1:/);
    expect(folder?.outputs).not.toHaveProperty("files");
    expect(changesOtherThanSame(await site.stack.preview())).toEqual({});
  });

  it("destroys every object the old manifest named, one DELETE each", async () => {
    await site.stack.importState(withManifestMaps(await site.stack.exportState()));
    const destroyed = await counted(() => site.stack.destroy());
    // The folder's 4 files and the settings object: forceDestroy then finds the bucket empty.
    expect(destroyed.requests["DELETE /{bucket}/{key}"]).toBe(5);
    expect(await emulatorState(site.emulator)).toMatchObject({ buckets: 0, objects: 0 });
  });
});
