// The packages of this repository as an infra repository gets them: packed with `npm pack`, then
// installed from the tarball into a folder of its own (outside this repository, so nothing of its
// node_modules can be found), with npm resolving their dependencies as it would for a user.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import readline from "node:readline";
import { promisify } from "node:util";
import { packOnce } from "../../../scripts/lib/pack-once.mts";
import { repoRoot } from "./plugin-cli.js";

const run = promisify(execFile);

/** `npm pack` of a folder of this repository (its `prepack` runs) into `outDir`; the tarball's path. */
export async function npmPack(folder: string, outDir: string): Promise<string> {
  const [tarball] = await packOnce(`npm pack ${folder}`, outDir, async (dir) => {
    await mkdir(dir, { recursive: true });
    const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", dir], {
      cwd: path.join(repoRoot, folder),
      maxBuffer: 16 * 1024 * 1024,
    });
    return [path.join(dir, stdout.trim().split("\n").pop() ?? "")];
  });
  return tarball ?? "";
}

/** `npm run sdk:pack` (the generated Node.js SDK, compiled with tsc and packed) into `outDir`; the tarball's path. */
export async function packSdk(outDir: string): Promise<string> {
  const [tarball] = await packOnce("npm run sdk:pack", outDir, async (dir) => {
    const { stdout } = await run("npm", ["run", "--silent", "sdk:pack", "--", "--out-dir", dir], {
      cwd: repoRoot,
      maxBuffer: 16 * 1024 * 1024,
    });
    return [stdout.trim().split("\n").pop() ?? ""];
  });
  return tarball ?? "";
}

/** The PATH of a machine with Node and the system's tools: no folder of this repository. */
export function plainPath(extra: readonly string[] = []): string {
  return [...extra, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);
}

/**
 * The environment npm needs to reach the registry from this machine (certificates, proxies, npm's
 * own settings), and HOME for its cache: nothing else of the caller's shell but Node's compile cache
 * (scripts/test.sh), which changes no behaviour, only the time a load takes.
 */
export function npmEnv(): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    ([name, value]) =>
      value !== undefined &&
      /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|npm_config_.*)$/i.test(name),
  ) as Array<[string, string]>;
  return { ...Object.fromEntries(kept), ...compileCache(), HOME: process.env.HOME ?? tmpdir(), PATH: plainPath() };
}

/** Node's compile cache of the run, when it has one: it changes no behaviour, only the time a load takes. */
const compileCache = (): Record<string, string> =>
  process.env["NODE_COMPILE_CACHE"] ? { NODE_COMPILE_CACHE: process.env["NODE_COMPILE_CACHE"] } : {};

/**
 * A `package.json` in `dir` (an empty folder), then `npm install` of `specs` (tarballs, names):
 * dependencies come from the npm cache when it has them, from the registry otherwise.
 */
export async function npmInstall(dir: string, specs: readonly string[], saveDev = false): Promise<void> {
  await writeFile(path.join(dir, "package.json"), `${JSON.stringify({ name: "infra", private: true }, null, 2)}\n`);
  await run(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      ...(saveDev ? ["--save-dev"] : []),
      ...specs,
    ],
    {
      cwd: dir,
      env: { ...compileCache(), HOME: process.env.HOME ?? dir, PATH: plainPath() },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    },
  );
}

export interface EmulatorLine {
  readonly baseUrl: string;
  readonly s3Url: string;
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly token: string;
  readonly shape: string;
}

export interface NpxEmulator {
  readonly line: EmulatorLine;
  readonly child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** `signal` to its process group (as Ctrl-C does); resolves once npx and the emulator have exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** `npx cloudplatform-emulator <args>` in `cwd`, as a user types it; resolves once its JSON line is read. */
export async function npxEmulator(cwd: string, args: readonly string[]): Promise<NpxEmulator> {
  // A process group of its own, as a terminal gives a command: npx runs the emulator under `sh -c`,
  // which does not pass a signal on, so Ctrl-C (the whole group) is what stops all three.
  const child = spawn("npx", ["cloudplatform-emulator", ...args], {
    cwd,
    env: { HOME: process.env.HOME ?? cwd, PATH: plainPath() },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = readline.createInterface({ input: child.stdout! });
  // "close", not "exit": npx may end before the emulator it started, which shares its stdout and
  // stderr; the pipes close once both have.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const line = await new Promise<EmulatorLine>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no JSON line within 60 s; stderr:\n${stderr}`)), 60_000);
    void exited.then((code) => reject(new Error(`npx cloudplatform-emulator exited with ${code}; stderr:\n${stderr}`)));
    lines.once("line", (text) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(text) as EmulatorLine);
      } catch {
        reject(new Error(`its first line is not JSON: ${text.slice(0, 200)}`));
      }
    });
  });
  lines.on("line", () => undefined);
  return {
    line,
    child,
    stderr: () => stderr,
    stop: async (signal = "SIGINT") => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        process.kill(-child.pid, signal);
      }
      await exited;
    },
  };
}

/**
 * The Node.js language host's stand-in (language-host.mts) as a program named
 * `pulumi-language-nodejs` in a folder of its own under `root`: put that folder on PATH and the CLI
 * runs a TypeScript program's `pulumi up` as the vendor's host would. The folder's path.
 */
export async function languageHostFolder(root: string): Promise<string> {
  const dir = path.join(root, "language-host");
  await mkdir(dir, { recursive: true });
  const host = path.join(dir, "pulumi-language-nodejs");
  const standIn = path.join(repoRoot, "test", "e2e", "support", "language-host.mts");
  await writeFile(host, `#!/bin/sh\nexec "${process.execPath}" "${standIn}" "$@"\n`);
  await chmod(host, 0o755);
  return dir;
}

/** The version of a package this repository is installed with, so that npm takes it from its cache. */
const installed = (name: string): string =>
  (createRequire(path.join(repoRoot, "package.json"))(`${name}/package.json`) as { version: string }).version;

export interface NewTypescript {
  /** tsconfig's `module` (the template's is commonjs; nodenext is what newer projects choose). */
  readonly module?: "commonjs" | "nodenext";
  /** What the reader adds with `npm install` after the template's own packages (a tarball, a name). */
  readonly add?: readonly string[];
  /** The environment npm runs with (default npmEnv()). */
  readonly env?: Record<string, string>;
}

/**
 * A program in `dir` laid out as `pulumi new typescript` lays it out (its Pulumi.yaml, package.json,
 * tsconfig.json, an index.ts at the root) and installed as it installs it, then `add`ed to as a
 * reader adds packages.
 */
export async function pulumiNewTypescript(dir: string, name: string, options: NewTypescript = {}): Promise<void> {
  const module = options.module ?? "commonjs";
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
  await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...(options.add ?? [])],
    { cwd: dir, env: options.env ?? npmEnv(), maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
  );
}
