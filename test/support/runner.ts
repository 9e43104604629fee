// Drives scripts/lib/runner-cli.mts in child processes: the Pulumi programs run in plain Node, never
// inside vitest's transformed module graph (which would be serialized into __provider).
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
// Types only (erased at run time): vitest never loads the runner's modules, which run in children.
import type { ConfigEntry, RunResult, Step } from "../../scripts/lib/runner.mts";
import type { ServeAnswer } from "../../scripts/lib/runner-serve.mts";
import { runnerEnv } from "./stacks.mts";

const repoRoot = path.resolve(__dirname, "..", "..");
const runnerCli = path.join(repoRoot, "scripts", "lib", "runner-cli.mts");

export type { ConfigEntry, RunResult, Step };
export type Config = Readonly<Record<string, ConfigEntry>>;

function callRunner<T>(request: object): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [runnerCli, JSON.stringify(request)],
      { cwd: repoRoot, env: runnerEnv(), maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const last = stdout.trimEnd().split("\n").pop() ?? "";
        if (error) return reject(new Error(`runner failed (${error.message}):\n${stderr.slice(-4000)}`));
        try {
          resolve(JSON.parse(last) as T);
        } catch {
          reject(new Error(`runner printed no JSON answer:\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`));
        }
      },
    );
  });
}

/**
 * A runner that serves one stack's operations one after another (scripts/lib/runner-serve.mts): one
 * Node process, one load of the Automation API and one `pulumi stack select` for all of them. It
 * steps aside (answers `stale`) when it could differ from a fresh process; the request then goes to
 * a fresh one.
 */
class RunnerServer {
  private readonly child: ChildProcess;
  private exited = false;
  private stderr = "";
  private pending: { id: number; settle: (answer: ServeAnswer | Error) => void } | undefined;
  private nextId = 1;

  constructor() {
    this.child = spawn(process.execPath, [runnerCli, "--serve"], {
      cwd: repoRoot,
      env: runnerEnv(),
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-8000);
    });
    this.child.on("message", (message: ServeAnswer) => {
      if (message.id === this.pending?.id) this.pending.settle(message);
    });
    // "close", not "exit": by then every message the process sent has arrived.
    this.child.on("close", (code, signal) => {
      this.exited = true;
      this.pending?.settle(
        new Error(`runner exited (${signal ?? code}) without an answer:\n${this.stderr.slice(-4000)}`),
      );
    });
    this.idle();
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  get usable(): boolean {
    return !this.exited && this.child.connected;
  }

  /** The answer, or `stale` when this process stepped aside (it exits then). */
  run<T>(request: object): Promise<T | { stale: string }> {
    const id = this.nextId++;
    // Kept referenced while it works for the test; otherwise it never holds vitest's worker open.
    this.child.ref();
    this.child.channel?.ref();
    return new Promise<ServeAnswer | Error>((settle) => {
      this.pending = { id, settle };
      this.child.send({ id, request });
    }).then((answer) => {
      this.pending = undefined;
      this.idle();
      if (answer instanceof Error) throw answer;
      if ("failed" in answer) throw new Error(`${answer.failed}\n${this.stderr.slice(-4000)}`);
      if ("stale" in answer) return { stale: answer.stale };
      return answer.answer as T;
    });
  }

  private idle(): void {
    this.child.unref();
    this.child.channel?.unref();
    (this.child.stderr as { unref?: () => void } | null)?.unref?.();
  }

  /**
   * Ends the process and waits for it (at most 10 s): until reaped, its CPU and that of the CLI
   * processes it ran are not in the test file's own (test/support/file-cpu.mts).
   */
  async close(): Promise<void> {
    if (this.exited) return;
    const closed = new Promise<void>((resolve) => {
      this.child.once("close", () => resolve());
      setTimeout(resolve, 10_000).unref();
    });
    this.child.kill();
    await closed;
  }
}

export interface ExampleOptions {
  /** The folder holding the example's folder, when not examples/ (a program a test wrote). */
  readonly sourceRoot?: string;
  /** The file:// backend and PULUMI_HOME to share with other stacks (runner.mts `engineEnv`); default: its own. */
  readonly stateDir?: string;
}

/** A stack of one example, with its own file:// backend (or a shared one), deployed against one emulator. */
export class ExampleStack {
  private loggedIn: { env: Record<string, string> } | undefined;
  private server: RunnerServer | undefined;

  private constructor(
    readonly example: string,
    readonly workDir: string,
    private readonly rootDir: string,
    private readonly baseConfig: Config,
    /** Holds the stack's file:// backend and PULUMI_HOME (runner.mts `engineEnv`). */
    readonly stateDir: string,
  ) {}

  static async create(example: string, baseConfig: Config, options: ExampleOptions = {}): Promise<ExampleStack> {
    const rootDir = await mkdtemp(path.join(os.tmpdir(), `cloudplatform-e2e-${example}-`));
    const prepared = await callRunner<{ workDir?: string; error?: string }>({
      op: "prepare",
      example,
      parentDir: rootDir,
      ...(options.sourceRoot === undefined ? {} : { sourceRoot: options.sourceRoot }),
    });
    if (!prepared.workDir) throw new Error(`preparing examples/${example} failed: ${prepared.error ?? "no workDir"}`);
    const stateDir = options.stateDir ?? path.join(rootDir, "state");
    return new ExampleStack(example, prepared.workDir, rootDir, baseConfig, stateDir);
  }

  /** The PULUMI_HOME of this stack's engine (where `pulumi login` saves a backend). */
  get homeDir(): string {
    return path.join(this.rootDir, "state", "home");
  }

  /**
   * From now on, the backend `pulumi login` saved in homeDir instead of the stack's own file://
   * backend, with `env` (its credentials, the passphrase) added to the engine's variables.
   */
  useLoggedInBackend(env: Record<string, string>): void {
    this.loggedIn = { env };
  }

  private run(
    op: string,
    config: Config = {},
    removeConfig: readonly string[] = [],
    more: Record<string, unknown> = {},
  ): Promise<RunResult> {
    return this.serve({
      op,
      workDir: this.workDir,
      stateDir: this.stateDir,
      stackName: "e2e",
      config: { ...this.baseConfig, ...config },
      removeConfig,
      ...(this.loggedIn === undefined ? {} : { loggedIn: this.loggedIn }),
      ...more,
    });
  }

  /**
   * Through this stack's runner server; an operation started while another runs (two `up`s raced)
   * gets a process of its own, as does one the server steps aside from.
   */
  private async serve(request: object): Promise<RunResult> {
    if (this.server?.busy) return callRunner<RunResult>(request);
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.server === undefined || !this.server.usable) this.server = new RunnerServer();
      const answer = await this.server.run<RunResult>(request);
      if (!("stale" in answer)) return answer;
      this.server = undefined;
    }
    return callRunner<RunResult>(request);
  }

  /** Runs an operation that must succeed, failing the test with the engine's message otherwise. */
  private async runOk(
    op: string,
    config?: Config,
    removeConfig?: readonly string[],
    more?: Record<string, unknown>,
  ): Promise<RunResult> {
    const result = await this.run(op, config, removeConfig, more);
    if (!result.ok) throw new Error(`pulumi ${op} of ${this.example} failed:\n${result.error ?? ""}`);
    return result;
  }

  up(config?: Config, removeConfig?: readonly string[]): Promise<RunResult> {
    return this.runOk("up", config, removeConfig);
  }
  preview(config?: Config, removeConfig?: readonly string[]): Promise<RunResult> {
    return this.runOk("preview", config, removeConfig);
  }
  /** `pulumi preview --diff`: every change printed in full. */
  previewDiff(config?: Config): Promise<RunResult> {
    return this.runOk("preview", config, [], { diff: true });
  }
  /** A preview expected to fail: the result carries the engine's message. */
  previewFailing(config?: Config): Promise<RunResult> {
    return this.run("preview", config);
  }
  /** An up expected to fail: the result carries the engine's message. */
  upFailing(config?: Config): Promise<RunResult> {
    return this.run("up", config);
  }
  /** A refresh expected to fail: the result carries the engine's message. */
  refreshFailing(): Promise<RunResult> {
    return this.run("refresh");
  }
  refresh(): Promise<RunResult> {
    return this.runOk("refresh");
  }
  destroy(): Promise<RunResult> {
    return this.runOk("destroy");
  }
  async exportState(): Promise<string> {
    return (await this.runOk("export")).exported ?? "";
  }
  /** `pulumi stack export` with what the CLI printed on stderr. */
  exportResult(): Promise<RunResult> {
    return this.runOk("export");
  }
  /** `pulumi stack import` of `exported` (what `exportState` gave, e.g. edited). */
  async importState(exported: string): Promise<void> {
    const stateFile = path.join(this.rootDir, "import.json");
    await writeFile(stateFile, exported);
    const result = await this.run("import", {}, [], { stateFile });
    if (!result.ok) throw new Error(`pulumi stack import of ${this.example} failed:\n${result.error ?? ""}`);
  }

  async dispose(): Promise<void> {
    await this.server?.close();
    await rm(this.rootDir, { recursive: true, force: true });
  }
}

/** A string output of an up, failing loudly when absent. */
export function output(result: RunResult, name: string): string {
  const value = result.outputs?.[name]?.value;
  if (typeof value !== "string")
    throw new Error(
      `output "${name}" is ${JSON.stringify(value)}; outputs: ${Object.keys(result.outputs ?? {}).join(", ")}`,
    );
  return value;
}

/** Operation counts other than "same": an empty object means the engine planned no change. */
export function changesOtherThanSame(result: RunResult): Record<string, number> {
  return Object.fromEntries(Object.entries(result.changes ?? {}).filter(([op, n]) => op !== "same" && n > 0));
}

/** The ops the engine reported for the resource whose logical name is `name` ("replace", "update", ...). */
export function opsOf(result: RunResult, name: string): string[] {
  return (result.steps ?? []).filter((s) => s.name === name && !s.type.startsWith("pulumi:")).map((s) => s.op);
}
