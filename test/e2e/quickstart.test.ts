// examples/quickstart with the real Pulumi engine against a real emulator.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { pulumiBinDir } from "../../scripts/lib/paths.mts";
import { engineEnv } from "../../scripts/lib/runner.mts";
import { useExampleStack } from "../support/hooks.js";
import { emulatorState, emulatorStats } from "../support/platform.mts";
import { expectAtRest, expectDestroyedClean } from "./support/lifecycle.js";
import { opsOf, output, type RunResult } from "../support/runner.js";
import { accessFrom, roundTrip } from "./support/s3.js";

describe("examples/quickstart", () => {
  const quickstart = useExampleStack("quickstart");
  let up: RunResult;

  it("up creates a bucket and a working credential, and exports the secret as a secret", async () => {
    up = await quickstart.stack.up();
    expect(up.changes).toMatchObject({ create: 3 });
    expect(up.outputs?.secretAccessKey?.secret).toBe(true);
    expect(up.outputs?.accessKeyId?.secret).toBe(false);
    expect(output(up, "storageClass")).toBe("Standard");
    expect(await roundTrip(accessFrom(up))).toBe("ok");
    expect(await emulatorState(quickstart.emulator)).toMatchObject({ buckets: 1, credentials: 1 });
    // One request per create: the credential of a bucket made in the same run needs no read first.
    const { requests } = await emulatorStats(quickstart.emulator);
    const management = Object.entries(requests).filter(([route]) =>
      /^[A-Z]+ \/(object-storage|dns|security)\b/.test(route),
    );
    expect(Object.fromEntries(management)).toEqual({
      "POST /object-storage/buckets": 1,
      "POST /object-storage/buckets/{bucketId}/credentials": 1,
    });
  });

  it("the stack's settings file, which the runner writes itself, is what the CLI reads: every value, the key as a secret", async () => {
    const { workDir, stateDir } = quickstart.stack;
    const { stdout } = await promisify(execFile)(
      path.join(pulumiBinDir(), "pulumi"),
      ["config", "--show-secrets", "--json", "--stack", "e2e"],
      { cwd: workDir, env: { ...process.env, ...engineEnv(stateDir, pulumiBinDir()) } },
    );
    const { apiKey, baseUrl } = quickstart.emulator;
    expect(JSON.parse(stdout)).toMatchObject({
      "cloudplatform:apiKey": { value: apiKey, secret: true },
      "cloudplatform:baseUrl": { value: baseUrl, secret: false },
    });
    expect(await readFile(path.join(workDir, "Pulumi.e2e.yaml"), "utf8")).not.toContain(apiKey);
  });

  it("is at rest after up: preview and refresh show no changes", async () => {
    await expectAtRest(quickstart.stack);
  });

  it("`pulumi stack export` holds no secret in plaintext, and __provider holds no credentials", async () => {
    const exported = await quickstart.stack.exportState();
    const secrets = {
      apiKey: quickstart.emulator.apiKey,
      token: quickstart.emulator.token,
      s3Secret: output(up, "secretAccessKey"),
    };
    for (const [what, value] of Object.entries(secrets))
      expect(exported.includes(value), `${what} in state`).toBe(false);

    const deployment = JSON.parse(exported) as { deployment: { resources: Array<Record<string, unknown>> } };
    const providers = deployment.deployment.resources.flatMap((r) =>
      [r.inputs, r.outputs]
        .map((props) => (props as Record<string, unknown> | undefined)?.__provider)
        .filter((p) => typeof p === "string"),
    ) as string[];
    expect(providers.length).toBeGreaterThan(0);
    for (const text of providers) {
      for (const value of Object.values(secrets)) expect(text.includes(value)).toBe(false);
      // A thin shim: it requires the installed package rather than carrying code or settings by value.
      expect(text).toContain('require("pulumi-cloudplatform');
      expect(text).not.toContain(quickstart.emulator.baseUrl);
    }
  });

  it("the engine records each resource at the program's own line, not inside the SDK", async () => {
    const deployment = JSON.parse(await quickstart.stack.exportState()) as {
      deployment: { resources: Array<{ type: string; sourcePosition?: string }> };
    };
    const ours = deployment.deployment.resources.filter((r) => r.type.includes(":dynamic/cloudplatform:"));
    expect(ours.length).toBeGreaterThan(0);
    for (const r of ours) expect(r.sourcePosition, r.type).toMatch(/^project:\/\/\/index\.(js|ts)#\d+,\d+$/);
  });

  it("plans a storage class change as a replacement of the bucket before doing it", async () => {
    const archive = { "cloudplatform-quickstart:storageClass": { value: "Archive" } };
    const preview = await quickstart.stack.preview(archive);
    expect(opsOf(preview, "media")).toContain("replace");
    expect(preview.changes?.replace ?? 0).toBeGreaterThanOrEqual(1);

    const replaced = await quickstart.stack.up(archive);
    expect(output(replaced, "storageClass")).toBe("Archive");
    expect(output(replaced, "bucketName")).not.toBe("");
    expect(await roundTrip(accessFrom(replaced))).toBe("ok");
    expect(await emulatorState(quickstart.emulator)).toMatchObject({ buckets: 1, credentials: 1 });
    up = replaced;
  });

  it("destroy removes everything, objects included (forceDestroy)", async () => {
    await expectDestroyedClean(quickstart.stack, quickstart.emulator);
  });
});
