// cloudplatform-import with the real engine against the emulator (paged lists): a project of 61
// objects made behind Pulumi's back (zones; buckets of every storage class, hand-named and
// auto-named, with dots, dashes and leading digits; 2–4 credentials each, some deactivated) brought
// under Pulumi three ways: `pulumi import --file` in a YAML project (the plugin installed from its
// tarball), the file's objects imported by a Go program (Go Automation API, `import` option: no Go
// language host here to generate code), both running the command with `npx -p <packed package>` as
// the README says (no node_modules), and the README's TypeScript steps run as written in programs
// laid out as `pulumi new typescript` lays them out (module commonjs and nodenext, the packed
// package installed with npm, the command run in the program's directory, plain `pulumi up`).
// After each: a preview plans nothing, the platform saw no write, every credential's secret still
// works over S3, and the stack's export holds no secret. Run again: nothing new; three objects made
// since: exactly those, and the next plan deletes nothing. Then a stack moved from the dynamic SDK to the plugin and back, the old
// stack left without deleting anything. And the command against every answer shape, on paged lists.
import { execFile } from "node:child_process";
import { appendFile, chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startEmulator, type ShapeName } from "../../emulator/src/index.js";
import { main as importCommand } from "../../provider/import/main.js";
import { closePools } from "../../provider/client.js";
import { createCredential, setCredentialActive } from "../../provider/resources/bucket-credential/api.js";
import { createBucket } from "../../provider/resources/bucket/api.js";
import { createZone } from "../../provider/resources/dns-zone/api.js";
import { hostFor, management, providerConfig, type Emulator } from "../support/emulator.js";
import { emulatorStats, Platform, type EmulatorInventory } from "../support/platform.mts";
import {
  isolatedPath,
  packPlugin,
  pluginVersion,
  pulumiBinDir,
  repoRoot,
  toolDir,
  yamlHostDir,
} from "./support/plugin-cli.js";
import { changesOtherThanSame, ExampleStack } from "../support/runner.js";
import { npmEnv, npmPack } from "./support/packages.js";
import { readerScript, readmeBlocks } from "./support/readme.js";
import { roundTrip } from "./support/s3.js";
import type { CodeBlock } from "./support/readme.js";

const run = promisify(execFile);

/** As scripts/lib/runner.mts keeps its stacks: the TypeScript stacks share this backend with the others. */
const passphrase = "cloudplatform-local-passphrase";

/** The engine's variables for stacks kept under `stateDir`, as the runner's, with the YAML host on PATH. */
async function engineEnvironment(stateDir: string): Promise<Record<string, string>> {
  await mkdir(path.join(stateDir, "backend"), { recursive: true });
  await mkdir(path.join(stateDir, "home"), { recursive: true });
  return {
    HOME: process.env["HOME"] ?? stateDir,
    PULUMI_BACKEND_URL: `file://${path.join(stateDir, "backend")}`,
    PULUMI_HOME: path.join(stateDir, "home"),
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    PATH: await isolatedPath([await pulumiBinDir(), await yamlHostDir()]),
  };
}

/** Runs a program with the engine's environment; its stdout, stderr on failure in the error. */
async function runIn(env: Record<string, string>, cwd: string, file: string, args: readonly string[], input?: string) {
  try {
    const running = run(file, [...args], { cwd, env, maxBuffer: 256 << 20, timeout: 600_000 });
    running.child.stdin?.end(input ?? "");
    return await running;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${path.basename(file)} ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`,
      {
        cause: error,
      },
    );
  }
}

interface Made {
  readonly zones: Map<string, string>;
  /** Bucket id → name and storage class. */
  readonly buckets: Map<string, { name: string; storageClass: string }>;
  /** Access key id → its bucket, its secret (known to this test only), whether it is active. */
  readonly credentials: Map<string, { bucketId: string; bucketName: string; secret: string; active: boolean }>;
}

const storageClasses = ["Standard", "InfrequentAccess", "Archive"];

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** Objects made through the management API, as someone outside Pulumi would. */
class Project {
  readonly made: Made = { zones: new Map(), buckets: new Map(), credentials: new Map() };
  constructor(private readonly emulator: Emulator) {}

  async zone(name: string): Promise<string> {
    const z = await json<{ id: string }>(await management(this.emulator, "POST", "/dns/zones", { name }));
    this.made.zones.set(z.id, name);
    return z.id;
  }

  async bucket(name: string, storageClass: string): Promise<string> {
    const body = { name, storage_class: storageClass };
    const b = await json<{ id: string }>(await management(this.emulator, "POST", "/object-storage/buckets", body));
    this.made.buckets.set(b.id, { name, storageClass });
    return b.id;
  }

  async credential(bucketId: string, active: boolean): Promise<string> {
    const path = `/object-storage/buckets/${bucketId}/credentials`;
    const c = await json<{ access_key_id: string; secret_access_key: string }>(
      await management(this.emulator, "POST", path),
    );
    if (!active) await json(await management(this.emulator, "POST", `${path}/${c.access_key_id}/deactivate`));
    const bucketName = this.made.buckets.get(bucketId)?.name ?? "";
    this.made.credentials.set(c.access_key_id, { bucketId, bucketName, secret: c.secret_access_key, active });
    return c.access_key_id;
  }

  get secrets(): string[] {
    return [...this.made.credentials.values()].map((c) => c.secret);
  }

  /** Every credential's secret still works over S3 (a deactivated one is still refused). */
  async expectSecretsWork(): Promise<void> {
    for (const [accessKeyId, c] of this.made.credentials) {
      const access = {
        endpoint: this.emulator.s3Url,
        region: "us-east-1",
        bucket: c.bucketName,
        accessKeyId,
        secretAccessKey: c.secret,
      };
      const answer = await roundTrip(access, `probe-${accessKeyId}.txt`);
      if (c.active) expect(answer, `${accessKeyId} of ${c.bucketName}`).toBe("ok");
      else expect(answer, `${accessKeyId} of ${c.bucketName} (deactivated)`).not.toBe("ok");
    }
  }
}

async function writes(emulator: Emulator): Promise<number> {
  return (await emulatorStats(emulator)).writes;
}

/** What `pulumi stack export` (no secrets shown) must not hold. */
function expectNoSecret(exported: string, secrets: readonly string[], emulator: Emulator): void {
  expect(exported.length).toBeGreaterThan(100);
  for (const secret of [...secrets, emulator.apiKey, emulator.token]) expect(exported.includes(secret)).toBe(false);
}

interface ExportedResource {
  readonly type: string;
  readonly id?: string;
  readonly urn: string;
  readonly outputs?: Record<string, unknown>;
}

function resourcesOf(exported: string): ExportedResource[] {
  return (JSON.parse(exported) as { deployment: { resources?: ExportedResource[] } }).deployment.resources ?? [];
}

const ofThisPackage = (r: ExportedResource) => /cloudplatform(:index)?:(DnsZone|Bucket|BucketCredential)$/.test(r.type);

interface ImportEntry {
  readonly type: string;
  readonly name: string;
  readonly id: string;
}

async function importEntries(dir: string, file = "cloudplatform-import.json"): Promise<ImportEntry[]> {
  return (JSON.parse(await readFile(path.join(dir, file), "utf8")) as { resources: ImportEntry[] }).resources;
}

/** The TypeScript steps of docs/import.md (the README links it): its shell block, and the lines index.ts gets. */
async function readmeTypescript(): Promise<{ shell: CodeBlock; index: string }> {
  const blocks = await readmeBlocks("TypeScript on the dynamic SDK", "docs/import.md");
  const shell = blocks.find((b) => b.language === "sh");
  const index = blocks.find((b) => b.language === "ts");
  if (shell === undefined || index === undefined) throw new Error("the README's TypeScript steps lost a block");
  return { shell, index: index.text };
}

/** A TypeScript program on the dynamic SDK whose index.ts uses the written program file as the README says. */
async function typescriptProgram(root: string, name: string, programFile: string): Promise<void> {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  const quickstart = path.join(repoRoot, "examples", "quickstart");
  await writeFile(path.join(dir, "Pulumi.yaml"), `name: cloudplatform-${name}\nruntime:\n  name: nodejs\n`);
  await copyFile(path.join(quickstart, "package.json"), path.join(dir, "package.json"));
  await copyFile(path.join(quickstart, "tsconfig.json"), path.join(dir, "tsconfig.json"));
  await writeFile(path.join(dir, "index.ts"), (await readmeTypescript()).index);
  await copyFile(programFile, path.join(dir, path.basename(programFile)));
}

/** The version of a package this repository is installed with, so that npm takes it from its cache. */
const installed = (name: string): string =>
  (createRequire(path.join(repoRoot, "package.json"))(`${name}/package.json`) as { version: string }).version;

/**
 * A program in `dir` laid out as `pulumi new typescript` lays it out (its Pulumi.yaml, package.json,
 * tsconfig.json with `module` as given, index.ts at the root), with the packed package installed by
 * npm from its tarball, as a user adds it.
 */
async function newTypescriptProgram(dir: string, name: string, module: "commonjs" | "nodenext"): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, "Pulumi.yaml"),
    `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\ndescription: A minimal TypeScript Pulumi program\n`,
  );
  const manifest = {
    name,
    main: "index.ts",
    // As the template has them (this repository's TypeScript 6 refuses the template's moduleResolution).
    devDependencies: { "@types/node": "^18", typescript: "^5.0.0" },
    dependencies: { "@pulumi/pulumi": installed("@pulumi/pulumi") },
  };
  await writeFile(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 4)}\n`);
  const compilerOptions = {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module,
    moduleResolution: module === "commonjs" ? "node" : "nodenext",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  };
  await writeFile(
    path.join(dir, "tsconfig.json"),
    `${JSON.stringify({ compilerOptions, files: ["index.ts"] }, null, 4)}\n`,
  );
  await writeFile(path.join(dir, "index.ts"), 'import * as pulumi from "@pulumi/pulumi";\n');
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", sdkPackage], {
    cwd: dir,
    env: npmEnv(),
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
}

let scratch: string;
let tarball: string;
/** The npm package, packed: what a user installs, or runs with `npx -p`. */
let sdkPackage: string;
/** Where the stand-in for the Node.js language host is (support/language-host.mts), as gitops.test.ts puts it. */
let languageHostDir: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-import-e2e-"));
  tarball = await packPlugin(scratch);
  sdkPackage = await npmPack(".", scratch);
  languageHostDir = path.join(scratch, "language-host");
  await mkdir(languageHostDir);
  const host = path.join(languageHostDir, "pulumi-language-nodejs");
  const standIn = path.join(repoRoot, "test", "e2e", "support", "language-host.mts");
  await writeFile(host, `#!/bin/sh\nexec "${process.execPath}" "${standIn}" "$@"\n`);
  await chmod(host, 0o755);
}, 600_000);
afterAll(async () => {
  await closePools();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The Pulumi CLI and the installed package's `cloudplatform-import`, on stacks kept under `stateDir`. */
async function toolsFor(stateDir: string, emulator: Emulator) {
  // npm's own settings too: `npx -p` installs the packed package's dependencies, from its cache when it can.
  const env: Record<string, string> = {
    ...npmEnv(),
    ...(await engineEnvironment(stateDir)),
    npm_config_prefer_offline: "true",
  };
  /** With the Node.js language host's stand-in, for plain `pulumi up` of a TypeScript program. */
  const tsEnv = {
    ...env,
    PATH: `${languageHostDir}${path.delimiter}${env["PATH"] ?? ""}`,
    PULUMI_SKIP_CONFIRMATIONS: "true",
  };
  const pulumiBin = path.join(await pulumiBinDir(), "pulumi");
  await runIn(env, stateDir, pulumiBin, [
    "plugin",
    "install",
    "resource",
    "cloudplatform",
    pluginVersion(),
    "--file",
    tarball,
  ]);
  return {
    env,
    pulumi: async (dir: string, args: readonly string[], input?: string) =>
      (await runIn(env, dir, pulumiBin, [...args, "--non-interactive"], input)).stdout,
    /** As the README has a program without node_modules (YAML, Go, …) run it: from the packed package. */
    importCommand: (dir: string, args: readonly string[], extraEnv: Record<string, string> = {}) =>
      runIn({ ...env, ...extraEnv }, dir, "npx", ["--yes", "-p", sdkPackage, "cloudplatform-import", ...args]),
    /** A line of the README's shell, in a TypeScript program's directory (its node_modules/.bin by npx). */
    shell: (dir: string, line: string) => runIn(tsEnv, dir, "bash", ["-c", line]),
    /** The plan of `pulumi preview --json` in a TypeScript program's directory: its change summary. */
    async plan(dir: string): Promise<Record<string, number>> {
      const { stdout } = await runIn(tsEnv, dir, "pulumi", ["preview", "--json", "--non-interactive"]);
      return (JSON.parse(stdout) as { changeSummary: Record<string, number> }).changeSummary;
    },
    /** A stack e2e in `dir` whose config points at the emulator. */
    async stack(dir: string) {
      await this.pulumi(dir, ["stack", "init", "e2e"]);
      await this.pulumi(dir, ["config", "set", "cloudplatform:baseUrl", emulator.baseUrl]);
      await this.pulumi(dir, ["config", "set", "cloudplatform:s3Url", emulator.s3Url]);
      await this.pulumi(dir, ["config", "set", "--secret", "cloudplatform:apiKey"], emulator.apiKey);
    },
    /** A YAML project in `dir` with a stack e2e whose config points at the emulator. */
    async yamlProject(dir: string, project: string) {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, "Pulumi.yaml"), `name: ${project}\nruntime: yaml\n`);
      await this.stack(dir);
    },
    /** `pulumi import --file` of each file, the declarations it writes appended to the program. */
    async importInto(dir: string, files: readonly string[], quote: readonly string[] = []): Promise<string> {
      let generated = "";
      for (const [i, file] of files.entries()) {
        const out = `generated-${i}.yaml`;
        await this.pulumi(dir, ["import", "--file", file, "--yes", "--protect=false", "--out", out]);
        generated += (await readFile(path.join(dir, out), "utf8")).replace(/^resources:\n/, "");
      }
      // What the command said to quote, quoted as it said (`name: 0x1f  →  name: "0x1f"`).
      for (const line of quote) {
        const [from = "", to = ""] = line.trim().split("  →  ");
        generated = generated.replaceAll(`${from}\n`, `${to}\n`);
      }
      const program = await readFile(path.join(dir, "Pulumi.yaml"), "utf8");
      await appendFile(
        path.join(dir, "Pulumi.yaml"),
        `${program.includes("\nresources:\n") ? "" : "resources:\n"}${generated}`,
      );
      return generated;
    },
  };
}

describe("a project of 61 objects made behind Pulumi's back", () => {
  let emulator: Emulator;
  let project: Project;
  let stateDir: string;
  let tools: Awaited<ReturnType<typeof toolsFor>>;
  let yamlDir: string;
  /** The TypeScript programs, one per module setting, each with its own stack e2e. */
  const tsDirs = new Map<"commonjs" | "nodenext", string>();
  let goDir: string;
  let goProgram: string;
  /** What the Go program declares: every object it imported so far. */
  let goDeclared: unknown[] = [];
  const bucketNames = [
    "media-logs",
    "media.logs",
    "assets.example.com",
    "3d-assets",
    "import",
    "logs-x7k2p9q",
    "backup.2026.q4",
    "a--b",
    "0day",
    // Names YAML reads as a boolean and numbers: the engine's YAML code generation leaves them unquoted.
    "true",
    "data-lake-raw",
    "data.lake.raw",
    "0x1f",
    "1e3",
  ];
  const zoneNames = [
    "example.com",
    "media.example.org",
    "a-b.example.net",
    "3d.example",
    "assets.example.com",
    "import.example",
  ];

  beforeAll(async () => {
    emulator = await startEmulator({ logger: silentLogger, pageSize: 7 });
    project = new Project(emulator);
    for (const name of zoneNames) await project.zone(name);
    for (const [i, name] of bucketNames.entries()) {
      const id = await project.bucket(name, storageClasses[i % 3] as string);
      for (let k = 0; k < 2 + (i % 3); k++) await project.credential(id, (i + k) % 3 !== 1);
    }
    stateDir = path.join(scratch, "state");
    tools = await toolsFor(stateDir, emulator);
    yamlDir = path.join(scratch, "yaml-import");
    goDir = path.join(scratch, "go-import");
    goProgram = path.join(await toolDir("CLOUDPLATFORM_GO_E2E_BIN_DIR", "build-go-e2e.sh"), "cloudplatform-go-e2e");
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("has every storage class, deactivated credentials, and 61 objects", () => {
    const classes = new Set([...project.made.buckets.values()].map((b) => b.storageClass));
    expect([...classes].sort()).toEqual(["Archive", "InfrequentAccess", "Standard"]);
    const deactivated = [...project.made.credentials.values()].filter((c) => !c.active);
    expect(deactivated.length).toBeGreaterThan(5);
    expect(project.made.zones.size + project.made.buckets.size + project.made.credentials.size).toBe(61);
  });

  it("the dry run lists every object and writes nothing; nothing secret in its output", async () => {
    await tools.yamlProject(yamlDir, "cloudplatform-import-yaml");
    const { stdout, stderr } = await tools.importCommand(yamlDir, ["--dry-run"]);
    expect(stdout).toContain("skipped the project API key: the platform cannot read it back");
    expect(stdout).toContain("+ BucketCredential ");
    expect(stdout.match(/^ {2}\+ /gm)).toHaveLength(61);
    expect(stdout).toContain(
      "cloudplatform-import: 6 zones, 14 buckets, 41 credentials to import (61 objects); 0 already managed by " +
        "stack e2e left out; 1 skipped: the project API key",
    );
    expect(stdout).toContain("dry run: nothing was written.");
    expect(stderr).toMatch(/listed 6 zones and 14 buckets; credentials of 14 of them \(41 credentials\)\./);
    for (const secret of [...project.secrets, emulator.apiKey]) expect(stdout + stderr).not.toContain(secret);
    await expect(readFile(path.join(yamlDir, "cloudplatform-import.json"))).rejects.toThrow();
  });

  it("YAML: `pulumi import --file` then a preview with no change; no write, every secret still works, none in the state", async () => {
    const before = await writes(emulator);
    const { stdout } = await tools.importCommand(yamlDir, []);
    const quote = stdout.split("\n").filter((l) => l.includes("  →  name: "));
    expect(quote).toEqual([
      '    name: 0x1f  →  name: "0x1f"',
      '    name: 1e3  →  name: "1e3"',
      '    name: true  →  name: "true"',
    ]);
    // The zone named like a bucket goes into the second file, so the first keeps its references.
    expect(stdout).toContain("1 zone(s) share a name with a bucket");
    const first = await importEntries(yamlDir);
    const second = await importEntries(yamlDir, "cloudplatform-import-2.json");
    expect(first).toHaveLength(60);
    expect(second).toEqual([
      { type: "cloudplatform:index:DnsZone", name: "assetsExampleComZone", id: expect.stringMatching(/^zone_/) },
    ]);
    const generated = await tools.importInto(
      yamlDir,
      ["cloudplatform-import.json", "cloudplatform-import-2.json"],
      quote,
    );
    expect(generated).toContain('name: "0x1f"\n');
    // Every credential refers to its bucket's id; its access key id is stated, its secret is not.
    expect(generated.match(/bucketId: \$\{[a-zA-Z0-9]+\.id\}/g)).toHaveLength(41);
    expect(generated).toContain("bucketId: ${mediaLogs.id}");
    expect(generated).toContain("bucketId: ${bucket3dAssets.id}");
    expect(generated).not.toMatch(/secretAccessKey|bkt_/);
    await tools.pulumi(yamlDir, ["preview", "--expect-no-changes"]);
    expect(await writes(emulator)).toBe(before);
    await project.expectSecretsWork();
    const exported = await tools.pulumi(yamlDir, ["stack", "export"]);
    expectNoSecret(exported, project.secrets, emulator);
    const credentials = resourcesOf(exported).filter((r) => r.type === "cloudplatform:index:BucketCredential");
    expect(credentials).toHaveLength(41);
    for (const c of credentials) expect(c.outputs?.["secretKnown"]).toBe(false);
  });

  /** The Go program's imports: the import file's objects, each with what declares it as it is. */
  async function goImports(files: readonly string[]) {
    const entries = (await Promise.all(files.map((f) => importEntries(goDir, f)))).flat();
    const bucketNameOf = new Map(entries.filter((e) => e.type.endsWith(":Bucket")).map((e) => [e.id, e.name]));
    return entries.map((e) => {
      const type = e.type.replace("cloudplatform:index:", "");
      if (type === "DnsZone") return { type, name: e.name, id: e.id, objectName: project.made.zones.get(e.id) };
      if (type === "Bucket") {
        const b = project.made.buckets.get(e.id);
        return { type, name: e.name, id: e.id, objectName: b?.name, storageClass: b?.storageClass };
      }
      const [bucketId = "", accessKeyId = ""] = e.id.split("/");
      const active = project.made.credentials.get(accessKeyId)?.active;
      return { type, name: e.name, id: e.id, bucket: bucketNameOf.get(bucketId) ?? "", bucketId, accessKeyId, active };
    });
  }

  async function goOp(op: "up" | "preview", imports: unknown[]): Promise<Record<string, number>> {
    const config = Object.fromEntries(
      Object.entries(providerConfig(emulator)).map(([k, v]) => [k, { value: v.value, secret: !!v.secret }]),
    );
    const request = { op, workDir: goDir, stack: "e2e", config, program: { imports } };
    const { stdout } = await runIn(tools.env, goDir, goProgram, [JSON.stringify(request)]);
    const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as {
      ok: boolean;
      error?: string;
      changes?: Record<string, number>;
    };
    if (!answer.ok) throw new Error(`go ${op} failed: ${answer.error}`);
    return answer.changes ?? {};
  }

  it("Go: the file's objects imported by a Go program (`import` option), then a preview with no change; no write", async () => {
    await mkdir(goDir, { recursive: true });
    const before = await writes(emulator);
    await tools.importCommand(goDir, [], {
      CLOUDPLATFORM_BASE_URL: emulator.baseUrl,
      CLOUDPLATFORM_API_KEY: emulator.apiKey,
    });
    const imports = await goImports(["cloudplatform-import.json", "cloudplatform-import-2.json"]);
    expect(imports).toHaveLength(61);
    const up = await goOp("up", imports);
    expect(up).toMatchObject({ import: 61 });
    expect(up["update"] ?? 0).toBe(0);
    expect(up["replace"] ?? 0).toBe(0);
    expect(await goOp("preview", imports)).toEqual({ same: 62 });
    goDeclared = imports;
    expect(await writes(emulator)).toBe(before);
    await project.expectSecretsWork();
    const exported = await tools.pulumi(goDir, ["stack", "export", "--stack", "e2e"]);
    expectNoSecret(exported, project.secrets, emulator);
  });

  /**
   * The README's TypeScript steps, line by line in the program's directory: `pulumi up` as
   * `pulumi up --yes` (no terminal to confirm on), and before it the plan, which must delete nothing.
   */
  async function readmeSteps(dir: string): Promise<{ plan: Record<string, number>; output: string }> {
    const { shell } = await readmeTypescript();
    let plan: Record<string, number> = {};
    let output = "";
    const script = readerScript(shell, { repository: repoRoot, baseUrl: emulator.baseUrl, s3Url: emulator.s3Url });
    for (const line of script.split("\n").slice(1)) {
      if (line.trim() === "" || line.startsWith("#")) continue;
      if (line.startsWith("pulumi up")) {
        plan = await tools.plan(dir);
        expect(plan["delete"] ?? 0, "the plan deletes nothing").toBe(0);
        expect(plan["replace"] ?? 0).toBe(0);
        expect(plan["update"] ?? 0).toBe(0);
      }
      output += (await tools.shell(dir, line.replace(/^pulumi up\b/, "pulumi up --yes"))).stdout;
    }
    return { plan, output };
  }

  /** What a TypeScript program's stack holds: its resources of this package, its output, no secret. */
  async function typescriptStack(dir: string): Promise<{ held: ExportedResource[]; declared: unknown }> {
    const exported = await tools.pulumi(dir, ["stack", "export"]);
    expectNoSecret(exported, project.secrets, emulator);
    const declared = JSON.parse(await tools.pulumi(dir, ["stack", "output", "importedObjects", "--json"]));
    return { held: resourcesOf(exported).filter(ofThisPackage), declared };
  }

  it.for(["commonjs", "nodenext"] as const)(
    "TypeScript (module %s), the README's steps as written in a `pulumi new typescript` program: every object taken over, no write; then no change",
    async (module) => {
      const dir = path.join(scratch, `ts-${module}`);
      await newTypescriptProgram(dir, `imported-ts-${module}`, module);
      await tools.stack(dir);
      await writeFile(path.join(dir, "index.ts"), (await readmeTypescript()).index, { flag: "a" });
      const before = await writes(emulator);
      const { plan, output } = await readmeSteps(dir);
      expect(plan).toEqual({ create: 62 });
      expect(output).toContain("6 zones, 14 buckets, 41 credentials to import (61 objects)");
      expect(await writes(emulator)).toBe(before);
      const program = await readFile(path.join(dir, "cloudplatform-imported.ts"), "utf8");
      expect(program).toContain("bucketId: mediaLogs.bucketId,");
      expect(program).not.toMatch(/secretAccessKey|cp-/);
      // The program type-checks with its own tsconfig, as the vendor's host (ts-node) checks it.
      await tools.shell(dir, "npx tsc --noEmit");
      const { held, declared } = await typescriptStack(dir);
      expect(held).toHaveLength(61);
      expect(declared).toBe(61);
      const credentials = held.filter((r) => r.type.endsWith(":BucketCredential"));
      expect(credentials).toHaveLength(41);
      for (const c of credentials) expect(c.outputs?.["secretKnown"]).toBe(false);
      await project.expectSecretsWork();
      tsDirs.set(module, dir);
    },
  );

  it("run again: nothing new, for every stack, under either type token", async () => {
    for (const [dir, label] of [
      [yamlDir, "yaml"],
      [goDir, "go"],
      ...[...tsDirs].map(([module, dir]) => [dir, `typescript, ${module}`] as const),
    ] as const) {
      const { stdout } = label.startsWith("typescript")
        ? await tools.shell(dir, "npx cloudplatform-import --stack e2e")
        : await tools.importCommand(dir, ["--stack", "e2e"]);
      expect(stdout, label).toContain(
        "cloudplatform-import: 0 zones, 0 buckets, 0 credentials to import (0 objects); 61 already managed by stack e2e left out",
      );
      expect(stdout, label).toContain("nothing new to import into stack e2e; no file written.");
    }
  });

  it("three objects made since: exactly those three, for every stack; imported, at rest, nothing ever planned for deletion", async () => {
    const zoneId = await project.zone("new.example");
    const bucketId = await project.bucket("new-bucket", "Archive");
    const mediaLogs = [...project.made.buckets].find(([, b]) => b.name === "media-logs")?.[0] ?? "";
    const accessKeyId = await project.credential(mediaLogs, true);
    const expected = [zoneId, `${mediaLogs}/${accessKeyId}`, bucketId];

    const before = await writes(emulator);
    for (const dir of [yamlDir, goDir]) {
      const { stdout } = await tools.importCommand(dir, ["--stack", "e2e"]);
      expect(stdout).toContain("1 zone, 1 bucket, 1 credential to import (3 objects); 61 already managed");
      expect((await importEntries(dir)).map((e) => e.id)).toEqual(expected);
      // The earlier run's second file is gone: it listed a zone the stack holds by now.
      await expect(readFile(path.join(dir, "cloudplatform-import-2.json"))).rejects.toThrow();
    }
    // TypeScript: the README's steps again, as they are; index.ts unchanged.
    expect([...tsDirs.keys()]).toEqual(["commonjs", "nodenext"]);
    for (const dir of tsDirs.values()) {
      const { plan, output } = await readmeSteps(dir);
      expect(plan).toEqual({ create: 3, same: 62 });
      expect(output).toContain("1 zone, 1 bucket, 1 credential to import (3 objects); 61 already managed");
      expect(output).toContain(
        "kept the 61 declarations earlier runs wrote to cloudplatform-imported.ts, and added 3.",
      );
      const { held, declared } = await typescriptStack(dir);
      expect(held).toHaveLength(64);
      expect(declared).toBe(64);
      // Once more, nothing new: the file stays, the plan is empty.
      const again = await tools.shell(dir, "npx cloudplatform-import");
      expect(again.stdout).toContain("nothing new to import into stack e2e; no file written.");
      expect(await tools.plan(dir)).toEqual({ same: 65 });
    }
    await tools.importInto(yamlDir, ["cloudplatform-import.json"]);
    await tools.pulumi(yamlDir, ["preview", "--expect-no-changes"]);
    // The Go program declares its whole stack: what it imported before, and the three.
    const goAll = [...goDeclared, ...(await goImports(["cloudplatform-import.json"]))];
    expect(await goOp("up", goAll)).toEqual({ same: 62, import: 3 });
    expect(await goOp("preview", goAll)).toEqual({ same: 65 });
    expect(await writes(emulator)).toBe(before);
    await project.expectSecretsWork();
  });
});

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
  let tools: Awaited<ReturnType<typeof toolsFor>>;
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
    stateDir = path.join(scratch, "move-state");
    tools = await toolsFor(stateDir, emulator);
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

describe("every answer shape the provider reads, on lists of two items a page", () => {
  const shapes: readonly ShapeName[] = ["canonical", "envelope", "flat", "by-name"];
  const saved = { ...process.env };
  afterAll(() => {
    process.env = { ...saved };
  });

  it.for(shapes)("%s: the same names, every object, each credential's state", async (shape) => {
    const emulator = await startEmulator({ logger: silentLogger, shape, pageSize: 2 });
    const dir = await mkdtemp(path.join(scratch, `shape-${shape}-`));
    try {
      const client = hostFor(emulator).context("Bucket", "fixture").client;
      for (const name of ["example.com", "b.example", "c.example"]) await createZone(client, name);
      const ids: string[] = [];
      for (const [name, storageClass] of [
        ["media-logs", "Archive"],
        ["media.logs", "Standard"],
        ["3d-assets", "InfrequentAccess"],
      ] as const) {
        ids.push((await createBucket(client, name, storageClass)).value.id);
      }
      for (const [i, bucketId] of [ids[0], ids[0], ids[0], ids[2]].entries()) {
        const made = await createCredential(client, bucketId as string, "repeat");
        if (i === 1) await setCredentialActive(client, bucketId as string, made.value.access_key_id, false);
      }
      process.env["CLOUDPLATFORM_BASE_URL"] = emulator.baseUrl;
      process.env["CLOUDPLATFORM_API_KEY"] = emulator.apiKey;
      const lines: string[] = [];
      expect(
        await importCommand(
          ["--cwd", dir],
          (l) => lines.push(l),
          () => undefined,
        ),
      ).toBe(0);
      expect(lines).toContain(
        "cloudplatform-import: 3 zones, 3 buckets, 4 credentials to import (10 objects); 1 skipped: the project " +
          "API key (the platform cannot read it back, and creating an ApiKey resource generates a new key).",
      );
      const entries = await importEntries(dir);
      expect(entries.map((e) => `${e.type.replace("cloudplatform:index:", "")} ${e.name}`)).toEqual([
        "DnsZone bExampleZone",
        "DnsZone cExampleZone",
        "DnsZone exampleComZone",
        "Bucket bucket3dAssets",
        expect.stringMatching(/^BucketCredential bucket3dAssetsKey[A-Z0-9][a-z0-9]{3}$/),
        "Bucket mediaLogs",
        expect.stringMatching(/^BucketCredential mediaLogsKey/),
        expect.stringMatching(/^BucketCredential mediaLogsKey/),
        expect.stringMatching(/^BucketCredential mediaLogsKey/),
        "Bucket mediaLogs2",
      ]);
      const program = await readFile(path.join(dir, "cloudplatform-imported.ts"), "utf8");
      expect(program.match(/active: false/g)).toHaveLength(1);
      expect(program.match(/active: true/g)).toHaveLength(3);
      for (const c of ["Archive", "Standard", "InfrequentAccess"]) expect(program).toContain(`storageClass: "${c}"`);
    } finally {
      await emulator.close();
    }
  });
});
