// The executable provider as users install it: `npm run plugin:pack -- --all`, then `pulumi plugin
// install resource cloudplatform <version> --file <tarball>` of each platform's tarball into a fresh
// PULUMI_HOME (all five installed and their files checked; this machine's run by the real engine with
// nothing of this repository on PATH, against the emulator). And the package's `bin`, which the
// engine finds on PATH, refusing a Node older than the provider supports.
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, providerConfig, type Emulator } from "../support/emulator.js";
import { emulatorState } from "../support/platform.mts";
import { engineEnv, packPlugins, PluginSandbox, pluginVersion, pulumiBinDir, repoRoot } from "./support/plugin-cli.js";
// Types only: the program runs in a child process, never inside vitest.
import type { TokenProgramAnswer, TokenProgramRequest } from "./support/token-program.mts";

const run = promisify(execFile);
const launcher = path.join(repoRoot, "bin", "provider", "plugin", "launcher.js");
const tokenProgram = path.join(repoRoot, "test", "e2e", "support", "token-program.mts");

/** One operation of the token program (Bucket, BucketCredential, DnsZone) in a plain Node child. */
async function runTokenProgram(
  op: TokenProgramRequest["op"],
  workDir: string,
  env: Readonly<Record<string, string>>,
  emulator: Emulator,
): Promise<TokenProgramAnswer> {
  const request: TokenProgramRequest = {
    op,
    repoRoot,
    pulumiBinDir: await pulumiBinDir(),
    workDir,
    config: providerConfig(emulator),
    zoneName: "plugin-install.example",
  };
  const { stdout } = await run(process.execPath, [tokenProgram, JSON.stringify(request)], {
    cwd: workDir,
    env,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as TokenProgramAnswer;
  if (!answer.ok) throw new Error(`${op} failed: ${answer.error}`);
  return answer;
}

describe("package.json bin: pulumi-resource-cloudplatform", () => {
  let dir: string;
  let emulator: Emulator;

  beforeAll(async () => {
    await run(
      process.execPath,
      [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-b", "tsconfig.json"],
      {
        cwd: repoRoot,
      },
    );
    dir = await mkdtemp(path.join(tmpdir(), "cloudplatform-bin-"));
    emulator = await launchEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("is declared, and the engine finds it on PATH (as npm links it) with no plugin installed", async () => {
    const pkg = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(path.join(repoRoot, pkg.bin["pulumi-resource-cloudplatform"] ?? "")).toBe(launcher);
    // What `npm install -g` does: a link on PATH to the file, made executable.
    const binDir = path.join(dir, "bin");
    await mkdir(binDir);
    await chmod(launcher, 0o755);
    await symlink(launcher, path.join(binDir, "pulumi-resource-cloudplatform"));
    const workDir = path.join(dir, "program");
    await mkdir(workDir);
    const env = {
      ...(await engineEnv(dir)),
      PATH: [binDir, await pulumiBinDir(), path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
    };
    // A preview runs the plugin's check and diff of every resource: the engine started it.
    const preview = await runTokenProgram("preview", workDir, env, emulator);
    expect(preview.changes).toEqual({ create: 4 });
  });

  it("refuses a Node older than the provider needs, with a clear message, before loading the provider", async () => {
    // The version check reads process.versions.node: a preload makes this Node report an old one,
    // and reports every module of the provider or its dependencies that gets loaded.
    const fake = path.join(dir, "old-node.cjs");
    await writeFile(
      fake,
      [
        'Object.defineProperty(process.versions, "node", { value: "20.19.0" });',
        'const Module = require("node:module");',
        "const load = Module._load;",
        "Module._load = function (request, parent, isMain) {",
        '  if (!isMain && !request.startsWith("node:")) process.stdout.write(`loaded ${request}\\n`);',
        "  return load.call(this, request, parent, isMain);",
        "};",
      ].join("\n"),
    );
    const refused = await run(process.execPath, ["--require", fake, launcher, "127.0.0.1:1"], { timeout: 30_000 }).then(
      () => undefined,
      (error: unknown) => error as Error & { code?: number; stdout?: string; stderr?: string },
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toMatch(/Node\.js v20\.19\.0 \(.*\) is too old: the provider needs Node\.js >= 22\.19\.0/);
    expect(refused?.stderr).toMatch(/\(CLOUDPLATFORM_NODE_UNSUPPORTED\)\. Install Node\.js 22 or newer/);
    // Nothing but the launcher ran: no module of the provider nor of its dependencies was loaded.
    expect(refused?.stdout).toBe("");
  });
});

describe("the plugin tarball, installed with `pulumi plugin install --file`", () => {
  let outDir: string;
  let tarball: string;
  let sandbox: PluginSandbox;
  let emulator: Emulator;
  let workDir: string;

  const program = (op: TokenProgramRequest["op"]): Promise<TokenProgramAnswer> =>
    runTokenProgram(op, workDir, sandbox.env, emulator);

  let tarballs: string[];
  /** This machine's platform in the engine's words (GOOS-GOARCH), as in the tarball names. */
  let host: string;

  beforeAll(async () => {
    const { hostTarget, targetName } = await import("../../scripts/lib/plugin-package.mts");
    const target = hostTarget(process.platform, process.arch);
    if (target === undefined) throw new Error(`no plugin target for ${process.platform}-${process.arch}`);
    host = targetName(target);
    outDir = await mkdtemp(path.join(tmpdir(), "cloudplatform-pack-"));
    tarballs = await packPlugins(outDir, ["--all"]);
    tarball = tarballs.find((t) => t.endsWith(`-${host}.tar.gz`)) ?? "";
    sandbox = await PluginSandbox.create(tarball, []);
    workDir = path.join(sandbox.root, "program");
    await mkdir(workDir);
    emulator = await launchEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
    await sandbox?.dispose();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it("one command packs the five platforms, named as `pulumi plugin install` downloads them (GOOS-GOARCH)", () => {
    expect(tarballs.map((t) => path.basename(t))).toEqual(
      ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"].map(
        (platform) => `pulumi-resource-cloudplatform-v${pluginVersion()}-${platform}.tar.gz`,
      ),
    );
    expect(tarball).not.toBe("");
  });

  it("each installs with `pulumi plugin install --file` into a fresh PULUMI_HOME, laid out as the engine runs it", async () => {
    const launcherJs = path.join("bin", "provider", "plugin", "launcher.js");
    for (const file of tarballs) {
      const windows = file.endsWith("-windows-amd64.tar.gz");
      const own = await PluginSandbox.create(file, []);
      try {
        const { stdout } = await own.cli(own.root, ["plugin", "ls", "--json"]);
        expect(JSON.parse(stdout), file).toEqual([
          expect.objectContaining({ name: "cloudplatform", kind: "resource", version: pluginVersion() }),
        ]);
        const dir = path.join(own.root, "home", "plugins", `resource-cloudplatform-v${pluginVersion()}`);
        const launcher = windows ? "pulumi-resource-cloudplatform.cmd" : "pulumi-resource-cloudplatform";
        expect((await readdir(dir)).sort(), file).toEqual(
          ["bin", "docs", "LICENSE", "node_modules", "package-lock.json", "package.json", launcher].sort(),
        );
        const text = await readFile(path.join(dir, launcher), "utf8");
        if (windows) {
          // The engine on Windows probes pulumi-resource-<name>.exe, then .cmd.
          expect(text).toContain('node "%~dp0bin\\provider\\plugin\\launcher.js" %*\r\n');
        } else {
          expect((await stat(path.join(dir, launcher))).mode & 0o111, file).toBe(0o111);
          expect(text).toContain('exec node "$dir/bin/provider/plugin/launcher.js" "$@"');
        }
        await stat(path.join(dir, launcherJs));
        await stat(path.join(dir, "node_modules", "@pulumi", "pulumi", "package.json"));
      } finally {
        await own.dispose();
      }
    }
  });

  it("the macOS and Linux arm64 tarballs hold exactly what this machine's (run below) holds", async () => {
    const posix = tarballs.filter((t) => !t.endsWith("-windows-amd64.tar.gz"));
    const bytes = await Promise.all(posix.map((t) => readFile(t)));
    for (const [i, content] of bytes.entries()) expect(content.equals(bytes[0]!), posix[i]).toBe(true);
  });

  it("is named for its version and platform and holds the launcher, the compiled provider, its runtime dependencies and its schema's examples only", async () => {
    expect(path.basename(tarball)).toBe(`pulumi-resource-cloudplatform-v${pluginVersion()}-${host}.tar.gz`);
    const { stdout } = await run("tar", ["-tzvf", tarball], { maxBuffer: 64 * 1024 * 1024 });
    const lines = stdout.trim().split("\n");
    const names = lines.map((l) => l.split(/\s+/).slice(5).join(" "));
    expect(lines.find((l) => l.endsWith(" pulumi-resource-cloudplatform"))).toMatch(/^-rwxr-xr-x/);
    expect(names).toContain("bin/provider/plugin/main.js");
    expect(names).toContain("bin/provider/plugin/launcher.js");
    expect(names).toContain("node_modules/@pulumi/pulumi/package.json");
    expect(names).toContain("node_modules/undici/package.json");
    // The examples the schema's descriptions embed: each example's files, none of docs/ besides.
    expect(names).toContain("docs/examples/bucket/main.go");
    const docs = names.filter((n) => n.startsWith("docs/") && !n.endsWith("/"));
    expect(docs.filter((n) => !/^docs\/examples\/[\w-]+\/[^/]+$/.test(n))).toEqual([]);
    // No SDK, tests, emulator or tooling; and no PulumiPlugin.yaml, which would make the engine run
    // the plugin through a Node language host instead of the launcher.
    const unwanted =
      /^(bin\/sdk|test|emulator|PulumiPlugin\.yaml)|node_modules\/(typescript|vitest|eslint|nock|cloudplatform-emulator|music-metadata)\/|\.d\.ts$|\.map$/;
    expect(names.filter((n) => unwanted.test(n))).toEqual([]);
    // A dev dependency or the emulator creeping in would more than double it.
    expect((await stat(tarball)).size).toBeLessThan(15 * 1024 * 1024);
  });

  it("is installed in the plugin cache", async () => {
    const { stdout } = await sandbox.cli(sandbox.root, ["plugin", "ls", "--json"]);
    const plugins = JSON.parse(stdout) as Array<{ name: string; kind: string; version: string }>;
    expect(plugins).toContainEqual(
      expect.objectContaining({ name: "cloudplatform", kind: "resource", version: pluginVersion() }),
    );
  });

  it("up creates a bucket, a credential and a zone through the installed plugin; the secret stays secret", async () => {
    const up = await program("up");
    expect(up.changes).toMatchObject({ create: 4 });
    expect(up.outputs?.["secretAccessKey"]?.secret).toBe(true);
    expect(String(up.outputs?.["accessKeyId"]?.value)).toMatch(/^CPAK/);
    expect(String(up.outputs?.["zoneId"]?.value)).toMatch(/^zone_/);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 1, zones: 1 });
  });

  it("a second up changes nothing", async () => {
    const again = await program("up");
    expect(again.changes).toEqual({ same: 4 });
  });

  it("destroy removes everything from the emulator", async () => {
    const destroyed = await program("destroy");
    expect(destroyed.changes).toMatchObject({ delete: 4 });
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0, zones: 0 });
  });
});
