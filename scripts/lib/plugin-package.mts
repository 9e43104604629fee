// What goes into the plugin tarball (scripts/plugin-pack.mts): its name and launcher per platform,
// the tarball itself, and the lockfile of the provider's production dependencies cut from the
// repository's lockfile, so that `npm ci` installs exactly the versions the repository is tested
// with, and nothing of the emulator or the tooling.
import { execFile } from "node:child_process";
import { createReadStream, createWriteStream } from "node:fs";
import { chmod, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { createGzip, constants as zlib } from "node:zlib";

const run = promisify(execFile);

export interface LockEntry {
  readonly version?: string;
  readonly link?: boolean;
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly optional?: boolean;
  readonly peer?: boolean;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  readonly [key: string]: unknown;
}

export interface Lockfile {
  readonly name?: string;
  readonly version?: string;
  readonly lockfileVersion: number;
  readonly requires?: boolean;
  readonly packages: Record<string, LockEntry>;
}

export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly license?: string;
  readonly engines?: Record<string, string>;
  readonly dependencies: Record<string, string>;
}

/**
 * A platform the plugin is packed for, in the engine's words (Go's GOOS and GOARCH): the CLI names
 * the tarball it downloads `…-<os>-<arch>.tar.gz` with these (sdk/go/common/workspace/plugins.go),
 * so a release whose assets carry them can be installed with `pulumi plugin install --server`.
 */
export interface PluginTarget {
  readonly os: "linux" | "darwin" | "windows";
  readonly arch: "amd64" | "arm64";
}

/** Every platform `npm run plugin:pack -- --all` packs for. */
export const pluginTargets: readonly PluginTarget[] = [
  { os: "linux", arch: "amd64" },
  { os: "linux", arch: "arm64" },
  { os: "darwin", arch: "amd64" },
  { os: "darwin", arch: "arm64" },
  { os: "windows", arch: "amd64" },
];

export const targetName = (target: PluginTarget): string => `${target.os}-${target.arch}`;

/** `linux-amd64` → its target; anything else fails naming the accepted ones. */
export function parseTarget(name: string): PluginTarget {
  const target = pluginTargets.find((t) => targetName(t) === name);
  if (target === undefined) {
    throw new Error(`unknown plugin target "${name}": use one of ${pluginTargets.map(targetName).join(", ")}`);
  }
  return target;
}

/** The target of a machine (Node's process.platform and process.arch), if the CLI downloads plugins for it. */
export function hostTarget(platform: string, arch: string): PluginTarget | undefined {
  const os = ({ linux: "linux", darwin: "darwin", win32: "windows" } as const)[platform as "linux"];
  const goArch = ({ x64: "amd64", arm64: "arm64" } as const)[arch as "x64"];
  return os === undefined || goArch === undefined ? undefined : { os, arch: goArch };
}

/** `pulumi-resource-cloudplatform-v<version>-<os>-<arch>.tar.gz`, the name `pulumi plugin install` expects. */
export function pluginTarballName(version: string, target: PluginTarget): string {
  return `pulumi-resource-cloudplatform-v${version}-${targetName(target)}.tar.gz`;
}

export interface LauncherFile {
  /** Its name at the tarball's root: the engine looks for `pulumi-resource-<name>` (`.exe` or `.cmd` on Windows). */
  readonly name: string;
  readonly mode: number;
  readonly text: string;
}

const noNode =
  "pulumi-resource-cloudplatform: no `node` on PATH (CLOUDPLATFORM_NODE_UNSUPPORTED): install Node.js >= 22.19 " +
  "(24 LTS recommended) and put it on the PATH the Pulumi CLI runs with.";

/**
 * The executable the engine starts, per OS: it runs the PATH's `node` on the launcher beside it,
 * which refuses a Node older than the provider's minimum before loading anything else.
 */
export function launcherFile(os: PluginTarget["os"]): LauncherFile {
  if (os === "windows") {
    // A batch file: the engine on Windows probes `.exe`, then `.cmd`. `^>` keeps `>` out of a redirect.
    const lines = [
      "@echo off",
      "rem The cloudplatform resource plugin: the engine runs this file with its own arguments.",
      "where node >nul 2>nul || goto nonode",
      'node "%~dp0bin\\provider\\plugin\\launcher.js" %*',
      "exit /b %errorlevel%",
      ":nonode",
      `echo ${noNode.replace(">", "^>")} 1>&2`,
      "exit /b 1",
    ];
    return { name: "pulumi-resource-cloudplatform.cmd", mode: 0o644, text: `${lines.join("\r\n")}\r\n` };
  }
  const text = `#!/bin/sh
# The cloudplatform resource plugin: the engine runs this file with its own arguments.
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "${noNode.replaceAll("`", "\\`")}" >&2
  exit 1
fi
exec node "$dir/bin/provider/plugin/launcher.js" "$@"
`;
  return { name: "pulumi-resource-cloudplatform", mode: 0o755, text };
}

/**
 * Writes the tarball of `target`: everything in `stage` (the compiled provider, node_modules, the
 * manifests), plus that platform's launcher at the root. Sorted entries, fixed owner and time: the
 * same inputs give the same tarball. The launcher is removed from `stage` again, so one stage
 * serves every target in turn (not concurrently).
 */
export async function writePluginTarball(stage: string, target: PluginTarget, tarball: string): Promise<void> {
  const launcher = launcherFile(target.os);
  const launcherPath = path.join(stage, launcher.name);
  await writeFile(launcherPath, launcher.text);
  await chmod(launcherPath, launcher.mode);
  const tar = `${tarball}.tar`;
  try {
    const entries = (await readdir(stage)).sort();
    await run("tar", [
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
  } finally {
    await rm(tar, { force: true });
    await rm(launcherPath, { force: true });
  }
}

/**
 * Entries of a production lockfile that npm installs only on some platforms (`os`, `cpu`). One
 * tarball's node_modules serves every target only while there are none: the packer refuses otherwise.
 */
export function platformSpecificPackages(lock: Lockfile): string[] {
  return Object.entries(lock.packages)
    .filter(([key, entry]) => key !== "" && (entry.os !== undefined || entry.cpu !== undefined))
    .map(([key]) => key);
}

/** Node's lookup: `<from>/node_modules/<name>`, then each enclosing node_modules up to the root. */
function resolve(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === "" ? "" : `${base}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === "") return undefined;
    base = base.slice(0, base.lastIndexOf("node_modules/")).replace(/\/$/, "");
  }
}

/**
 * The lockfile of a package whose dependencies are `manifest.dependencies`, holding every entry of
 * `lock` they reach: dependencies, required peers, and optional dependencies where the lock has
 * them. Optional peers (TypeScript for @pulumi/pulumi) are left out: nothing at run time needs them.
 * Flags tied to the repository's dev tree are dropped, so `npm ci --omit=dev` keeps every entry.
 */
export function productionLock(lock: Lockfile, manifest: Manifest): Lockfile {
  const packages = lock.packages;
  const kept = new Map<string, LockEntry>();
  const queue: Array<{ from: string; name: string; optional: boolean }> = Object.keys(manifest.dependencies).map(
    (name) => ({ from: "", name, optional: false }),
  );
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const key = resolve(packages, next.from, next.name);
    if (key === undefined) {
      if (next.optional) continue;
      throw new Error(
        `package-lock.json has no ${next.name} for ${next.from || "the root"}: run \`npm install\` to update the lockfile`,
      );
    }
    if (kept.has(key)) continue;
    const entry = packages[key] as LockEntry;
    if (entry.link === true) throw new Error(`${key} is a workspace link; the plugin cannot depend on a workspace`);
    const { dev: _dev, devOptional: _devOptional, ...rest } = entry;
    kept.set(key, rest);
    const optionalPeers = entry.peerDependenciesMeta ?? {};
    for (const name of Object.keys(entry.dependencies ?? {})) queue.push({ from: key, name, optional: false });
    for (const name of Object.keys(entry.optionalDependencies ?? {})) queue.push({ from: key, name, optional: true });
    for (const name of Object.keys(entry.peerDependencies ?? {})) {
      if (optionalPeers[name]?.optional !== true) queue.push({ from: key, name, optional: false });
    }
  }
  const root: LockEntry = {
    name: manifest.name,
    version: manifest.version,
    ...(manifest.license === undefined ? {} : { license: manifest.license }),
    dependencies: manifest.dependencies,
    ...(manifest.engines === undefined ? {} : { engines: manifest.engines }),
  };
  const sorted = [...kept.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: lock.lockfileVersion,
    requires: true,
    packages: { "": root, ...Object.fromEntries(sorted) },
  };
}
