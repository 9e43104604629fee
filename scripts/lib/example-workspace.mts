// Turns an example directory into a deployable program exactly as a user would install it: the
// repository packed with `npm pack` and installed from the tarball (never a `file:` link, whose
// modules resolve outside node_modules and would be serialized by value into __provider).
// One install per tarball content is shared by every example copy (node_modules symlink).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { packOnce } from "./pack-once.mts";
import { examplesDir, repoRoot, testCacheDir } from "./paths.mts";

const run = promisify(execFile);
const log = (message: string): void => void process.stderr.write(`[examples] ${message}\n`);

/** Files of an example that make up the program, with its TypeScript modules (stack files and installs are per copy). */
const exampleFiles = ["Pulumi.yaml", "package.json", "tsconfig.json"];

/** The program's TypeScript modules: index.ts and those beside it (e.g. a module it imports). */
async function typescriptModules(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")).sort();
}
/** Folders of content an example deploys (examples/site's `www`), copied when present. */
const exampleFolders = ["www"];

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Packs the repository (already built) and returns the tarball path, named by its content hash.
 * Within one `npm test` the pack is made once and copied to each process that prepares an example
 * (pack-once.mts): every end-to-end stack prepares its copy in a process of its own, and an
 * `npm pack` of the repository costs about 2 s of CPU, 40 times a run.
 */
async function packRepository(): Promise<{ tarball: string; hash: string }> {
  if (!(await exists(path.join(repoRoot, "bin", "sdk", "index.js")))) {
    throw new Error("bin/sdk/index.js is missing: run `npm run build` first");
  }
  await mkdir(testCacheDir, { recursive: true });
  const packDir = await mkdtemp(path.join(testCacheDir, "pack-"));
  try {
    const [packed = ""] = await packOnce("npm pack --ignore-scripts of the repository", packDir, async (dir) => {
      await mkdir(dir, { recursive: true });
      // --ignore-scripts: `prepack` would rebuild; the callers build once before.
      const { stdout } = await run(
        "npm",
        ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir, repoRoot],
        {
          cwd: repoRoot,
        },
      );
      return [path.join(dir, stdout.trim().split("\n").pop() ?? "")];
    });
    const hash = createHash("sha256")
      .update(await readFile(packed))
      .digest("hex")
      .slice(0, 16);
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
  if (await exists(path.join(depsDir, ".complete"))) {
    const now = new Date();
    await utimes(depsDir, now, now);
    return nodeModules;
  }

  const pulumiVersion = createRequire(path.join(repoRoot, "package.json"))("@pulumi/pulumi/package.json")
    .version as string;
  const partial = await mkdtemp(path.join(testCacheDir, "deps-partial-"));
  log(`installing ${path.basename(tarball)} and @pulumi/pulumi@${pulumiVersion} (once per build)`);
  await writeFile(
    path.join(partial, "package.json"),
    JSON.stringify({ name: "cloudplatform-example-deps", private: true, version: "0.0.0" }, null, 2),
  );
  try {
    await run(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        tarball,
        `@pulumi/pulumi@${pulumiVersion}`,
      ],
      { cwd: partial, maxBuffer: 64 * 1024 * 1024 },
    );
    await writeFile(path.join(partial, ".complete"), new Date().toISOString());
  } catch (error) {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  // Another process (a parallel test run) may have finished the same install first: keep theirs,
  // since copies may already link to it.
  await rename(partial, depsDir).catch(async () => {
    await rm(partial, { recursive: true, force: true });
    if (!(await exists(path.join(depsDir, ".complete")))) throw new Error(`could not install into ${depsDir}`);
  });
  await pruneStaleInstalls();
  return nodeModules;
}

/** Installs are ~100 MB each: drop those unused for a day (never recent ones, which a parallel run may use). */
async function pruneStaleInstalls(): Promise<void> {
  const cutoff = Date.now() - 24 * 3600 * 1000;
  for (const entry of await readdir(testCacheDir)) {
    if (!entry.startsWith("deps-") && !entry.startsWith("pulumi-cloudplatform-")) continue;
    const file = path.join(testCacheDir, entry);
    const info = await stat(file).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await rm(file, { recursive: true, force: true });
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
 * Copies examples/<name> (or <sourceRoot>/<name>: the benchmark's own programs) into a fresh temp
 * directory, links the shared install, and compiles index.ts to CommonJS index.js so the runner's
 * inline program can `require` it.
 */
export async function prepareExample(
  name: string,
  parentDir?: string,
  sourceRoot: string = examplesDir,
): Promise<PreparedExample> {
  const source = path.join(sourceRoot, name);
  if (!(await exists(path.join(source, "Pulumi.yaml")))) throw new Error(`no example named "${name}" in ${sourceRoot}`);
  const nodeModules = await exampleDependencies();
  const workDir = await mkdtemp(path.join(parentDir ?? os.tmpdir(), `cloudplatform-${name}-`));
  const modules = await typescriptModules(source);
  for (const file of [...exampleFiles, ...modules]) await cp(path.join(source, file), path.join(workDir, file));
  for (const folder of exampleFolders) {
    if (await exists(path.join(source, folder)))
      await cp(path.join(source, folder), path.join(workDir, folder), { recursive: true });
  }
  await symlink(nodeModules, path.join(workDir, "node_modules"), "dir");
  await compileEntry(workDir, nodeModules, modules);
  return { workDir, projectName: await readProjectName(workDir) };
}

type TypeScript = typeof import("typescript");

/**
 * Typechecks the copy against the packed package, exactly as a user's `tsc` or `pulumi up` would see
 * it (once per tarball and example source: the verdict is cached in the shared install), then writes
 * index.js (and a .js for each module beside it) as CommonJS for the runner. The CommonJS is cached
 * there too: loading `typescript` costs about 0.8 s of CPU, in each of a run's 100-odd preparations
 * of the same few examples.
 */
async function compileEntry(workDir: string, nodeModules: string, modules: readonly string[]): Promise<void> {
  const tsconfig = await readFile(path.join(workDir, "tsconfig.json"), "utf8");
  // The verdict and the CommonJS are TypeScript's: another version checks and writes anew.
  const typescriptVersion = (
    createRequire(path.join(repoRoot, "package.json"))("typescript/package.json") as { version: string }
  ).version;
  const hash = createHash("sha256").update(typescriptVersion).update(tsconfig);
  const sources = new Map<string, string>();
  for (const file of modules) {
    const text = await readFile(path.join(workDir, file), "utf8");
    sources.set(file, text);
    hash.update(file).update(text);
  }
  const digest = hash.digest("hex").slice(0, 16);
  const marker = path.join(nodeModules, "..", `.typechecked-${digest}`);
  const compiled = path.join(nodeModules, "..", `.compiled-${digest}`);
  const output = (file: string) => file.replace(/\.ts$/, ".js");
  if ((await exists(marker)) && (await exists(compiled))) {
    for (const file of sources.keys()) await cp(path.join(compiled, output(file)), path.join(workDir, output(file)));
    return;
  }
  const ts = createRequire(path.join(repoRoot, "package.json"))("typescript") as TypeScript;
  if (!(await exists(marker))) {
    typecheck(ts, workDir);
    await writeFile(marker, "");
  }
  // Written aside, then renamed into place: a parallel preparation sees all of it or none.
  const partial = await mkdtemp(`${compiled}-partial-`);
  for (const [file, source] of sources) {
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    await writeFile(path.join(workDir, output(file)), outputText);
    await writeFile(path.join(partial, output(file)), outputText);
  }
  await rename(partial, compiled).catch(() => rm(partial, { recursive: true, force: true }));
}

function typecheck(ts: TypeScript, workDir: string): void {
  const configPath = path.join(workDir, "tsconfig.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0) {
    const text = ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => workDir,
      getNewLine: () => "\n",
    });
    throw new Error(`the example does not typecheck against the packed package:\n${text}`);
  }
}

export async function readProjectName(workDir: string): Promise<string> {
  const yaml = await readFile(path.join(workDir, "Pulumi.yaml"), "utf8");
  const match = /^name:\s*["']?([^"'\s]+)/m.exec(yaml);
  if (!match?.[1]) throw new Error(`${workDir}/Pulumi.yaml has no "name:" line`);
  return match[1];
}
