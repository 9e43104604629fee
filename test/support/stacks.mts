// One stack of examples/soak, each operation run by scripts/lib/runner-cli.mts in its own child
// process: that child hosts the inline program and starts the Pulumi CLI, so the soak can kill
// either of them, and a kill never takes the soak down with it.
import { spawn } from "node:child_process";
import { readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { packCacheVariable } from "../../scripts/lib/pack-once.mts";
import { repoRoot } from "../../scripts/lib/paths.mts";
import type { ConfigEntry, Operation, RunResult } from "../../scripts/lib/runner.mts";
import { watchRoot } from "./processes.mts";

const runnerCli = path.join(repoRoot, "scripts", "lib", "runner-cli.mts");

export type Config = Readonly<Record<string, ConfigEntry>>;

/** A runner child at work: its process id, and its answer once it ends (killed or not). */
export interface Running {
  readonly pid: number;
  readonly result: Promise<RunResult>;
}

/** The CLOUDPLATFORM_* variables a runner child keeps: where the toolchain and this run's packs are, no setting of the provider's. */
const runnerVariables = new Set(["CLOUDPLATFORM_PULUMI_BIN_DIR", packCacheVariable]);

/**
 * The environment of a runner child: no other CLOUDPLATFORM_* from the caller's shell may reach the
 * provider. Node's compile cache (the folder the provider's own compile-cache.ts uses) is on for the
 * runner and, through the engine, the dynamic provider's host: about 0.5 s less per operation.
 */
export function runnerEnv(): NodeJS.ProcessEnv {
  return {
    NODE_COMPILE_CACHE: path.join(os.tmpdir(), "node-compile-cache"),
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith("CLOUDPLATFORM_") || runnerVariables.has(key)),
    ),
  };
}

export class SoakStack {
  readonly workDir: string;
  /** Holds this stack's file:// backend and PULUMI_HOME. */
  readonly stateDir: string;
  readonly stackName: string;
  readonly projectName: string;

  constructor(workDir: string, stateDir: string, stackName: string, projectName: string) {
    this.workDir = workDir;
    this.stateDir = stateDir;
    this.stackName = stackName;
    this.projectName = projectName;
  }

  start(op: Operation, config: Config = {}): Running {
    const request = { op, workDir: this.workDir, stateDir: this.stateDir, stackName: this.stackName, config };
    const child = spawn(process.execPath, [runnerCli, JSON.stringify(request)], {
      env: runnerEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8000)));
    const result = new Promise<RunResult>((resolve) => {
      child.once("close", (code, signal) => {
        const last = stdout.trimEnd().split("\n").pop() ?? "";
        try {
          resolve(JSON.parse(last) as RunResult);
        } catch {
          const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
          resolve({ op, ok: false, error: `the runner ended (${how}) without an answer: ${stderr.slice(-1500)}` });
        }
      });
    });
    if (child.pid === undefined) throw new Error("could not start the runner child");
    watchRoot(child.pid, result);
    return { pid: child.pid, result };
  }

  run(op: Operation, config: Config = {}): Promise<RunResult> {
    return this.start(op, config).result;
  }

  /**
   * True while a lock of this stack is in the file backend: what the CLI reports when it refuses an
   * `up` ("the stack is currently locked ... pulumi cancel"), read without starting one.
   */
  async isLocked(): Promise<boolean> {
    const dir = path.join(
      this.stateDir,
      "backend",
      ".pulumi",
      "locks",
      "organization",
      this.projectName,
      this.stackName,
    );
    const entries = await readdir(dir).catch(() => [] as string[]);
    return entries.some((e) => e.endsWith(".json"));
  }
}

/**
 * Empty `*.attrs` files of the file:// backend's stack files, which leave it unreadable ("failed to
 * load checkpoint: EOF", even for `pulumi cancel`): a CLI killed while saving a checkpoint has
 * truncated the attributes file and not yet written it. The checkpoint itself is intact.
 */
export async function emptyAttributeFiles(stateDir: string): Promise<string[]> {
  const dir = path.join(stateDir, "backend", ".pulumi", "stacks");
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const empty: string[] = [];
  for (const entry of entries) {
    if (!entry.endsWith(".attrs")) continue;
    const file = path.join(dir, entry);
    if ((await stat(file)).size === 0) empty.push(file);
  }
  return empty;
}

/** What a user does once they find out why their stack cannot be read: delete the empty files. */
export async function repairState(stateDir: string): Promise<string[]> {
  const empty = await emptyAttributeFiles(stateDir);
  for (const file of empty) await rm(file);
  return empty.map((f) => path.basename(f));
}

/** The CLI cannot read the stack's checkpoint (see emptyAttributeFiles). */
export function isUnreadableStateError(error: string | undefined): boolean {
  return error !== undefined && /failed to load checkpoint/i.test(error);
}

/** The engine's refusal of an operation because another one holds the stack's lock. */
export function isLockedError(error: string | undefined): boolean {
  return error !== undefined && /currently locked/i.test(error);
}

/** A create refused because the name is taken (409 name_taken, the provider's CLOUDPLATFORM_CONFLICT). */
export function isConflictError(error: string | undefined): boolean {
  return error !== undefined && /\b409\b|name_taken|CLOUDPLATFORM_CONFLICT/.test(error);
}

/**
 * The engine's errors, short enough for a record: the "error: ..." diagnostics (the resource's own
 * message first), without the retry warnings around them. The full text stays in the runner's answer.
 */
export function errorSummary(error: string | undefined, max = 3): string[] {
  if (error === undefined) return [];
  const diagnostics = error
    .split("\n")
    .map((line) => {
      const at = line.indexOf("error: ");
      return at < 0 ? "" : line.slice(at).trim();
    })
    .filter((line) => line !== "" && !/^error: update failed$/.test(line));
  const unique = [...new Set(diagnostics)];
  const first = error.trim().split("\n")[0] ?? "";
  return (unique.length > 0 ? unique : [first]).slice(0, max).map((line) => line.slice(0, 400));
}
