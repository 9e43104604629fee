/**
 * The provider object of each SDK class is serialized into the state (`__provider`) and evaluated by
 * the provider host. This loads the compiled package (bin/, built here) with Node's own require —
 * code transformed by vitest must never be serialized — and checks what Pulumi really stores: no
 * secret, small, no path of this machine, and a text that loads and delegates to the runtime entry.
 */
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runProgram } from "../support/tools.mts";

const root = resolve(__dirname, "../..");
const nodeRequire = createRequire(join(root, "package.json"));
const secretKey = "cp-programTimeSecret_0123456789";

type Provider = Record<string, (...args: unknown[]) => Promise<Record<string, unknown>>>;
type Pulumi = typeof import("@pulumi/pulumi");
type Sdk = typeof import("../../sdk/index.js");

let pulumi: Pulumi;
let sdk: Sdk;

/** Evaluates serialized text as the host does, resolving the package name to this repository's build. */
function load(text: string): Provider {
  const module = { exports: {} as { handler: () => Provider } };
  const req = (id: string): unknown =>
    id === "pulumi-cloudplatform/provider" ? nodeRequire(join(root, "bin/provider/index.js")) : nodeRequire(id);
  // The host uses require-from-string, i.e. CommonJS evaluation in sloppy mode (the text uses `with`).
  new Function("exports", "require", "module", text)(module.exports, req, module);
  return module.exports.handler();
}

const classes = [
  { type: "ApiKey", exportName: "apiKeyProvider", make: () => new sdk.ApiKey("key", {}) },
  { type: "DnsZone", exportName: "dnsZoneProvider", make: () => new sdk.DnsZone("zone", { name: "example.com" }) },
  { type: "Bucket", exportName: "bucketProvider", make: () => new sdk.Bucket("logs", {}) },
  {
    type: "BucketCredential",
    exportName: "bucketCredentialProvider",
    make: () => new sdk.BucketCredential("cred", { bucketId: "bkt_1" }),
  },
] as const;

describe("serialized providers", () => {
  const registered = new Map<string, { inputs: Record<string, unknown>; opts: unknown }>();

  beforeAll(async () => {
    await runProgram(
      process.execPath,
      [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.json")],
      {
        timeoutMs: 600_000,
      },
    );
    // A secret the program holds at construction time must not end up in the closure.
    process.env["CLOUDPLATFORM_API_KEY"] = secretKey;
    pulumi = nodeRequire("@pulumi/pulumi") as Pulumi;
    sdk = nodeRequire(join(root, "bin/sdk/index.js")) as Sdk;
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered.set(args.type, { inputs: args.inputs as Record<string, unknown>, opts: args });
          return { id: `${args.name}-id`, state: args.inputs };
        },
        call: () => ({}),
      },
      "project",
      "stack",
      false,
    );
  }, 60_000);

  for (const c of classes) {
    it(`${c.type}: registers pulumi-nodejs:dynamic/cloudplatform:${c.type} with a small shim that loads`, async () => {
      const resource = c.make();
      await new Promise<void>((done) => resource.urn.apply(() => done()));
      const token = `pulumi-nodejs:dynamic/cloudplatform:${c.type}`;
      const reg = registered.get(token);
      expect(reg, token).toBeDefined();
      const text = String(reg?.inputs["__provider"]);
      expect(reg?.inputs["__logicalName"]).toBe(await urnName(resource));

      // Named like the SDK's own variable so the texts compare equal.
      const provider = (
        nodeRequire(join(root, "bin/sdk/shim.js")) as { providerShim: (n: string) => unknown }
      ).providerShim(c.exportName);
      const sf = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
      expect(sf.containsSecrets).toBe(false);
      expect(sf.text).toBe(text);
      expect(text.length).toBeLessThan(5_000);
      expect(text).not.toContain(root);
      expect(text).not.toContain(secretKey);
      expect(text).toContain('require("pulumi-cloudplatform/provider")');

      const loaded = load(text);
      for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"]) {
        expect(typeof loaded[method], method).toBe("function");
      }
    });
  }

  it("a loaded shim delegates to the runtime entry (bucket auto-naming through check)", async () => {
    const shim = (nodeRequire(join(root, "bin/sdk/shim.js")) as { providerShim: (n: string) => unknown }).providerShim(
      "bucketProvider",
    );
    const provider = load((await pulumi.runtime.serializeFunction(() => shim, { allowSecrets: true })).text);
    const result = await provider["check"]?.({}, { __logicalName: "Logs" });
    expect(result?.["failures"]).toEqual([]);
    expect((result?.["inputs"] as Record<string, unknown>)["name"]).toMatch(/^logs-[a-z0-9]{7}$/);
  });

  it("marks secret outputs with additionalSecretOutputs, keeping the user's own", () => {
    const seen: Record<string, unknown> = {};
    const spy =
      (name: string): import("@pulumi/pulumi").ResourceTransformation =>
      (args) => {
        seen[name] = (args.opts as { additionalSecretOutputs?: string[] }).additionalSecretOutputs;
        return undefined;
      };
    new sdk.ApiKey("k2", {}, { transformations: [spy("key")], additionalSecretOutputs: ["createdAt"] });
    new sdk.BucketCredential("c2", { bucketId: "b" }, { transformations: [spy("cred")] });
    new sdk.Bucket("b2", {}, { transformations: [spy("bucket")] });
    expect(seen).toEqual({ key: ["createdAt", "key"], cred: ["secretAccessKey"], bucket: undefined });
  });
});

async function urnName(resource: { urn: import("@pulumi/pulumi").Output<string> }): Promise<string> {
  const urn = await new Promise<string>((done) => resource.urn.apply((u) => done(u)));
  return urn.split("::").pop() ?? "";
}
