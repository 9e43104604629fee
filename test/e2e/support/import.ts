// What the cloudplatform-import end-to-end files share (cloudplatform-import*.test.ts): the packed
// plugin and npm package, the engine's environment for stacks kept in a folder, the Pulumi CLI and
// the installed package's `cloudplatform-import` run on them, TypeScript programs laid out as a user
// lays them out, and what a stack's export must and must not hold.
import { execFile } from "node:child_process";
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect } from "vitest";
import { engineEnv } from "../../../scripts/lib/runner.mts";
import { type Emulator } from "../../support/emulator.js";
import { emulatorStats } from "../../support/platform.mts";
import { isolatedPath, packPlugin, pluginVersion, pulumiBinDir, repoRoot, yamlHostDir } from "./plugin-cli.js";
import { languageHostFolder, npmEnv, npmPack } from "./packages.js";
import { readmeBlocks } from "./readme.js";
import type { CodeBlock } from "./readme.js";

const run = promisify(execFile);

/** The engine's variables for stacks kept under `stateDir`, as the runner's (its passphrase: the TypeScript stacks share this backend), with the YAML host on an isolated PATH. */
async function engineEnvironment(stateDir: string): Promise<Record<string, string>> {
  await mkdir(path.join(stateDir, "backend"), { recursive: true });
  await mkdir(path.join(stateDir, "home"), { recursive: true });
  const binDir = await pulumiBinDir();
  return {
    ...engineEnv(stateDir, binDir),
    HOME: process.env["HOME"] ?? stateDir,
    PATH: await isolatedPath([binDir, await yamlHostDir()]),
  };
}

/** Runs a program with the engine's environment; its stdout, stderr on failure in the error. */
export async function runIn(
  env: Record<string, string>,
  cwd: string,
  file: string,
  args: readonly string[],
  input?: string,
) {
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

export async function writes(emulator: Emulator): Promise<number> {
  return (await emulatorStats(emulator)).writes;
}

/** What `pulumi stack export` (no secrets shown) must not hold. */
export function expectNoSecret(exported: string, secrets: readonly string[], emulator: Emulator): void {
  expect(exported.length).toBeGreaterThan(100);
  for (const secret of [...secrets, emulator.apiKey, emulator.token]) expect(exported.includes(secret)).toBe(false);
}

export interface ExportedResource {
  readonly type: string;
  readonly id?: string;
  readonly urn: string;
  readonly outputs?: Record<string, unknown>;
}

export function resourcesOf(exported: string): ExportedResource[] {
  return (JSON.parse(exported) as { deployment: { resources?: ExportedResource[] } }).deployment.resources ?? [];
}

export const ofThisPackage = (r: ExportedResource) =>
  /cloudplatform(:index)?:(DnsZone|Bucket|BucketCredential)$/.test(r.type);

export interface ImportEntry {
  readonly type: string;
  readonly name: string;
  readonly id: string;
}

export async function importEntries(dir: string, file = "cloudplatform-import.json"): Promise<ImportEntry[]> {
  return (JSON.parse(await readFile(path.join(dir, file), "utf8")) as { resources: ImportEntry[] }).resources;
}

/** The TypeScript steps of docs/import.md (the README links it): its shell block, and the lines index.ts gets. */
export async function readmeTypescript(): Promise<{ shell: CodeBlock; index: string }> {
  const blocks = await readmeBlocks("TypeScript on the dynamic SDK", "docs/import.md");
  const shell = blocks.find((b) => b.language === "sh");
  const index = blocks.find((b) => b.language === "ts");
  if (shell === undefined || index === undefined) throw new Error("the README's TypeScript steps lost a block");
  return { shell, index: index.text };
}

/** A TypeScript program on the dynamic SDK whose index.ts uses the written program file as the README says. */
export async function typescriptProgram(root: string, name: string, programFile: string): Promise<void> {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  const quickstart = path.join(repoRoot, "examples", "quickstart");
  await writeFile(path.join(dir, "Pulumi.yaml"), `name: cloudplatform-${name}\nruntime:\n  name: nodejs\n`);
  await copyFile(path.join(quickstart, "package.json"), path.join(dir, "package.json"));
  await copyFile(path.join(quickstart, "tsconfig.json"), path.join(dir, "tsconfig.json"));
  await writeFile(path.join(dir, "index.ts"), (await readmeTypescript()).index);
  await copyFile(programFile, path.join(dir, path.basename(programFile)));
}

/** What a file of these tests packs once, in its scratch folder: the plugin, the npm package, the host's stand-in. */
export interface Packed {
  readonly scratch: string;
  readonly tarball: string;
  /** The npm package, packed: what a user installs, or runs with `npx -p`. */
  readonly sdkPackage: string;
  /** Where the stand-in for the Node.js language host is (support/language-host.mts), as gitops.test.ts puts it. */
  readonly languageHostDir: string;
}

/** Packs the plugin and the npm package into `scratch` (once a run: scripts/lib/pack-once.mts), and writes the host's stand-in. */
export async function packForImport(scratch: string): Promise<Packed> {
  const tarball = await packPlugin(scratch);
  const sdkPackage = await npmPack(".", scratch);
  const languageHostDir = await languageHostFolder(scratch);
  return { scratch, tarball, sdkPackage, languageHostDir };
}

/**
 * Registers a file's hooks: before its tests, packs into a scratch folder of its own (which the file
 * also uses for its stacks and programs); after them, removes the folder. What was packed, to call
 * in a hook or a test.
 */
export function usePackedForImport(): () => Packed {
  let scratch: string | undefined;
  let packed: Packed | undefined;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-import-e2e-"));
    packed = await packForImport(scratch);
  }, 600_000);
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });
  return () => {
    if (packed === undefined)
      throw new Error("nothing packed yet: call this in a hook or a test, after the file's beforeAll");
    return packed;
  };
}

/** The Pulumi CLI and the installed package's `cloudplatform-import`, on stacks kept under `stateDir`. */
export async function toolsFor({ tarball, sdkPackage, languageHostDir }: Packed, stateDir: string, emulator: Emulator) {
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

/** The tools of `toolsFor`. */
export type ImportTools = Awaited<ReturnType<typeof toolsFor>>;
