// The packages of this repository as an infra repository gets them: packed with `npm pack`, then
// installed from the tarball into a folder of its own (outside this repository, so nothing of its
// node_modules can be found), with npm resolving their dependencies as it would for a user.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import readline from "node:readline";
import { promisify } from "node:util";
import { packOnce } from "./pack-once.js";
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

/** The PATH of a machine with Node and the system's tools: no folder of this repository. */
export function plainPath(extra: readonly string[] = []): string {
  return [...extra, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);
}

/**
 * The environment npm needs to reach the registry from this machine (certificates, proxies, npm's
 * own settings), and HOME for its cache: nothing else of the caller's shell.
 */
export function npmEnv(): Record<string, string> {
  const kept = Object.entries(process.env).filter(
    ([name, value]) =>
      value !== undefined &&
      /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|npm_config_.*)$/i.test(name),
  ) as Array<[string, string]>;
  return { ...Object.fromEntries(kept), HOME: process.env.HOME ?? tmpdir(), PATH: plainPath() };
}

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
      env: { HOME: process.env.HOME ?? dir, PATH: plainPath() },
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
