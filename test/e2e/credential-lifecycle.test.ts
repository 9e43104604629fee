// examples/credential-lifecycle: deactivate, activate and rotate in place, checked through S3 with the
// stack's outputs; changes made outside Pulumi are seen on refresh.
import { describe, expect, it } from "vitest";
import { bucketIdByName, management } from "../support/emulator.js";
import { useExampleStack } from "../support/hooks.js";
import { expectAtRest, expectDestroyedClean } from "./support/lifecycle.js";
import { changesOtherThanSame, opsOf, output, type Config, type RunResult } from "../support/runner.js";
import { accessFrom, roundTrip } from "./support/s3.js";

const setting = (key: string, value: string): Config => ({ [`cloudplatform-credential-lifecycle:${key}`]: { value } });

interface ExportedResource {
  readonly urn: string;
  readonly outputs?: Record<string, unknown>;
}

describe("examples/credential-lifecycle", () => {
  const lifecycle = useExampleStack("credential-lifecycle");
  let current: RunResult;

  async function credentialInState(): Promise<ExportedResource | undefined> {
    const exported = JSON.parse(await lifecycle.stack.exportState()) as {
      deployment: { resources?: ExportedResource[] };
    };
    return exported.deployment.resources?.find((r) => r.urn.endsWith("::uploader"));
  }

  it("up gives an active credential that reads and writes the bucket", async () => {
    current = await lifecycle.stack.up();
    expect(current.outputs?.active?.value).toBe(true);
    expect(await roundTrip(accessFrom(current))).toBe("ok");
    await expectAtRest(lifecycle.stack);
  });

  it("active=false is planned as an in-place update, and S3 then refuses the key", async () => {
    const preview = await lifecycle.stack.preview(setting("active", "false"));
    expect(opsOf(preview, "uploader")).toEqual(["update"]);
    expect(opsOf(preview, "uploads")).toEqual(["same"]);

    const off = await lifecycle.stack.up(setting("active", "false"));
    expect(off.outputs?.active?.value).toBe(false);
    expect(output(off, "accessKeyId")).toBe(output(current, "accessKeyId"));
    expect(await roundTrip(accessFrom(off))).toBe("InvalidAccessKeyId");
    current = off;
  });

  it("active=true makes the same key work again", async () => {
    const on = await lifecycle.stack.up(setting("active", "true"));
    expect(on.outputs?.active?.value).toBe(true);
    expect(output(on, "accessKeyId")).toBe(output(current, "accessKeyId"));
    expect(await roundTrip(accessFrom(on))).toBe("ok");
    current = on;
  });

  it("rotation keeps the access key id, refuses the old secret and accepts the new one", async () => {
    const rotate = setting("rotation", "2");
    const preview = await lifecycle.stack.preview(rotate);
    expect(opsOf(preview, "uploader")).toEqual(["update"]);

    const rotated = await lifecycle.stack.up(rotate);
    const before = accessFrom(current);
    const after = accessFrom(rotated);
    expect(after.accessKeyId).toBe(before.accessKeyId);
    expect(after.secretAccessKey).not.toBe(before.secretAccessKey);
    expect(await roundTrip(before)).toBe("SignatureDoesNotMatch");
    expect(await roundTrip(after)).toBe("ok");
    current = rotated;
    await expectAtRest(lifecycle.stack);
  });

  it("a credential deactivated outside Pulumi is seen on refresh and reactivated by the next up", async () => {
    const access = accessFrom(current);
    const bucketId = await bucketIdByName(lifecycle.emulator, access.bucket);
    const path = `/object-storage/buckets/${bucketId}/credentials/${access.accessKeyId}/deactivate`;
    expect((await management(lifecycle.emulator, "POST", path)).status).toBe(200);

    const refresh = await lifecycle.stack.refresh();
    expect(changesOtherThanSame(refresh)).toMatchObject({ update: 1 });
    expect((await credentialInState())?.outputs?.active).toBe(false);

    const preview = await lifecycle.stack.preview();
    expect(opsOf(preview, "uploader")).toEqual(["update"]);
    // Only `active` changes: the refresh must not record an accessKeyId the program leaves out (issue 37).
    expect(preview.stdout).toContain("[diff: ~active]");
    expect(preview.stdout).not.toContain("accessKeyId");
    const fixed = await lifecycle.stack.up();
    expect(fixed.outputs?.active?.value).toBe(true);
    expect(await roundTrip(accessFrom(fixed))).toBe("ok");
    current = fixed;
  });

  it("a credential deleted outside Pulumi leaves the state on refresh and is created again", async () => {
    const access = accessFrom(current);
    const bucketId = await bucketIdByName(lifecycle.emulator, access.bucket);
    const path = `/object-storage/buckets/${bucketId}/credentials/${access.accessKeyId}`;
    expect((await management(lifecycle.emulator, "DELETE", path)).status).toBe(204);

    const refresh = await lifecycle.stack.refresh();
    expect(changesOtherThanSame(refresh)).toMatchObject({ delete: 1 });
    expect(await credentialInState()).toBeUndefined();

    const recreated = await lifecycle.stack.up();
    expect(recreated.changes).toMatchObject({ create: 1 });
    expect(output(recreated, "accessKeyId")).not.toBe(access.accessKeyId);
    expect(await roundTrip(accessFrom(recreated))).toBe("ok");
  });

  it("destroy leaves the emulator empty", async () => {
    await expectDestroyedClean(lifecycle.stack, lifecycle.emulator);
  });
});
