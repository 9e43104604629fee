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
// since: exactly those, and the next plan deletes nothing. A stack moved from the dynamic SDK to the
// plugin and back: cloudplatform-import-move.test.ts; every answer shape on paged lists:
// cloudplatform-import-shapes.test.ts (three files, so that two workers share their time).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startEmulator } from "../../emulator/src/index.js";
import { management, providerConfig, type Emulator } from "../support/emulator.js";
import { repoRoot, toolDir } from "./support/plugin-cli.js";
import {
  expectNoSecret,
  importEntries,
  ofThisPackage,
  readmeTypescript,
  resourcesOf,
  runIn,
  toolsFor,
  usePackedForImport,
  writes,
  type ExportedResource,
  type ImportTools,
} from "./support/import.js";
import { pulumiNewTypescript } from "./support/packages.js";
import { readerScript } from "./support/readme.js";
import { roundTrip } from "./support/s3.js";

const packed = usePackedForImport();

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

describe("a project of 61 objects made behind Pulumi's back", () => {
  let emulator: Emulator;
  let project: Project;
  let stateDir: string;
  let scratch: string;
  let tools: ImportTools;
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
    scratch = packed().scratch;
    stateDir = path.join(scratch, "state");
    tools = await toolsFor(packed(), stateDir, emulator);
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
      await pulumiNewTypescript(dir, `imported-ts-${module}`, { module, add: [packed().sdkPackage] });
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
