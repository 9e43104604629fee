// The lockfile the plugin tarball's dependencies are installed from (scripts/plugin-pack.mts): what
// the provider's production dependencies reach in the repository's lockfile, and nothing else.
import { describe, expect, it } from "vitest";
import type { Lockfile } from "../../scripts/lib/plugin-package.mts";

const load = () => import("../../scripts/lib/plugin-package.mts");

const manifest = { name: "pkg", version: "1.2.3", license: "MIT", dependencies: { a: "^1.0.0" } };

/** A repository lockfile: `a` (production) needs `b`, nested `c` and a peer; `dev` and the workspace are not reached. */
const lock: Lockfile = {
  name: "pkg",
  version: "1.2.3",
  lockfileVersion: 3,
  packages: {
    "": { name: "pkg", version: "1.2.3", dependencies: { a: "^1.0.0" }, devDependencies: { dev: "^1.0.0" } },
    "node_modules/a": {
      version: "1.0.0",
      dependencies: { b: "^1.0.0", c: "^2.0.0" },
      optionalDependencies: { "gone-on-this-platform": "^1.0.0", "native-x64": "^1.0.0" },
      peerDependencies: { peer: "^1.0.0", typescript: ">=4" },
      peerDependenciesMeta: { typescript: { optional: true } },
    },
    "node_modules/b": { version: "1.0.0", devOptional: true },
    "node_modules/c": { version: "1.0.0", dev: true },
    "node_modules/a/node_modules/c": { version: "2.0.0" },
    "node_modules/native-x64": { version: "1.0.0", optional: true },
    "node_modules/peer": { version: "1.0.0", peer: true },
    "node_modules/typescript": { version: "5.0.0", dev: true },
    "node_modules/dev": { version: "1.0.0", dev: true },
    emulator: { name: "emulator", version: "0.1.0", dependencies: { b: "^1.0.0" } },
    "node_modules/emulator": { resolved: "emulator", link: true },
  },
};

describe("productionLock", () => {
  it("keeps what the dependencies reach, resolved as Node resolves them, with the repository's dev flags dropped", async () => {
    const { productionLock } = await load();
    const cut = productionLock(lock, manifest);
    expect(Object.keys(cut.packages)).toEqual([
      "",
      "node_modules/a",
      "node_modules/a/node_modules/c",
      "node_modules/b",
      "node_modules/native-x64",
      "node_modules/peer",
    ]);
    expect(cut.packages[""]).toEqual({
      name: "pkg",
      version: "1.2.3",
      license: "MIT",
      dependencies: { a: "^1.0.0" },
    });
    expect(cut.packages["node_modules/b"]).toEqual({ version: "1.0.0" });
    expect(cut.packages["node_modules/native-x64"]).toEqual({ version: "1.0.0", optional: true });
    expect(cut).toMatchObject({ name: "pkg", version: "1.2.3", lockfileVersion: 3, requires: true });
  });

  it("fails with what to do when the lockfile lacks a required dependency", async () => {
    const { productionLock } = await load();
    const stale = { ...lock, packages: { ...lock.packages, "node_modules/b": undefined } } as unknown as Lockfile;
    expect(() => productionLock(stale, manifest)).toThrow(
      /package-lock.json has no b for node_modules\/a: run `npm install`/,
    );
  });

  it("refuses a production dependency on a workspace, which the tarball could not carry", async () => {
    const { productionLock } = await load();
    expect(() => productionLock(lock, { ...manifest, dependencies: { emulator: "*" } })).toThrow(/workspace link/);
  });
});

describe("pluginTarballName", () => {
  it("is the name `pulumi plugin install` expects", async () => {
    const { pluginTarballName } = await load();
    expect(pluginTarballName("0.1.0", "linux", "x64")).toBe("pulumi-resource-cloudplatform-v0.1.0-linux-x64.tar.gz");
  });
});
