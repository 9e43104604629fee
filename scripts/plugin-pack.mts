// `npm run plugin:pack [-- --all | --target <os>-<arch>...] [--out-dir <dir>]`: writes the
// self-contained plugin tarball pulumi-resource-cloudplatform-v<version>-<os>-<arch>.tar.gz of
// this machine's platform, of each `--target`, or of all five (linux-amd64, linux-arm64,
// darwin-amd64, darwin-arm64, windows-amd64) with `--all` (default folder: bin/plugin), which
// `pulumi plugin install resource cloudplatform <version> --file <tarball>` installs. Inside: the
// compiled provider, its production dependencies (installed from the npm cache, offline), the
// examples its schema's docs show (docs/examples) and a launcher at the root; only `node` comes from the PATH the engine runs with. The provider is
// JavaScript and its dependencies have no native code, so one install serves every platform and
// only the launcher differs (a batch file on Windows). Prints each tarball's path on stdout.
import { execFileSync } from "node:child_process";
import { readdirSync, unlinkSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  hostTarget,
  parseTarget,
  platformSpecificPackages,
  pluginTarballName,
  pluginTargets,
  productionLock,
  targetName,
  writePluginTarball,
  type Lockfile,
  type PluginTarget,
} from "./lib/plugin-package.mts";

const repoRoot = path.resolve(import.meta.dirname, "..");
const log = (message: string): void => void process.stderr.write(`[plugin-pack] ${message}\n`);

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? process.argv[at + 1] : undefined;
  if (at >= 0 && value === undefined) throw new Error(`${name} needs a value`);
  return value ?? fallback;
}

const host = hostTarget(process.platform, process.arch);

/** The platforms asked for: `--all`, each `--target`, else this machine's. */
function targets(): PluginTarget[] {
  if (process.argv.includes("--all")) return [...pluginTargets];
  const named = process.argv.flatMap((arg, i) => (arg === "--target" ? [process.argv[i + 1] ?? ""] : []));
  if (named.length > 0) return named.map(parseTarget);
  if (host !== undefined) return [host];
  throw new Error(
    `this machine (${process.platform}-${process.arch}) is not a platform the Pulumi CLI downloads plugins for: ` +
      `pass --target <${pluginTargets.map(targetName).join("|")}> or --all`,
  );
}

/** Files of the compiled provider the plugin runs: JavaScript only (no declarations, maps, build info). */
async function copyCompiledProvider(stage: string): Promise<void> {
  await cp(path.join(repoRoot, "bin", "provider"), path.join(stage, "bin", "provider"), {
    recursive: true,
    filter: async (source) => (await stat(source)).isDirectory() || source.endsWith(".js"),
  });
}

/** Each example's folder: the schema's descriptions embed them when it is built (provider/plugin/schema-docs.ts). */
async function copyDocExamples(stage: string): Promise<void> {
  const examples = path.join(repoRoot, "docs", "examples");
  for (const entry of await readdir(examples, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    await cp(path.join(examples, entry.name), path.join(stage, "docs", "examples", entry.name), { recursive: true });
  }
}

/**
 * Removes declarations, source maps and documentation from the installed dependencies: never
 * loaded at run time (licenses stay). With synchronous calls: one `rm` promise per file (about
 * 10,000) once never settled in CI (the pack sat idle in its event loop until the test's hook
 * timed out, 2026-11-29), and a walk of a folder this script just made has nothing to overlap with.
 */
function pruneNodeModules(dir: string): number {
  let removed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const name = entry.name;
    if (/\.d\.[cm]?ts$|\.map$|\.md$/i.test(name) && !/^licen[cs]e/i.test(name)) {
      unlinkSync(path.join(entry.parentPath, name));
      removed += 1;
    }
  }
  return removed;
}

async function main(): Promise<void> {
  const started = Date.now();
  const pkg = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8")) as {
    name: string;
    version: string;
    license: string;
    engines: Record<string, string>;
    dependencies: Record<string, string>;
  };
  const lock = JSON.parse(await readFile(path.join(repoRoot, "package-lock.json"), "utf8")) as Lockfile;
  const outDir = path.resolve(option("--out-dir", path.join(repoRoot, "bin", "plugin")));
  const wanted = targets();

  log("compiling the provider");
  execFileSync(
    process.execPath,
    [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-b", "tsconfig.json"],
    {
      cwd: repoRoot,
      stdio: ["ignore", "inherit", "inherit"],
    },
  );

  const written: string[] = [];
  const stage = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-plugin-pack-"));
  try {
    await copyCompiledProvider(stage);
    await copyDocExamples(stage);
    // Apache-2.0 travels with each copy (its section 4(a)); the tarball is one.
    await cp(path.join(repoRoot, "LICENSE"), path.join(stage, "LICENSE"));
    // `exports` keeps the provider's self-reference (`pulumi-cloudplatform/package.json`) resolvable.
    const manifest = {
      name: pkg.name,
      version: pkg.version,
      private: true,
      license: pkg.license,
      engines: pkg.engines,
      exports: { "./package.json": "./package.json" },
      dependencies: pkg.dependencies,
    };
    await writeFile(path.join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const prodLock = productionLock(lock, manifest);
    await writeFile(path.join(stage, "package-lock.json"), `${JSON.stringify(prodLock, null, 2)}\n`);
    const specific = platformSpecificPackages(prodLock);
    if (specific.length > 0 && wanted.some((target) => host === undefined || targetName(target) !== targetName(host))) {
      throw new Error(
        `${specific.join(", ")} install only on some platforms, so this machine's node_modules cannot serve ` +
          "another platform: pack on each platform instead (without --all or --target)",
      );
    }

    log("installing the production dependencies from the npm cache (offline)");
    try {
      execFileSync(
        "npm",
        ["ci", "--offline", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        { cwd: stage, stdio: ["ignore", "ignore", "inherit"] },
      );
    } catch {
      throw new Error(
        "npm could not install the production dependencies offline: run `npm ci` in the repository first " +
          "(it fills the npm cache), then run `npm run plugin:pack` again",
      );
    }
    const pruned = pruneNodeModules(path.join(stage, "node_modules"));
    await rm(path.join(stage, "node_modules", ".package-lock.json"), { force: true });
    log(`removed ${pruned} declaration, source-map and documentation files from node_modules`);

    await mkdir(outDir, { recursive: true });
    for (const target of wanted) {
      const tarball = path.join(outDir, pluginTarballName(pkg.version, target));
      await writePluginTarball(stage, target, tarball);
      const size = (await stat(tarball)).size;
      log(
        `wrote ${path.relative(process.cwd(), tarball)} (${(size / 1024 / 1024).toFixed(1)} MB, ${targetName(target)})`,
      );
      written.push(tarball);
    }
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  log(`${written.length} tarball(s) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.stdout.write(written.map((tarball) => `${tarball}\n`).join(""));
}

main().catch((error: unknown) => {
  log(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
