// What goes into the plugin tarball (scripts/plugin-pack.mts): its name, and the lockfile of the
// provider's production dependencies cut from the repository's lockfile, so that `npm ci` installs
// exactly the versions the repository is tested with, and nothing of the emulator or the tooling.

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

/** `pulumi-resource-cloudplatform-v<version>-<os>-<arch>.tar.gz`, the name `pulumi plugin install` expects. */
export function pluginTarballName(version: string, platform: string, arch: string): string {
  return `pulumi-resource-cloudplatform-v${version}-${platform}-${arch}.tar.gz`;
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
