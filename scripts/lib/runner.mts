// Deploys a prepared example directory with the real Pulumi engine through the Automation API's
// inline programs: this process hosts the Node language runtime (the CLI gets --client), so no
// `pulumi-language-nodejs` is needed. The program function loads the example's compiled entry, so
// the program users read is the program that runs. Used by the e2e tests (in a child process, never
// inside vitest) and by the demo.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import type * as automation from "@pulumi/pulumi/automation/index.js";
import { isSecret, passphraseKey, revealed } from "./passphrase.mts";
import { pulumiBinDir, testCacheDir } from "./paths.mts";
import { writeConfig } from "./stack-settings.mts";

const run = promisify(execFile);

export interface ConfigEntry {
  readonly value: string;
  readonly secret?: boolean;
}

export interface StackRef {
  /** A prepared example copy (see example-workspace.mts). */
  readonly workDir: string;
  /** Holds the file:// backend and PULUMI_HOME of this stack. */
  readonly stateDir: string;
  readonly stackName: string;
  /**
   * Instead of the file:// backend under stateDir, the backend `pulumi login` saved in its
   * PULUMI_HOME (stateDir/home), e.g. an S3 bucket, reached with these variables added to the
   * engine's (its credentials, the passphrase).
   */
  readonly loggedIn?: { readonly env: Readonly<Record<string, string>> };
}

/**
 * "cancel" is `pulumi cancel`: it releases the lock a killed `up` leaves on the stack. "import" is
 * `pulumi stack import` of the request's `stateFile` (a `pulumi stack export`, e.g. edited).
 */
export type Operation = "up" | "preview" | "refresh" | "destroy" | "export" | "import" | "cancel";

export interface RunRequest extends StackRef {
  readonly op: Operation;
  /** Set before the operation (stack config keys, e.g. "cloudplatform:baseUrl"). */
  readonly config?: Readonly<Record<string, ConfigEntry>>;
  /** Removed before the operation. */
  readonly removeConfig?: readonly string[];
  /** The deployment that op "import" puts in the stack's place. */
  readonly stateFile?: string;
  /** Op "preview": print each change in full, as `pulumi preview --diff` does. */
  readonly diff?: boolean;
}

/** One step the engine planned or performed, from its resource pre-events. */
export interface Step {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
  readonly op: string;
  readonly diffs: readonly string[];
}

export interface RunResult {
  readonly op: Operation;
  readonly ok: boolean;
  /** Counts per operation kind ("create", "same", "update", "replace", ...). */
  readonly changes?: Record<string, number>;
  readonly steps?: readonly Step[];
  readonly outputs?: Record<string, { value: unknown; secret: boolean }>;
  readonly stdout?: string;
  /** What the CLI printed on stderr (the S3 state backend's SDK warnings land there). */
  readonly stderr?: string;
  /** `pulumi stack export` without --show-secrets (op "export"). */
  readonly exported?: string;
  /** The engine's failure, when ok is false. */
  readonly error?: string;
  /** Wall time of the engine's operation alone (not opening the stack or setting config). */
  readonly seconds?: number;
}

const passphrase = "cloudplatform-local-passphrase";

/** PATH as this process was given it (openStack sets the engine's in process.env, for every operation). */
const callersPath = process.env.PATH ?? "";

/** The engine's variables for a stack kept under `stateDir` (file:// backend, PULUMI_HOME). */
export function engineEnv(stateDir: string, binDir: string): Record<string, string> {
  return {
    PULUMI_BACKEND_URL: `file://${path.join(stateDir, "backend")}`,
    PULUMI_HOME: path.join(stateDir, "home"),
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    // The dynamic-provider plugin is a shell script that runs `node` from PATH: it must be >= 22.
    PATH: [binDir, path.dirname(process.execPath), callersPath].join(path.delimiter),
  };
}

/** The engine's variables for `ref`: engineEnv's, or its logged-in backend's (StackRef.loggedIn). */
function stackEnv(ref: StackRef, binDir: string): Record<string, string> {
  const env = engineEnv(ref.stateDir, binDir);
  if (ref.loggedIn === undefined) return env;
  // Nor may one inherited from this process's caller override the login.
  delete process.env.PULUMI_BACKEND_URL;
  const { PULUMI_BACKEND_URL: _fileBackend, ...rest } = env;
  return { ...rest, ...ref.loggedIn.env };
}

/**
 * A module of the program in `workDir` (its entry, a module beside it), not of its packages: what
 * runs again at every operation, as it would in a fresh process.
 */
export function isProgramModule(workDir: string, file: string): boolean {
  const inside = (dir: string) => file.startsWith(dir + path.sep);
  const underProgram = inside(workDir) || inside(realDir(workDir));
  return underProgram && !file.includes(`${path.sep}node_modules${path.sep}`);
}

/** A folder's real path, once per folder (asked for every loaded module); itself when it is gone. */
const realDirs = new Map<string, string>();
function realDir(dir: string): string {
  let real = realDirs.get(dir);
  if (real === undefined) {
    try {
      real = realpathSync(dir);
    } catch {
      real = dir;
    }
    realDirs.set(dir, real);
  }
  return real;
}

/** Loads the Automation API from the example's own install, so program and engine share one SDK copy. */
export function loadAutomation(workDir: string): typeof automation {
  return createRequire(path.join(workDir, "index.js"))("@pulumi/pulumi/automation") as typeof automation;
}

/**
 * What this process opened, kept for its next operations: a runner that serves several operations
 * (runner-cli.mts --serve) then pays `pulumi version` and `pulumi stack select` once, not per
 * operation. Keyed by everything the stack's engine sees: its folder, name and variables.
 */
const commands = new Map<string, Promise<automation.PulumiCommand>>();
const stacks = new Map<string, Promise<automation.Stack>>();

/** One stack on one backend: what a served runner is for (runner-serve.mts), and its caches' key here. */
export function stackKey(ref: StackRef): string {
  return JSON.stringify([ref.workDir, ref.stackName, ref.stateDir, ref.loggedIn ?? null]);
}

async function openStack(ref: StackRef, projectName: string): Promise<automation.Stack> {
  const binDir = pulumiBinDir();
  const env = stackEnv(ref, binDir);
  // The Automation API reads some of these in this process (version check), the CLI reads the rest;
  // set for every operation, as another stack of this process may have set its own before.
  Object.assign(process.env, env);
  const key = stackKey(ref);
  let opened = stacks.get(key);
  if (opened === undefined) {
    opened = createStack(ref, projectName, binDir, env);
    stacks.set(key, opened);
    // A stack that could not be opened is opened again next time, not remembered as failed.
    opened.catch(() => stacks.delete(key));
  }
  return opened;
}

type SemVer = NonNullable<automation.PulumiCommand["version"]>;

/**
 * The version each `pulumi` binary printed, one file per binary under the test cache: every runner
 * process used to run `pulumi version` (~0.4 s of CPU for the CLI's Go start-up, on a suite that is
 * CPU-bound). A binary whose path, size or modification time differ is asked again.
 */
const versionCacheDir = path.join(testCacheDir, "pulumi-version");

async function binaryStamp(command: string): Promise<string> {
  const { size, mtimeMs } = await stat(command);
  return JSON.stringify([command, size, mtimeMs]);
}

/**
 * The command `PulumiCommand.get` would make, from the version cached for this very binary: the
 * version parsed by the semver the SDK itself loads, and its constructor, private in the SDK's types
 * but a plain (command, version) in its JavaScript. Undefined on any doubt (no or another entry, a
 * result that does not hold what was given), so that `get` asks the binary.
 */
async function cachedCommand(
  auto: typeof automation,
  workDir: string,
  command: string,
  file: string,
  stamp: string,
): Promise<automation.PulumiCommand | undefined> {
  try {
    const cached = JSON.parse(await readFile(file, "utf8")) as { stamp?: unknown; version?: unknown };
    if (cached.stamp !== stamp || typeof cached.version !== "string") return undefined;
    const sdk = createRequire(path.join(workDir, "index.js")).resolve("@pulumi/pulumi/automation");
    const semver = createRequire(sdk)("semver") as { parse(version: string): SemVer | null };
    const version = semver.parse(cached.version);
    const Command = auto.PulumiCommand as unknown as new (
      command: string,
      version: SemVer | null,
    ) => automation.PulumiCommand;
    const made = version === null ? undefined : new Command(command, version);
    return made?.command === command && made.version === version ? made : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole and renamed into place: runners started side by side read a complete file or none. */
async function rememberVersion(file: string, stamp: string, version: string): Promise<void> {
  try {
    const partial = `${file}.${process.pid}.tmp`;
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(partial, JSON.stringify({ stamp, version }));
    await rename(partial, file);
  } catch {
    // Only a saving missed: the next runner asks the binary again.
  }
}

/**
 * What `PulumiCommand.get({ root, skipVersionCheck: true })` returns, without its `pulumi version`
 * once that binary's version is cached. The binary is stamped before `get` runs it, so a binary
 * replaced meanwhile is not remembered with the old one's version.
 */
export async function pulumiCommandOf(
  auto: typeof automation,
  workDir: string,
  binDir: string,
  cacheDir = versionCacheDir,
): Promise<automation.PulumiCommand> {
  const root = path.dirname(binDir);
  const command = path.resolve(path.join(root, "bin/pulumi"));
  const file = path.join(cacheDir, `${createHash("sha256").update(command).digest("hex").slice(0, 16)}.json`);
  const stamp = await binaryStamp(command).catch(() => undefined);
  const cached = stamp === undefined ? undefined : await cachedCommand(auto, workDir, command, file, stamp);
  if (cached !== undefined) return cached;
  const got = await auto.PulumiCommand.get({ root, skipVersionCheck: true });
  if (stamp !== undefined && got.command === command && got.version !== null) {
    await rememberVersion(file, stamp, got.version.raw);
  }
  return got;
}

async function createStack(
  ref: StackRef,
  projectName: string,
  binDir: string,
  env: Record<string, string>,
): Promise<automation.Stack> {
  await mkdir(path.join(ref.stateDir, "backend"), { recursive: true });
  await mkdir(path.join(ref.stateDir, "home"), { recursive: true });
  const auto = loadAutomation(ref.workDir);
  let command = commands.get(binDir);
  if (command === undefined) {
    command = pulumiCommandOf(auto, ref.workDir, binDir);
    commands.set(binDir, command);
  }
  const pulumiCommand = await command;
  const entry = path.join(ref.workDir, "index.js");
  const load = createRequire(entry);
  const program = async (): Promise<Record<string, unknown>> => {
    // Each operation must register the resources again: forget the program's modules (its entry
    // and those it imports, which may declare resources too) from an earlier run; its packages stay.
    for (const file of Object.keys(load.cache)) if (isProgramModule(ref.workDir, file)) delete load.cache[file];
    return { ...(load(entry) as Record<string, unknown>) };
  };
  const stack = await initOrSelectStack(
    auto,
    ref,
    { stackName: ref.stackName, projectName, program },
    { workDir: ref.workDir, envVars: env, pulumiCommand },
  );
  return withFewerCalls(stack, ref, projectName);
}

/**
 * What `LocalWorkspace.createOrSelectStack` does, in one CLI call where it took two: that runs
 * `pulumi stack select`, which fails for a new stack, then `pulumi stack init`, a CLI process
 * (~0.4 s of CPU) for nothing on most stacks a test run opens. A stack plainly new is initialised
 * at once; one that exists after all (made meanwhile, or kept where plainlyNew does not look) is
 * then selected, and any other is opened as the SDK opens it.
 */
export async function initOrSelectStack(
  auto: typeof automation,
  ref: StackRef,
  args: automation.InlineProgramArgs,
  opts: automation.LocalWorkspaceOptions,
): Promise<automation.Stack> {
  if (await plainlyNew(ref, args.projectName)) {
    try {
      return await auto.LocalWorkspace.createStack(args, opts);
    } catch (error) {
      if (!(error instanceof auto.StackAlreadyExistsError)) throw error;
    }
  }
  return auto.LocalWorkspace.createOrSelectStack(args, opts);
}

/** The stack's checkpoint in its own file:// backend, where the CLI keeps a project's stacks. */
const checkpointFile = (ref: StackRef, projectName: string) =>
  path.join(ref.stateDir, "backend", ".pulumi", "stacks", projectName, `${ref.stackName}.json`);

/**
 * Whether the stack plainly does not exist yet: its own file:// backend holds no checkpoint for it,
 * plain or compressed. Any doubt (another backend, a qualified name) answers no.
 */
async function plainlyNew(ref: StackRef, projectName: string): Promise<boolean> {
  if (ref.loggedIn !== undefined || ref.stackName.includes("/")) return false;
  const file = checkpointFile(ref, projectName);
  const found = await Promise.all(
    [file, `${file}.gz`].map((f) =>
      stat(f).then(
        () => true,
        () => false,
      ),
    ),
  );
  return !found.includes(true);
}

interface Checkpoint {
  readonly checkpoint?: {
    readonly latest?: {
      readonly secrets_providers?: { readonly type?: string; readonly state?: { readonly salt?: string } };
      readonly resources?: readonly { type: string; outputs?: Record<string, unknown> }[];
    };
  };
}

interface ExportedStack {
  readonly deployment?: { readonly resources?: readonly { type: string; outputs?: Record<string, unknown> }[] };
}

/** The root stack resource's outputs as the Automation API gives them: values revealed, which are secret. */
function outputMap(outputs: Record<string, unknown> | undefined, key?: Buffer): automation.OutputMap {
  return Object.fromEntries(
    Object.entries(outputs ?? {}).map(([name, value]) => [
      name,
      { value: revealed(value, key), secret: isSecret(value) },
    ]),
  );
}

const isStack = (r: { type: string }) => r.type === "pulumi:pulumi:Stack";

/**
 * The outputs read from the checkpoint the `up` just wrote to the stack's own file:// backend, its
 * secrets opened with the runner's passphrase (passphrase.mts); undefined whenever that is not
 * plainly the case (a logged-in backend, another secrets provider, an unexpected file), so that the
 * CLI is asked instead.
 */
async function checkpointOutputs(ref: StackRef, projectName: string): Promise<automation.OutputMap | undefined> {
  if (ref.loggedIn !== undefined) return undefined;
  const file = checkpointFile(ref, projectName);
  try {
    const latest = (JSON.parse(await readFile(file, "utf8")) as Checkpoint).checkpoint?.latest;
    const provider = latest?.secrets_providers;
    const salt = provider?.state?.salt;
    if (provider?.type !== "passphrase" || salt === undefined) return undefined;
    const root = latest?.resources?.find(isStack);
    return root ? outputMap(root.outputs, passphraseKey(passphrase, salt)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * After an up, refresh or destroy the Automation API asks the CLI for the update's summary (`pulumi
 * stack history`, 0.6 s), and after an up for the outputs twice (masked, then with secrets, 1 s):
 * half the time of a small stack's operation. The runner takes the counts from the engine's own
 * summary event instead (runOperation), and the outputs, with which are secret, from the checkpoint
 * the up wrote (checkpointOutputs), else from one `pulumi stack export --show-secrets`: what
 * `stack output` prints, read from the same state.
 */
function withFewerCalls(stack: automation.Stack, ref: StackRef, projectName: string): automation.Stack {
  const tuned = stack as unknown as {
    info: () => Promise<undefined>;
    outputs: () => Promise<automation.OutputMap>;
  };
  tuned.info = async () => undefined;
  tuned.outputs = async () => {
    const read = await checkpointOutputs(ref, projectName);
    if (read !== undefined) return read;
    const { stdout } = await pulumiCli(ref, ["stack", "export", "--show-secrets"]);
    return outputMap((JSON.parse(stdout) as ExportedStack).deployment?.resources?.find(isStack)?.outputs);
  };
  return stack;
}

/**
 * The stack's config as the request wants it: set (and removed) only when the request or the
 * stack's settings file changed since this process last set them, and then written to that file as
 * the CLI writes it (stack-settings.mts) when it is plainly a passphrase stack's on its own backend,
 * else through `pulumi config set-all`. A file changed by anyone else (another process, a test that
 * edits it) is set again.
 */
const appliedConfig = new Map<string, string>();

async function settingsFileDigest(ref: StackRef): Promise<string> {
  const text = await readFile(path.join(ref.workDir, `Pulumi.${ref.stackName}.yaml`)).catch(() => Buffer.alloc(0));
  return createHash("sha256").update(text).digest("hex");
}

/** The stack's part `applyConfig` uses: what it falls back to when it cannot write the file itself. */
export type ConfigSetter = Pick<automation.Stack, "setAllConfig" | "removeAllConfig">;

export async function applyConfig(stack: ConfigSetter, request: RunRequest): Promise<void> {
  const config = Object.entries(request.config ?? {});
  const removed = request.removeConfig ?? [];
  if (config.length === 0 && removed.length === 0) return;
  const key = stackKey(request);
  const wanted = JSON.stringify([config, removed]);
  if (appliedConfig.get(key) === `${wanted}\n${await settingsFileDigest(request)}`) return;
  appliedConfig.delete(key);
  const settingsFile = path.join(request.workDir, `Pulumi.${request.stackName}.yaml`);
  const direct =
    request.loggedIn === undefined &&
    !request.stackName.includes("/") &&
    (await writeConfig(settingsFile, passphrase, Object.fromEntries(config), removed));
  if (!direct && config.length > 0) {
    await stack.setAllConfig(
      Object.fromEntries(config.map(([k, v]) => [k, { value: v.value, secret: v.secret ?? false }])),
    );
  }
  if (!direct && removed.length > 0) await stack.removeAllConfig([...removed]);
  appliedConfig.set(key, `${wanted}\n${await settingsFileDigest(request)}`);
}

function collectSteps(
  steps: Step[],
  summary: { changes?: Record<string, number> },
): (event: automation.EngineEvent) => void {
  return (event) => {
    if (event.summaryEvent) summary.changes = { ...event.summaryEvent.resourceChanges };
    const meta = event.resourcePreEvent?.metadata;
    if (!meta) return;
    steps.push({
      urn: meta.urn,
      type: meta.type,
      name: meta.urn.split("::").pop() ?? meta.urn,
      op: meta.op,
      diffs: meta.diffs ?? [],
    });
  };
}

/** Runs the CLI itself (`pulumi <args>`) on the stack's backend; what it printed. */
async function pulumiCli(ref: StackRef, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  const binDir = pulumiBinDir();
  return run(path.join(binDir, "pulumi"), [...args, "--stack", ref.stackName], {
    cwd: ref.workDir,
    env: { ...process.env, ...stackEnv(ref, binDir) },
    maxBuffer: 64 * 1024 * 1024,
  });
}

async function importState(ref: StackRef & { readonly stateFile?: string }): Promise<string> {
  if (ref.stateFile === undefined) throw new Error("import needs a stateFile");
  return (await pulumiCli(ref, ["stack", "import", "--file", ref.stateFile])).stderr;
}

const printed = (r: { readonly stdout: string; readonly stderr: string }) => ({ stdout: r.stdout, stderr: r.stderr });

/** Where the engine's progress goes: nowhere, unless CLOUDPLATFORM_RUNNER_VERBOSE is set or a caller asks. */
export interface RunOptions {
  readonly onOutput?: (text: string) => void;
}

function defaultOutput(): ((text: string) => void) | undefined {
  return process.env.CLOUDPLATFORM_RUNNER_VERBOSE ? (text) => void process.stderr.write(text) : undefined;
}

export async function runOperation(
  request: RunRequest,
  projectName: string,
  options: RunOptions = {},
): Promise<RunResult> {
  const onOutput = options.onOutput ?? defaultOutput();
  const { op } = request;
  try {
    if (op === "export") {
      const { stdout, stderr } = await pulumiCli(request, ["stack", "export"]);
      return { op, ok: true, exported: stdout, stderr };
    }
    if (op === "import") {
      return { op, ok: true, stderr: await importState(request) };
    }
    const stack = await openStack(request, projectName);
    await applyConfig(stack, request);
    const steps: Step[] = [];
    const summary: { changes?: Record<string, number> } = {};
    const onEvent = collectSteps(steps, summary);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const changes = () => ({ ...summary.changes });
    switch (op) {
      case "up": {
        const r = await stack.up({ onEvent, ...(onOutput ? { onOutput } : {}) });
        return { op, ok: true, seconds: seconds(), changes: changes(), steps, outputs: r.outputs, ...printed(r) };
      }
      case "preview": {
        const r = await stack.preview({ onEvent, diff: request.diff ?? false, ...(onOutput ? { onOutput } : {}) });
        return { op, ok: true, seconds: seconds(), changes: { ...r.changeSummary }, steps, ...printed(r) };
      }
      case "refresh": {
        const r = await stack.refresh({ onEvent, ...(onOutput ? { onOutput } : {}) });
        return { op, ok: true, seconds: seconds(), changes: changes(), steps, ...printed(r) };
      }
      case "destroy": {
        const r = await stack.destroy({ onEvent, ...(onOutput ? { onOutput } : {}) });
        return { op, ok: true, seconds: seconds(), changes: changes(), steps, ...printed(r) };
      }
      case "cancel":
        await stack.cancel();
        return { op, ok: true };
    }
  } catch (error) {
    return { op, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
