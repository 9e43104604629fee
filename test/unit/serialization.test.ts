/**
 * Each SDK class stores its provider's text in the state (`__provider`, twice per resource), which
 * the provider host evaluates (sdk/shim.ts). This loads the compiled package (bin/, built here)
 * with Node's own require and checks what a program registers: one line requiring the shim module
 * and naming the resource, no secret, no path of this machine, within a byte budget, and a text
 * that loads and delegates to the runtime entry, both from this repository and from an installed
 * copy. Older states' texts (closures Pulumi serialized, the per-type shim lines) keep loading.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPackage, runProgram } from "../support/tools.mts";

const root = resolve(__dirname, "../..");
const nodeRequire = createRequire(join(root, "package.json"));
const secretKey = "cp-programTimeSecret_0123456789";

type Provider = Record<string, (...args: unknown[]) => Promise<Record<string, unknown>>>;
type Pulumi = typeof import("@pulumi/pulumi");
type Sdk = typeof import("../../sdk/index.js");

let pulumi: Pulumi;
let sdk: Sdk;

/**
 * Evaluates serialized text as the host does, with `require` resolving from `req` (by default the
 * package name to this repository's build).
 */
function load(text: string, req: (id: string) => unknown = repositoryRequire): Provider {
  const module = { exports: {} as { handler: () => Provider } };
  // The host uses require-from-string, i.e. CommonJS evaluation in sloppy mode (the text uses `with`).
  new Function("exports", "require", "module", text)(module.exports, req, module);
  return module.exports.handler();
}

function repositoryRequire(id: string): unknown {
  if (id === "pulumi-cloudplatform/provider") return nodeRequire(join(root, "bin/provider/index.js"));
  const shim = /^pulumi-cloudplatform\/shims\/(\w+)$/.exec(id);
  return shim ? nodeRequire(join(root, "bin/sdk/shims", `${shim[1]}.js`)) : nodeRequire(id);
}

/**
 * Bytes of one serialized provider as an installed package stores it, beside the resource's own
 * logical name. The engine keeps it twice per resource and rewrites the whole checkpoint after
 * every step, so it costs time at every step of every deployment: it must not grow (bench/README.md,
 * row state-bytes). The longest type name, BucketCredential, takes all of it.
 */
const SERIALIZED_PROVIDER_BUDGET = 111;

/** The text of a resource of type `type` named `name` on a stack (its journal key: 16 hex digits). */
function textPattern(type: string, name: string): RegExp {
  return new RegExp(
    `^exports\\.handler=\\(\\)=>require\\("pulumi-cloudplatform/shims/resource"\\)\\.of\\("${type}","${name}","[0-9a-f]{16}"\\)$`,
  );
}

const classes = [
  {
    type: "Transcript",
    name: "talk",
    make: () => new sdk.Transcript("talk", { url: "https://media.example.com/talk.mp3" }),
  },
  { type: "ApiKey", name: "key", make: () => new sdk.ApiKey("key", {}) },
  { type: "DnsZone", name: "zone", make: () => new sdk.DnsZone("zone", { name: "example.com" }) },
  { type: "Bucket", name: "logs", make: () => new sdk.Bucket("logs", {}) },
  { type: "BucketCredential", name: "cred", make: () => new sdk.BucketCredential("cred", { bucketId: "bkt_1" }) },
] as const;

beforeAll(async () => {
  await buildPackage();
}, 600_000);

describe("the provider text each class registers", () => {
  const registered = new Map<string, { inputs: Record<string, unknown>; opts: unknown }>();

  beforeAll(async () => {
    // A secret the program holds at construction time must not end up in the text.
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
    it(`${c.type}: registers pulumi-nodejs:dynamic/cloudplatform:${c.type} with one line naming it, which loads`, async () => {
      const resource = c.make();
      await new Promise<void>((done) => resource.urn.apply(() => done()));
      const token = `pulumi-nodejs:dynamic/cloudplatform:${c.type}`;
      const reg = registered.get(token);
      expect(reg, token).toBeDefined();
      const text = String(reg?.inputs["__provider"]);
      expect(await urnName(resource)).toBe(c.name);
      expect(text).toMatch(textPattern(c.type, c.name));
      expect(Object.keys(reg?.inputs ?? {}).filter((k) => k.startsWith("__"))).toEqual(["__provider"]);
      expect(Buffer.byteLength(text) - c.name.length).toBeLessThanOrEqual(SERIALIZED_PROVIDER_BUDGET);
      expect(text).not.toContain(root);
      expect(text).not.toContain(secretKey);

      const loaded = load(text);
      for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"]) {
        expect(typeof loaded[method], method).toBe("function");
      }
    });
  }

  it("a loaded text delegates to the runtime entry, for the resource it names (bucket auto-naming through check)", async () => {
    const provider = load(String(registered.get("pulumi-nodejs:dynamic/cloudplatform:Bucket")?.inputs["__provider"]));
    const result = await provider["check"]?.({}, {});
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

/** What a Node process running `script` (from this repository) printed last, as JSON. */
async function lastJsonLine(script: string): Promise<unknown> {
  const { stdout } = await runProgram(process.execPath, ["-e", script], { cwd: root });
  return JSON.parse(stdout.trim().split("\n").pop()!) as unknown;
}

async function urnName(resource: { urn: import("@pulumi/pulumi").Output<string> }): Promise<string> {
  const urn = await new Promise<string>((done) => resource.urn.apply((u) => done(u)));
  return urn.split("::").pop() ?? "";
}

/**
 * What a program that installed the package serializes: the package copied under a node_modules
 * (as npm installs it; its dependencies linked from this repository's), a program run in a child
 * process from the folder above it, as the engine runs programs.
 */
describe("serialized providers of an installed package", () => {
  let installDir: string;
  let texts: Record<string, string>;
  const installedRequire = (id: string): unknown => createRequire(join(installDir, "program.js"))(id);

  beforeAll(async () => {
    installDir = await mkdtemp(join(tmpdir(), "serialized-provider-"));
    const modules = join(installDir, "node_modules");
    const packageDir = join(modules, "pulumi-cloudplatform");
    await mkdir(join(packageDir, "bin"), { recursive: true });
    await cp(join(root, "package.json"), join(packageDir, "package.json"));
    for (const part of ["sdk", "provider"])
      await cp(join(root, "bin", part), join(packageDir, "bin", part), { recursive: true });
    for (const entry of await readdir(join(root, "node_modules"))) {
      if (entry.startsWith(".")) continue;
      await symlink(join(root, "node_modules", entry), join(modules, entry));
    }
    const program = `
      const pulumi = require("@pulumi/pulumi");
      const sdk = require("pulumi-cloudplatform");
      const texts = {};
      pulumi.runtime.setMocks({
        newResource: (args) => { texts[args.type.split(":").pop()] = args.inputs.__provider; return { id: args.name, state: args.inputs }; },
        call: () => ({}),
      }, "project", "stack", false).then(async () => {
        const resources = [
          new sdk.ApiKey("key", {}),
          new sdk.DnsZone("zone", { name: "example.com" }),
          new sdk.Bucket("logs", {}),
          new sdk.BucketCredential("cred", { bucketId: "bkt_1" }),
          new sdk.Transcript("talk", { url: "https://media.example.com/talk.mp3" }),
        ];
        await Promise.all(resources.map((r) => new Promise((done) => r.urn.apply(done))));
        console.log(JSON.stringify(texts));
      });
    `;
    await writeFile(join(installDir, "program.js"), program);
    const { stdout } = await runProgram(process.execPath, [join(installDir, "program.js")], {
      cwd: installDir,
      // Pulumi resolves the package of a captured module from its own folder (this repository's
      // node_modules, through the links): NODE_PATH lets it find the installed copy, as a real
      // install finds it beside @pulumi/pulumi.
      env: { ...process.env, NODE_PATH: modules, CLOUDPLATFORM_API_KEY: secretKey },
    });
    texts = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, string>;
  }, 120_000);

  afterAll(async () => {
    if (installDir) await rm(installDir, { recursive: true, force: true });
  });

  for (const c of classes) {
    it(`${c.type}: the state holds a require of the shim module naming it, within ${SERIALIZED_PROVIDER_BUDGET} bytes beside its name`, () => {
      const text = texts[c.type] ?? "";
      expect(text).toMatch(textPattern(c.type, c.name));
      expect(Buffer.byteLength(text) - c.name.length).toBeLessThanOrEqual(SERIALIZED_PROVIDER_BUDGET);
      expect(text).not.toContain(root);
      expect(text).not.toContain(installDir);
      expect(text).not.toContain(secretKey);
      const loaded = load(text, installedRequire);
      for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"]) {
        expect(typeof loaded[method], method).toBe("function");
      }
    });
  }

  it("a loaded text delegates to the runtime entry (bucket auto-naming through check)", async () => {
    const provider = load(texts["Bucket"] ?? "", installedRequire);
    const result = await provider["check"]?.({}, {});
    expect(result?.["failures"]).toEqual([]);
    expect((result?.["inputs"] as Record<string, unknown>)["name"]).toMatch(/^logs-[a-z0-9]{7}$/);
  });
});

// Older states keep the provider text they were written with: each must still load and delegate.
it.each([
  // Recorded from version 0.1.0, before the shim modules: it loads `bucketProvider` by export name.
  [
    "an older state's serialized provider (every method by value)",
    "serialized-provider-0.1.0-bucket.txt",
    'require("pulumi-cloudplatform/provider")[exportName]',
    "Old",
  ],
  // Recorded at commit 5399579: 267 bytes, a closure returning the required shim module.
  [
    "a state written with Pulumi's closure of the shim module (before the one-line text)",
    "serialized-provider-shim-closure-bucket.txt",
    'require("pulumi-cloudplatform/shims/bucketProvider")',
    "Older",
  ],
  // Written from commit c181c39 to 648af61: the per-type shim line; the state named the resource.
  [
    "a state written with the per-type shim line (before the text named the resource)",
    "serialized-provider-shim-line-bucket.txt",
    'require("pulumi-cloudplatform/shims/bucketProvider")',
    "Recent",
  ],
])("%s still loads and delegates", async (_what, fixture, marker, logicalName) => {
  const text = await readFile(join(__dirname, "fixtures", fixture), "utf8");
  expect(text).toContain(marker);
  const provider = load(text);
  const result = await provider["check"]?.({}, { __logicalName: logicalName });
  expect(result?.["failures"]).toEqual([]);
  const prefix = logicalName.toLowerCase();
  expect((result?.["inputs"] as Record<string, unknown>)["name"]).toMatch(new RegExp(`^${prefix}-[a-z0-9]{7}$`));
});

it("a program that declares resources loads neither the API client nor its HTTP and schema libraries", async () => {
  // The lookups bring the client, which brings undici and zod (about 0.1 s of CPU) with its first
  // request: loaded on their first call only.
  const script = `
    const sdk = require(${JSON.stringify(join(root, "bin/sdk/index.js"))});
    const loaded = (part) => Object.keys(require.cache).some((path) => path.includes(part));
    const before = ["/undici/", "/zod/", "/provider/client.js"].filter(loaded);
    typeof sdk.getBuckets === "function" && require(${JSON.stringify(join(root, "bin/provider/functions.js"))});
    console.log(JSON.stringify({ before, after: ["/undici/", "/zod/", "/provider/client.js"].filter(loaded) }));
  `;
  expect(await lastJsonLine(script)).toEqual({
    before: [],
    after: ["/provider/client.js"],
  });
});

it("the provider host loads neither its HTTP nor its schema library for check and diff (a preview)", async () => {
  const script = `
    const provider = require(${JSON.stringify(join(root, "bin/provider/index.js"))});
    const loaded = () => ["/undici/", "/zod/"].filter((part) => Object.keys(require.cache).some((path) => path.includes(part)));
    const config = { get: (key) => ({ "cloudplatform:baseUrl": "http://127.0.0.1:9", "cloudplatform:apiKey": "cp-unused" })[key] };
    (async () => {
      await provider.bucketProvider.configure({ config });
      const { inputs } = await provider.bucketProvider.check({}, { __logicalName: "logs" });
      await provider.bucketProvider.diff("bkt_1", { ...inputs, bucketId: "bkt_1" }, inputs);
      console.log(JSON.stringify({ afterCheckAndDiff: loaded() }));
    })();
  `;
  expect(await lastJsonLine(script)).toEqual({ afterCheckAndDiff: [] });
});

it("the provider host loads no S3 client until a forceDestroy needs one", async () => {
  // What the host does for every resource: load the runtime entry, configure, check. The S3 client
  // costs every provider process about 0.15 s of CPU and 30 MiB (bench/README.md, provider-start).
  const script = `
    const provider = require(${JSON.stringify(join(root, "bin/provider/index.js"))});
    const s3Loaded = () => Object.keys(require.cache).some((path) => path.includes("@aws-sdk/client-s3"));
    const config = { get: (key) => ({ "cloudplatform:baseUrl": "http://127.0.0.1:9", "cloudplatform:apiKey": "cp-unused" })[key] };
    (async () => {
      await provider.bucketProvider.configure({ config });
      await provider.bucketProvider.check({}, { __logicalName: "logs", forceDestroy: true });
      const afterCheck = s3Loaded();
      require(${JSON.stringify(join(root, "bin/provider/resources/bucket/empty.js"))});
      console.log(JSON.stringify({ afterCheck, afterEmptyBucketModule: s3Loaded() }));
    })();
  `;
  expect(await lastJsonLine(script)).toEqual({ afterCheck: false, afterEmptyBucketModule: false });
});
