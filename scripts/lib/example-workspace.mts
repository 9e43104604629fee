// Turns an example directory into a deployable program exactly as a user would install it: the
// repository packed with `npm pack` and installed from the tarball (never a `file:` link, whose
// modules resolve outside node_modules and would be serialized by value into __provider).
// One install per tarball content is shared by every example copy (node_modules symlink).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { examplesDir, repoRoot, testCacheDir } from "./paths.mts";

const run = promisify(execFile);
const log = (message: string): void => void process.stderr.write(`[examples] ${message}\n`);

/** Files of an example that make up the program (stack files and installs are per copy). */
const exampleFiles = ["Pulumi.yaml", "package.json", "tsconfig.json", "index.ts"];

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Packs the repository (already built) and returns the tarball path, named by its content hash. */
async function packRepository(): Promise<{ tarball: string; hash: string }> {
  if (!(await exists(path.join(repoRoot, "bin", "sdk", "index.js")))) {
    throw new Error("bin/sdk/index.js is missing: run `npm run build` first");
  }
  await mkdir(testCacheDir, { recursive: true });
  const packDir = await mkdtemp(path.join(testCacheDir, "pack-"));
  try {
    // --ignore-scripts: `prepare` would rebuild; the callers build once before.
    const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", packDir, repoRoot], {
      cwd: repoRoot,
    });
    const name = stdout.trim().split("\n").pop() ?? "";
    const packed = path.join(packDir, name);
    const hash = createHash("sha256").update(await readFile(packed)).digest("hex").slice(0, 16);
    const tarball = path.join(testCacheDir, `pulumi-cloudplatform-${hash}.tgz`);
    await rename(packed, tarball);
    return { tarball, hash };
  } finally {
    await rm(packDir, { recursive: true, force: true });
  }
}

/** Installs the tarball and @pulumi/pulumi once per tarball hash; returns the node_modules path. */
async function installDependencies(tarball: string, hash: string): Promise<string> {
  const depsDir = path.join(testCacheDir, `deps-${hash}`);
  const nodeModules = path.join(depsDir, "node_modules");
  if (await exists(path.join(depsDir, ".complete"))) return nodeModules;

  const pulumiVersion = createRequire(path.join(repoRoot, "package.json"))("@pulumi/pulumi/package.json").version as string;
  const partial = await mkdtemp(path.join(testCacheDir, "deps-partial-"));
  log(`installing ${path.basename(tarball)} and @pulumi/pulumi@${pulumiVersion} (once per build)`);
  await writeFile(
    path.join(partial, "package.json"),
    JSON.stringify({ name: "cloudplatform-example-deps", private: true, version: "0.0.0" }, null, 2),
  );
  try {
    await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball, `@pulumi/pulumi@${pulumiVersion}`],
      { cwd: partial, maxBuffer: 64 * 1024 * 1024 },
    );
    await writeFile(path.join(partial, ".complete"), new Date().toISOString());
    await rm(depsDir, { recursive: true, force: true });
    await rename(partial, depsDir);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
  await pruneOldInstalls(hash);
  return nodeModules;
}

/** Keeps the cache to the current build: older installs are ~100 MB each. */
async function pruneOldInstalls(currentHash: string): Promise<void> {
  for (const entry of await readdir(testCacheDir)) {
    const stale =
      (entry.startsWith("deps-") && entry !== `deps-${currentHash}`) ||
      (entry.startsWith("pulumi-cloudplatform-") && entry !== `pulumi-cloudplatform-${currentHash}.tgz`);
    if (stale) await rm(path.join(testCacheDir, entry), { recursive: true, force: true });
  }
}

let installed: Promise<string> | undefined;

/** The shared node_modules holding the packed package, built once per process. */
export function exampleDependencies(): Promise<string> {
  installed ??= packRepository().then(({ tarball, hash }) => installDependencies(tarball, hash));
  return installed;
}

export interface PreparedExample {
  /** The copy to deploy: Pulumi.yaml, index.ts, index.js (compiled) and node_modules. */
  readonly workDir: string;
  readonly projectName: string;
}

/**
 * Copies examples/<name> into a fresh temp directory, links the shared install, and compiles
 * index.ts to CommonJS index.js so the runner's inline program can `require` it.
 */
export async function prepareExample(name: string, parentDir?: string): Promise<PreparedExample> {
  const source = path.join(examplesDir, name);
  if (!(await exists(path.join(source, "Pulumi.yaml")))) throw new Error(`no example named "${name}" in ${examplesDir}`);
  const nodeModules = await exampleDependencies();
  const workDir = await mkdtemp(path.join(parentDir ?? os.tmpdir(), `cloudplatform-${name}-`));
  for (const file of exampleFiles) await cp(path.join(source, file), path.join(workDir, file));
  await symlink(nodeModules, path.join(workDir, "node_modules"), "dir");
  await compileEntry(workDir);
  return { workDir, projectName: await readProjectName(workDir) };
}

async function compileEntry(workDir: string): Promise<void> {
  // The repository's TypeScript: the examples themselves are typechecked by `npm run typecheck`.
  const ts = createRequire(path.join(repoRoot, "package.json"))("typescript") as typeof import("typescript");
  const source = await readFile(path.join(workDir, "index.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, {
    fileName: "index.ts",
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  await writeFile(path.join(workDir, "index.js"), outputText);
}

export async function readProjectName(workDir: string): Promise<string> {
  const yaml = await readFile(path.join(workDir, "Pulumi.yaml"), "utf8");
  const match = /^name:\s*["']?([^"'\s]+)/m.exec(yaml);
  if (!match?.[1]) throw new Error(`${workDir}/Pulumi.yaml has no "name:" line`);
  return match[1];
}
