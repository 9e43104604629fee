// `npm run plugin:pack [-- --out-dir <dir>]`: writes the self-contained plugin tarball
// pulumi-resource-cloudplatform-v<version>-<os>-<arch>.tar.gz (default folder: bin/plugin), which
// `pulumi plugin install resource cloudplatform <version> --file <tarball>` installs. Inside: the
// compiled provider, its production dependencies (installed from the npm cache, offline) and a
// launcher script at the root; only `node` comes from the PATH the engine runs with.
// Prints the tarball's path on stdout.
import { execFileSync } from "node:child_process";
import { createReadStream, createWriteStream } from "node:fs";
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip, constants as zlib } from "node:zlib";
import { pluginTarballName, productionLock, type Lockfile } from "./lib/plugin-package.mts";

const repoRoot = path.resolve(import.meta.dirname, "..");
const log = (message: string): void => void process.stderr.write(`[plugin-pack] ${message}\n`);

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? process.argv[at + 1] : undefined;
  if (at >= 0 && value === undefined) throw new Error(`${name} needs a value`);
  return value ?? fallback;
}

// Runs with the PATH's `node`, so a Node older than the provider's minimum says so instead of
// failing inside a dependency.
const launcherScript = `#!/bin/sh
# The cloudplatform resource plugin: the engine runs this file with its own arguments.
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "pulumi-resource-cloudplatform: no \\\`node\\\` on PATH (CLOUDPLATFORM_NODE_UNSUPPORTED): install Node.js >= 22 (24 LTS recommended) and put it on the PATH the Pulumi CLI runs with." >&2
  exit 1
fi
exec node "$dir/bin/provider/plugin/launcher.js" "$@"
`;

/** Files of the compiled provider the plugin runs: JavaScript only (no declarations, maps, build info). */
async function copyCompiledProvider(stage: string): Promise<void> {
  await cp(path.join(repoRoot, "bin", "provider"), path.join(stage, "bin", "provider"), {
    recursive: true,
    filter: async (source) => (await stat(source)).isDirectory() || source.endsWith(".js"),
  });
}

/** Declarations, source maps and docs are never loaded at run time; licenses stay. */
async function pruneNodeModules(dir: string): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const name = entry.name;
    if (/\.d\.[cm]?ts$|\.map$|\.md$/i.test(name) && !/^licen[cs]e/i.test(name)) {
      await rm(path.join(entry.parentPath, name));
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
  const tarball = path.join(outDir, pluginTarballName(pkg.version, process.platform, process.arch));

  log("compiling the provider");
  execFileSync(
    process.execPath,
    [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-b", "tsconfig.json"],
    {
      cwd: repoRoot,
      stdio: ["ignore", "inherit", "inherit"],
    },
  );

  const stage = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-plugin-pack-"));
  try {
    await copyCompiledProvider(stage);
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
    await writeFile(
      path.join(stage, "package-lock.json"),
      `${JSON.stringify(productionLock(lock, manifest), null, 2)}\n`,
    );

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
    const pruned = await pruneNodeModules(path.join(stage, "node_modules"));
    await rm(path.join(stage, "node_modules", ".package-lock.json"), { force: true });
    log(`removed ${pruned} declaration, source-map and documentation files from node_modules`);

    const launcher = path.join(stage, "pulumi-resource-cloudplatform");
    await writeFile(launcher, launcherScript);
    await chmod(launcher, 0o755);

    await mkdir(outDir, { recursive: true });
    const entries = (await readdir(stage)).sort();
    // Sorted entries, fixed owner and time: the same inputs give the same tarball.
    const tar = path.join(stage, "..", `${path.basename(stage)}.tar`);
    execFileSync("tar", [
      "--sort=name",
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      "--mtime=@0",
      "-cf",
      tar,
      "-C",
      stage,
      ...entries,
    ]);
    await pipeline(createReadStream(tar), createGzip({ level: zlib.Z_BEST_COMPRESSION }), createWriteStream(tarball));
    await rm(tar);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  const size = (await stat(tarball)).size;
  log(
    `wrote ${path.relative(process.cwd(), tarball)} (${(size / 1024 / 1024).toFixed(1)} MB) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  process.stdout.write(`${tarball}\n`);
}

main().catch((error: unknown) => {
  log(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
