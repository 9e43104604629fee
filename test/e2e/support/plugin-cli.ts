// The plugin as users get it: packed by `npm run plugin:pack`, installed with `pulumi plugin install
// --file` into a PULUMI_HOME of its own, and run by the engine with a PATH that holds nothing of this
// repository (only the Pulumi CLI, a language host when one is needed, Node and the system's tools).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { access, constants, cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { packOnce } from "../../../scripts/lib/pack-once.mts";

const run = promisify(execFile);
export const repoRoot = path.resolve(__dirname, "..", "..", "..");

/** A tool folder exported by .ci/run or scripts/test.sh in `envVar`, else the one `script` finds or builds. */
export async function toolDir(envVar: string, script: string): Promise<string> {
  const fromEnv = process.env[envVar];
  if (fromEnv) return fromEnv;
  const { stdout } = await run("bash", [path.join(repoRoot, "scripts", script)], { maxBuffer: 16 * 1024 * 1024 });
  const dir = stdout.trim().split("\n").pop() ?? "";
  process.env[envVar] = dir;
  return dir;
}

export const pulumiBinDir = (): Promise<string> => toolDir("CLOUDPLATFORM_PULUMI_BIN_DIR", "ensure-pulumi.sh");
export const yamlHostDir = (): Promise<string> => toolDir("CLOUDPLATFORM_PULUMI_YAML_BIN_DIR", "ensure-pulumi-yaml.sh");

/** `npm run plugin:pack` into `outDir` with `args` (e.g. `--all`); the tarballs' paths (its stdout lines). */
export async function packPlugins(outDir: string, args: readonly string[]): Promise<string[]> {
  return packOnce(`plugin:pack ${args.join(" ")}`, outDir, async (dir) => {
    const { stdout } = await run("npm", ["run", "--silent", "plugin:pack", "--", "--out-dir", dir, ...args], {
      cwd: repoRoot,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout.trim().split("\n");
  });
}

/** `npm run plugin:pack` of this machine's platform into `outDir`; the tarball's path. */
export async function packPlugin(outDir: string): Promise<string> {
  return (await packPlugins(outDir, [])).pop() ?? "";
}

export const pluginVersion = (): string =>
  (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

async function isExecutable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * The PATH the engine gets: `dirs`, then Node's folder, then the system's (the launcher script needs
 * `sh`). Refuses a PATH on which a `pulumi-resource-cloudplatform` could be found, so the engine can
 * only use the installed plugin.
 */
export async function isolatedPath(dirs: readonly string[]): Promise<string> {
  const all = [...dirs, path.dirname(process.execPath), "/usr/bin", "/bin"];
  for (const dir of all) {
    if (await isExecutable(path.join(dir, "pulumi-resource-cloudplatform"))) {
      throw new Error(`${dir} holds a pulumi-resource-cloudplatform: the test would not prove the installed plugin`);
    }
  }
  return all.join(path.delimiter);
}

/**
 * The engine's variables for a stack kept under `root` (file:// backend in root/backend, PULUMI_HOME
 * in root/home, both made here), without PATH. Nothing else is inherited but HOME, so no CLOUDPLATFORM_* nor PULUMI_*
 * of the developer's shell reaches the engine, and it never downloads a plugin.
 */
export async function engineEnv(root: string): Promise<Record<string, string>> {
  await mkdir(path.join(root, "backend"), { recursive: true });
  await mkdir(path.join(root, "home"), { recursive: true });
  return {
    HOME: process.env.HOME ?? root,
    PULUMI_HOME: path.join(root, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(root, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "plugin-sandbox",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
  };
}

export interface CliResult {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A folder with a file:// backend and its own PULUMI_HOME holding the plugin installed from its
 * tarball, where the Pulumi CLI runs with `engineEnv` and an isolated PATH.
 */
export class PluginSandbox {
  private constructor(
    readonly root: string,
    readonly pulumi: string,
    readonly env: Readonly<Record<string, string>>,
  ) {}

  /** `pulumi plugin install resource cloudplatform <version> --file <tarball>`, as the docs tell users. */
  static async create(tarball: string, pathDirs: readonly string[]): Promise<PluginSandbox> {
    const root = await mkdtemp(path.join(tmpdir(), "cloudplatform-plugin-"));
    const binDir = await pulumiBinDir();
    const env = { ...(await engineEnv(root)), PATH: await isolatedPath([binDir, ...pathDirs]) };
    const sandbox = new PluginSandbox(root, path.join(binDir, "pulumi"), env);
    await sandbox.cli(root, ["plugin", "install", "resource", "cloudplatform", pluginVersion(), "--file", tarball]);
    return sandbox;
  }

  /** Copies `examples/<name>` into the sandbox (stack files and state stay out of the repository). */
  async copyExample(name: string): Promise<string> {
    const dir = path.join(this.root, name);
    await cp(path.join(repoRoot, "examples", name), dir, { recursive: true });
    return dir;
  }

  /**
   * Runs the CLI. Secrets go in through `input` (stdin), never in `args`, which a failure's message
   * repeats; the CLI's own output masks secrets.
   */
  async cli(cwd: string, args: readonly string[], input?: string): Promise<CliResult> {
    try {
      const running = run(this.pulumi, [...args], {
        cwd,
        env: this.env,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 300_000,
      });
      running.child.stdin?.end(input ?? "");
      const { stdout, stderr } = await running;
      return { stdout, stderr };
    } catch (error) {
      const e = error as Error & { stdout?: string; stderr?: string };
      throw new Error(`pulumi ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`, {
        cause: error,
      });
    }
  }

  async dispose(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}
