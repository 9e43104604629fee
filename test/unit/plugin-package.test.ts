// The plugin tarball (scripts/plugin-pack.mts): the lockfile its dependencies are installed from
// (what the provider's production dependencies reach in the repository's lockfile, and nothing
// else), its name and launcher per platform, and the tarballs themselves, written from a small stage.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lockfile } from "../../scripts/lib/plugin-package.mts";

const run = promisify(execFile);
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

describe("platformSpecificPackages", () => {
  it("names the entries npm installs only on some platforms", async () => {
    const { platformSpecificPackages } = await load();
    const withNative: Lockfile = {
      ...lock,
      packages: {
        ...lock.packages,
        "node_modules/native-x64": { version: "1.0.0", optional: true, os: ["linux"], cpu: ["x64"] },
        "node_modules/mac-only": { version: "1.0.0", os: ["darwin"] },
      },
    };
    expect(platformSpecificPackages(withNative)).toEqual(["node_modules/native-x64", "node_modules/mac-only"]);
    expect(platformSpecificPackages(lock)).toEqual([]);
  });
});

describe("plugin targets", () => {
  it("are the five platforms, named in the engine's GOOS-GOARCH words", async () => {
    const { pluginTargets, targetName } = await load();
    expect(pluginTargets.map(targetName)).toEqual([
      "linux-amd64",
      "linux-arm64",
      "darwin-amd64",
      "darwin-arm64",
      "windows-amd64",
    ]);
  });

  it("name the tarball as `pulumi plugin install` downloads it: pulumi-<kind>-<name>-v<version>-<os>-<arch>.tar.gz", async () => {
    const { pluginTarballName } = await load();
    expect(pluginTarballName("0.1.0", { os: "linux", arch: "amd64" })).toBe(
      "pulumi-resource-cloudplatform-v0.1.0-linux-amd64.tar.gz",
    );
    expect(pluginTarballName("1.2.3", { os: "windows", arch: "amd64" })).toBe(
      "pulumi-resource-cloudplatform-v1.2.3-windows-amd64.tar.gz",
    );
  });

  it("are parsed from their names; anything else fails naming the accepted ones", async () => {
    const { parseTarget } = await load();
    expect(parseTarget("darwin-arm64")).toEqual({ os: "darwin", arch: "arm64" });
    expect(() => parseTarget("linux-x64")).toThrow(
      'unknown plugin target "linux-x64": use one of linux-amd64, linux-arm64, darwin-amd64, darwin-arm64, windows-amd64',
    );
  });

  it("map Node's platform and arch to the machine's target, or none", async () => {
    const { hostTarget } = await load();
    expect(hostTarget("linux", "x64")).toEqual({ os: "linux", arch: "amd64" });
    expect(hostTarget("darwin", "arm64")).toEqual({ os: "darwin", arch: "arm64" });
    expect(hostTarget("win32", "x64")).toEqual({ os: "windows", arch: "amd64" });
    expect(hostTarget("linux", "ppc64")).toBeUndefined();
    expect(hostTarget("freebsd", "x64")).toBeUndefined();
  });
});

describe("launcherFile", () => {
  it("is an executable POSIX shell script on Linux and macOS, running the launcher beside it with the PATH's node", async () => {
    const { launcherFile } = await load();
    for (const os of ["linux", "darwin"] as const) {
      const launcher = launcherFile(os);
      expect(launcher.name).toBe("pulumi-resource-cloudplatform");
      expect(launcher.mode).toBe(0o755);
      expect(launcher.text.startsWith("#!/bin/sh\n")).toBe(true);
      expect(launcher.text).not.toContain("\r");
      expect(launcher.text).toContain('exec node "$dir/bin/provider/plugin/launcher.js" "$@"\n');
      expect(launcher.text).toContain("(CLOUDPLATFORM_NODE_UNSUPPORTED)");
    }
  });

  it("is a batch file on Windows, which the engine probes as pulumi-resource-<name>.cmd, with CRLF line ends", async () => {
    const { launcherFile } = await load();
    const launcher = launcherFile("windows");
    expect(launcher.name).toBe("pulumi-resource-cloudplatform.cmd");
    const lines = launcher.text.split("\r\n");
    expect(lines.pop()).toBe("");
    expect(lines.every((line) => !line.includes("\n"))).toBe(true);
    expect(lines[0]).toBe("@echo off");
    expect(lines).toContain('node "%~dp0bin\\provider\\plugin\\launcher.js" %*');
    expect(lines).toContain("exit /b %errorlevel%");
    // No `node`: the message goes to stderr, with `>` escaped so that cmd does not redirect to a file.
    const message = lines.find((line) => line.startsWith("echo "));
    expect(message).toMatch(/CLOUDPLATFORM_NODE_UNSUPPORTED.*\^>= 22\.19.* 1>&2$/);
  });

  it("runs the launcher with the engine's arguments (the POSIX script, run here)", async () => {
    const { launcherFile } = await load();
    const dir = await mkdtemp(path.join(tmpdir(), "cloudplatform-launcher-"));
    try {
      await mkdir(path.join(dir, "bin", "provider", "plugin"), { recursive: true });
      await writeFile(
        path.join(dir, "bin", "provider", "plugin", "launcher.js"),
        "console.log(JSON.stringify(process.argv.slice(2)));\n",
      );
      const launcher = launcherFile("linux");
      await writeFile(path.join(dir, launcher.name), launcher.text, { mode: launcher.mode });
      const env = { PATH: [path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter) };
      const { stdout } = await run(path.join(dir, launcher.name), ["127.0.0.1:4711", "two words"], {
        cwd: tmpdir(),
        env,
      });
      expect(JSON.parse(stdout)).toEqual(["127.0.0.1:4711", "two words"]);
      const refused = await run(path.join(dir, launcher.name), [], { env: { PATH: "/nonexistent" } }).catch(
        (error: unknown) => error as { code: number; stderr: string },
      );
      expect(refused).toMatchObject({ code: 1 });
      expect((refused as { stderr: string }).stderr).toContain("no `node` on PATH (CLOUDPLATFORM_NODE_UNSUPPORTED)");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("writePluginTarball", () => {
  let stage: string;
  let out: string;

  /** `tar -tvzf`: mode, owner, modification time and name of every entry. */
  async function listing(tarball: string): Promise<Array<{ mode: string; owner: string; date: string; name: string }>> {
    const { stdout } = await run("tar", ["--numeric-owner", "--full-time", "--utc", "-tvzf", tarball]);
    return stdout
      .trim()
      .split("\n")
      .map((line) => {
        const [mode = "", owner = "", , day = "", time = "", ...name] = line.split(/\s+/);
        return { mode, owner, date: `${day} ${time}`, name: name.join(" ") };
      });
  }

  beforeAll(async () => {
    stage = await mkdtemp(path.join(tmpdir(), "cloudplatform-stage-"));
    out = await mkdtemp(path.join(tmpdir(), "cloudplatform-tarballs-"));
    await mkdir(path.join(stage, "bin", "provider", "plugin"), { recursive: true });
    await writeFile(path.join(stage, "bin", "provider", "plugin", "launcher.js"), "// launcher\n");
    await mkdir(path.join(stage, "node_modules", "dep"), { recursive: true });
    await writeFile(path.join(stage, "node_modules", "dep", "package.json"), "{}\n");
    await writeFile(path.join(stage, "node_modules", "dep", "cli.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
    await writeFile(path.join(stage, "package.json"), "{}\n");
  });
  afterAll(async () => {
    await rm(stage, { recursive: true, force: true });
    await rm(out, { recursive: true, force: true });
  });

  it("writes each platform's tarball: the stage, plus its launcher at the root with its mode, owned by root at time 0", async () => {
    const { launcherFile, pluginTarballName, pluginTargets, writePluginTarball } = await load();
    for (const target of pluginTargets) {
      const tarball = path.join(out, pluginTarballName("9.9.9", target));
      await writePluginTarball(stage, target, tarball);
      const entries = await listing(tarball);
      const launcher = launcherFile(target.os);
      expect(entries.map((e) => e.name)).toEqual([
        "bin/",
        "bin/provider/",
        "bin/provider/plugin/",
        "bin/provider/plugin/launcher.js",
        "node_modules/",
        "node_modules/dep/",
        "node_modules/dep/cli.js",
        "node_modules/dep/package.json",
        "package.json",
        launcher.name,
      ]);
      expect(entries.every((e) => e.owner === "0/0" && e.date === "1970-01-01 00:00:00")).toBe(true);
      const mode = (name: string) => entries.find((e) => e.name === name)?.mode;
      expect(mode(launcher.name)).toBe(target.os === "windows" ? "-rw-r--r--" : "-rwxr-xr-x");
      expect(mode("node_modules/dep/cli.js")).toBe("-rwxr-xr-x");
      expect(mode("package.json")).toBe("-rw-r--r--");
      // The launcher inside is the platform's, byte for byte.
      const { stdout } = await run("tar", ["-xzOf", tarball, launcher.name]);
      expect(stdout).toBe(launcher.text);
    }
  });

  it("leaves the stage as it was, so the next platform's tarball holds only its own launcher", async () => {
    expect((await readdir(stage)).sort()).toEqual(["bin", "node_modules", "package.json"]);
  });

  it("gives the same bytes for the same inputs", async () => {
    const { pluginTarballName, writePluginTarball } = await load();
    const target = { os: "linux", arch: "arm64" } as const;
    const first = path.join(out, pluginTarballName("9.9.9", target));
    const again = path.join(out, "again.tar.gz");
    await writePluginTarball(stage, target, again);
    expect((await readFile(again)).equals(await readFile(first))).toBe(true);
  });
});
