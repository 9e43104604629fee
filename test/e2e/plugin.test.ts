// The executable provider (provider/plugin, PulumiPlugin.yaml) under the real engine: the plugin is
// started with the command line the Node language host builds from PulumiPlugin.yaml, the CLI
// attaches to it through PULUMI_DEBUG_PROVIDERS, and an inline Automation API program (run in a
// plain node child process) declares `cloudplatform:index:*` resources by type token, as a program
// in another language would. Proves: up, a preview with no changes, secret outputs, `pulumi import`
// of a bucket and a credential made outside Pulumi, destroy.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProvider } from "../../provider/plugin/provider.js";
import { runProgram as run } from "../support/tools.mts";
import { launchEmulator, management, providerConfig, type Emulator } from "../support/emulator.js";
import { emulatorState } from "../support/platform.mts";

const repoRoot = path.resolve(__dirname, "..", "..");

/** The folder holding the `pulumi` CLI (scripts/test.sh exports it; otherwise ensure-pulumi.sh finds it). */
async function pulumiBinDir(): Promise<string> {
  const fromEnv = process.env.CLOUDPLATFORM_PULUMI_BIN_DIR;
  if (fromEnv) return fromEnv;
  // On a machine without the CLI this builds it: about 8 minutes.
  const { stdout } = await run("bash", [path.join(repoRoot, "scripts", "ensure-pulumi.sh")], { timeoutMs: 1_200_000 });
  return stdout.trim().split("\n").pop() ?? "";
}

/** The child program: one operation per process, answer as JSON on the last stdout line. */
const childScript = String.raw`
const path = require("node:path");
const { createRequire } = require("node:module");
const request = JSON.parse(process.argv[2]);
const load = createRequire(path.join(request.repoRoot, "package.json"));
const pulumi = load("@pulumi/pulumi");
const auto = load("@pulumi/pulumi/automation");

function program() {
  const outs = {};
  for (const r of request.resources) {
    const props = { ...r.inputs };
    for (const k of r.outputs) if (!(k in props)) props[k] = undefined;
    for (const [k, ref] of Object.entries(r.refs || {})) props[k] = outs[ref.resource][ref.output];
    const res = new pulumi.CustomResource("cloudplatform:index:" + r.type, r.name, props, r.importId ? { import: r.importId } : {});
    outs[r.name] = res;
  }
  const exported = {};
  for (const r of request.resources) for (const k of r.outputs) exported[r.name + "." + k] = outs[r.name][k];
  return exported;
}

async function main() {
  const env = request.env;
  Object.assign(process.env, env);
  const pulumiCommand = await auto.PulumiCommand.get({ root: path.dirname(request.binDir), skipVersionCheck: true });
  const stack = await auto.LocalWorkspace.createOrSelectStack(
    { stackName: "plugin", projectName: "plugin-e2e", program: async () => program() },
    { workDir: request.workDir, envVars: env, pulumiCommand },
  );
  await stack.setAllConfig(request.config);
  const ops = {};
  const steps = [];
  const onEvent = (e) => {
    const m = e.resourcePreEvent && e.resourcePreEvent.metadata;
    if (m) steps.push({ name: m.urn.split("::").pop(), type: m.type, op: m.op });
  };
  if (request.op === "up") {
    const r = await stack.up({ onEvent });
    const outputs = {};
    for (const [k, v] of Object.entries(r.outputs)) outputs[k] = { secret: v.secret, value: v.value };
    return { steps, outputs };
  }
  if (request.op === "preview") {
    const r = await stack.preview({ onEvent });
    return { steps, changes: r.changeSummary };
  }
  if (request.op === "refresh") {
    const r = await stack.refresh({ onEvent });
    return { steps, changes: r.summary.resourceChanges };
  }
  if (request.op === "destroy") {
    await stack.destroy({ onEvent });
    return { steps };
  }
  if (request.op === "export") {
    return { deployment: (await stack.exportStack()).deployment };
  }
  throw new Error("unknown op " + request.op);
}

main().then(
  (answer) => { process.stdout.write("\n" + JSON.stringify({ ok: true, ...answer }) + "\n"); process.exit(0); },
  (error) => { process.stdout.write("\n" + JSON.stringify({ ok: false, error: String(error && error.stack || error) }) + "\n"); process.exit(0); },
);
`;

interface Declared {
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
  readonly outputs: readonly string[];
  readonly refs?: Record<string, { resource: string; output: string }>;
  /** The `import` resource option: adopt the object with this import id. */
  readonly importId?: string;
}

interface Answer {
  readonly ok: boolean;
  readonly error?: string;
  readonly steps?: Array<{ name: string; type: string; op: string }>;
  readonly outputs?: Record<string, { secret: boolean; value: unknown }>;
  readonly changes?: Record<string, number>;
  readonly deployment?: {
    resources?: Array<{ urn: string; id?: string; type: string; outputs?: Record<string, unknown> }>;
  };
}

/** Starts the plugin exactly as `pulumi-language-nodejs` RunPlugin does with PulumiPlugin.yaml's options. */
async function startPlugin(cwd: string): Promise<{ child: ChildProcess; port: number; stderr: () => string }> {
  const yaml = await readFile(path.join(repoRoot, "PulumiPlugin.yaml"), "utf8");
  const nodeargs = /nodeargs:\s*"([^"]*)"/.exec(yaml)?.[1];
  if (nodeargs === undefined) throw new Error("PulumiPlugin.yaml has no runtime.options.nodeargs");
  const runPlugin = path.join(repoRoot, "node_modules", "@pulumi", "pulumi", "cmd", "run-plugin");
  // RunPlugin: node <run-plugin> <nodeargs...> <plugin directory> <engine arguments...>, in the engine's cwd.
  // No CLOUDPLATFORM_* nor PULUMI_CONFIG: the settings must arrive through the engine's Configure call.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("CLOUDPLATFORM_") && k !== "PULUMI_CONFIG"),
  );
  const child = spawn(process.execPath, [runPlugin, ...nodeargs.split(/\s+/), repoRoot], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0] ?? "";
      if (out.includes("\n") && /^\d+$/.test(line.trim())) resolve(Number(line.trim()));
    });
    child.on("exit", (code) => reject(new Error(`plugin exited (${code}) before printing its port: ${err}`)));
  });
  return { child, port, stderr: () => err };
}

describe("executable provider under the real engine", () => {
  let emulator: Emulator;
  let plugin: Awaited<ReturnType<typeof startPlugin>>;
  let dir: string;
  let binDir: string;
  const bucketName = `plugin-e2e-${Date.now().toString(36)}`;

  const bucket: Declared = {
    type: "Bucket",
    name: "b",
    inputs: { name: bucketName, forceDestroy: true },
    outputs: ["bucketId", "name", "s3Endpoint"],
  };
  const credential: Declared = {
    type: "BucketCredential",
    name: "c",
    inputs: {},
    outputs: ["accessKeyId", "secretAccessKey", "bucketName"],
    refs: { bucketId: { resource: "b", output: "bucketId" } },
  };

  async function op(request: Record<string, unknown>, resources: readonly Declared[]): Promise<Answer> {
    const config = Object.fromEntries(
      Object.entries({ ...providerConfig(emulator), ...(request["config"] as object | undefined) }).map(([k, v]) => [
        k,
        { value: (v as { value: string }).value, secret: (v as { secret?: boolean }).secret ?? false },
      ]),
    );
    const env = {
      PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
      PULUMI_HOME: path.join(dir, "home"),
      PULUMI_CONFIG_PASSPHRASE: "plugin-e2e",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
      PULUMI_DEBUG_PROVIDERS: `cloudplatform:${plugin.port}`,
      PATH: [binDir, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
    };
    const payload = { ...request, repoRoot, binDir, workDir: path.join(dir, "work"), env, config, resources };
    const { stdout } = await run(process.execPath, [path.join(dir, "program.cjs"), JSON.stringify(payload)], {
      cwd: dir,
      timeoutMs: 300_000,
    });
    const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Answer;
    if (!answer.ok)
      throw new Error(`${String(request.op)} failed: ${answer.error}\nplugin stderr:\n${plugin.stderr()}`);
    return answer;
  }

  const opsOf = (a: Answer, name: string): string[] => (a.steps ?? []).filter((s) => s.name === name).map((s) => s.op);

  async function createOutside(): Promise<{ bucketId: string; accessKeyId: string }> {
    const headers = { authorization: `Bearer ${emulator.token}`, "content-type": "application/json" };
    const made = await fetch(`${emulator.baseUrl}/object-storage/buckets`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: `${bucketName}-outside`, storage_class: "Standard" }),
    });
    const b = (await made.json()) as { id: string };
    const cred = await management(emulator, "POST", `/object-storage/buckets/${b.id}/credentials`);
    const c = (await cred.json()) as { access_key_id: string };
    return { bucketId: b.id, accessKeyId: c.access_key_id };
  }

  beforeAll(async () => {
    binDir = await pulumiBinDir();
    // The plugin runs the compiled entry, as PulumiPlugin.yaml says.
    await run(
      process.execPath,
      [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-b", "tsconfig.json"],
      { cwd: repoRoot, timeoutMs: 600_000 },
    );
    dir = await mkdtemp(path.join(tmpdir(), "cloudplatform-plugin-e2e-"));
    for (const sub of ["work", "backend", "home"]) await mkdir(path.join(dir, sub));
    await writeFile(path.join(dir, "program.cjs"), childScript);
    emulator = await launchEmulator();
    plugin = await startPlugin(dir);
  });

  afterAll(async () => {
    plugin?.child.kill();
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("the schema the provider serves passes the CLI's schema validator", async () => {
    const file = path.join(dir, "schema.json");
    await writeFile(file, await createProvider({ version: "0.1.0" }).getSchema!());
    const { stdout } = await run(path.join(binDir, "pulumi"), ["package", "get-schema", file], {
      cwd: dir,
      env: { ...process.env, PULUMI_HOME: path.join(dir, "home"), PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
    expect((JSON.parse(stdout) as { name: string }).name).toBe("cloudplatform");
  });

  it("a first preview plans both creates (the credential's bucketId still unknown) and calls no API", async () => {
    const preview = await op({ op: "preview" }, [bucket, credential]);
    expect(opsOf(preview, "b")).toEqual(["create"]);
    expect(opsOf(preview, "c")).toEqual(["create"]);
    const state = await emulatorState(emulator);
    expect(state.buckets).toBe(0);
  });

  it("up creates a bucket and a credential through the plugin, the secret marked secret", async () => {
    const up = await op({ op: "up" }, [bucket, credential]);
    expect(opsOf(up, "b")).toContain("create");
    expect(opsOf(up, "c")).toContain("create");
    expect(up.outputs?.["b.name"]?.value).toBe(bucketName);
    expect(up.outputs?.["b.s3Endpoint"]?.value).toBe(emulator.s3Url);
    expect(up.outputs?.["c.bucketName"]?.value).toBe(bucketName);
    expect(up.outputs?.["c.secretAccessKey"]?.secret).toBe(true);
    expect(up.outputs?.["c.accessKeyId"]?.secret).toBe(false);
    const listed = await management(emulator, "GET", `/object-storage/buckets?name=${bucketName}`);
    expect(((await listed.json()) as unknown[]).length).toBe(1);
  });

  it("the state holds the secret encrypted, never in plaintext", async () => {
    const { stdout } = await run(path.join(binDir, "pulumi"), ["stack", "export", "--stack", "plugin"], {
      cwd: path.join(dir, "work"),
      env: {
        ...process.env,
        PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
        PULUMI_HOME: path.join(dir, "home"),
        PULUMI_CONFIG_PASSPHRASE: "plugin-e2e",
        PULUMI_SKIP_UPDATE_CHECK: "true",
      },
    });
    const state = JSON.parse(stdout) as Answer;
    const cred = state.deployment?.resources?.find((r) => r.type === "cloudplatform:index:BucketCredential");
    expect(cred?.outputs?.["secretAccessKey"]).toMatchObject({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
    });
    expect(JSON.stringify(cred?.outputs?.["secretAccessKey"])).toContain("ciphertext");
  });

  it("a preview right after up plans no change, and a refresh reads both back unchanged", async () => {
    const preview = await op({ op: "preview" }, [bucket, credential]);
    expect(preview.changes).toEqual({ same: 3 });
    const refresh = await op({ op: "refresh" }, [bucket, credential]);
    expect(refresh.changes).toEqual({ same: 3 });
  });

  it("a changed provider setting updates the provider, never the resources", async () => {
    const moved = { "cloudplatform:apiUrl": { value: `${emulator.apiUrl}/` } };
    const preview = await op({ op: "preview", config: moved }, [bucket, credential]);
    expect(opsOf(preview, "b")).toEqual(["same"]);
    expect(opsOf(preview, "c")).toEqual(["same"]);
  });

  // The engine's import step (Read with an id and no state, then the program's inputs checked
  // against what was read) is the one `pulumi import` runs; the CLI command itself needs the
  // project's language host, absent on this machine, so the program's `import` option drives it.
  it("import adopts a bucket and a credential made outside Pulumi; the next preview plans no change", async () => {
    const outside = await createOutside();
    const adopted: Declared[] = [
      bucket,
      credential,
      {
        type: "Bucket",
        name: "imported",
        inputs: { name: `${bucketName}-outside`, storageClass: "Standard" },
        outputs: ["bucketId", "s3Endpoint", "region", "createdAt", "adopted"],
        importId: outside.bucketId,
      },
      {
        type: "BucketCredential",
        name: "imported-cred",
        inputs: { bucketId: outside.bucketId },
        outputs: [
          "accessKeyId",
          "secretAccessKey",
          "secretKnown",
          "bucketName",
          "s3Endpoint",
          "region",
          "createdAt",
          "active",
        ],
        importId: `${outside.bucketId}/${outside.accessKeyId}`,
      },
    ];
    const up = await op({ op: "up" }, adopted);
    expect(opsOf(up, "imported")).toEqual(["import"]);
    expect(opsOf(up, "imported-cred")).toEqual(["import"]);
    expect(up.outputs?.["imported.bucketId"]?.value).toBe(outside.bucketId);
    expect(up.outputs?.["imported.s3Endpoint"]?.value).toBe(emulator.s3Url);
    expect(up.outputs?.["imported.region"]?.value).toBe("us-east-1");
    expect(up.outputs?.["imported.createdAt"]?.value).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(up.outputs?.["imported.adopted"]?.value).toBe(false);
    expect(up.outputs?.["imported-cred.accessKeyId"]?.value).toBe(outside.accessKeyId);
    // The secret is returned only when a credential is created: an import cannot have it, and says so.
    expect(up.outputs?.["imported-cred.secretAccessKey"]?.value).toBe("");
    expect(up.outputs?.["imported-cred.secretKnown"]?.value).toBe(false);
    // Everything else an S3 client needs is filled in by the import's read.
    expect(up.outputs?.["imported-cred.bucketName"]?.value).toBe(`${bucketName}-outside`);
    expect(up.outputs?.["imported-cred.s3Endpoint"]?.value).toBe(emulator.s3Url);
    expect(up.outputs?.["imported-cred.region"]?.value).toBe("us-east-1");
    expect(up.outputs?.["imported-cred.createdAt"]?.value).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(up.outputs?.["imported-cred.active"]?.value).toBe(true);

    const exported = await op({ op: "export" }, []);
    const ids = Object.fromEntries((exported.deployment?.resources ?? []).map((r) => [r.urn.split("::").pop(), r.id]));
    expect(ids["imported"]).toBe(outside.bucketId);
    expect(ids["imported-cred"], JSON.stringify(ids)).toBe(outside.accessKeyId);

    const preview = await op({ op: "preview" }, adopted);
    expect(preview.changes).toEqual({ same: 5 });
    // The import's read filled what a refresh's read keeps: reading it all back changes nothing.
    const refresh = await op({ op: "refresh" }, adopted);
    expect(refresh.changes).toEqual({ same: 5 });
  });

  it("import of an API key is refused with a message saying why", async () => {
    const refused = op({ op: "preview" }, [
      { type: "ApiKey", name: "k", inputs: {}, outputs: [], importId: "anything" },
    ]);
    await expect(refused).rejects.toThrow(/CLOUDPLATFORM_IMPORT_UNSUPPORTED/);
  });

  it("destroy deletes everything, imported objects included", async () => {
    const destroyed = await op({ op: "destroy" }, []);
    expect(opsOf(destroyed, "b")).toEqual(["delete"]);
    expect(opsOf(destroyed, "imported")).toEqual(["delete"]);
    const state = await emulatorState(emulator);
    expect(state).toMatchObject({ buckets: 0, credentials: 0 });
  });
});
