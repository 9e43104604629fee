// The Debian programs the tests drive (real S3 clients, speech and media tools), whether this machine
// has them, and the one way tests run an external program. `npm test` probes once up front
// (scripts/check-tools.mts) and hands the answer to every test worker in CLOUDPLATFORM_TEST_TOOLS;
// a test run started some other way probes here, once per process and tool.
import { execFile, spawnSync } from "node:child_process";
import path from "node:path";
import type { TestOptions } from "vitest";

declare module "vitest" {
  interface TaskMeta {
    /** Why a test was skipped: the missing tools and the command that installs them. */
    skipReason?: string;
  }
}

type Command = readonly [file: string, args: readonly string[]];

interface ToolSpec {
  /** Debian packages that provide it (the install command names these). */
  readonly packages: readonly string[];
  /** The programs of those packages that the tests or the emulator run. */
  readonly programs: readonly string[];
  /** Alternatives, each a list of commands that must all exit 0. */
  readonly probes: readonly (readonly Command[])[];
}

export const TOOLS = {
  "espeak-ng": { packages: ["espeak-ng"], programs: ["espeak-ng"], probes: [[["espeak-ng", ["--version"]]]] },
  // The emulator measures media with ffprobe, which comes in the same package.
  ffmpeg: {
    packages: ["ffmpeg"],
    programs: ["ffmpeg", "ffprobe"],
    probes: [
      [
        ["ffmpeg", ["-version"]],
        ["ffprobe", ["-version"]],
      ],
    ],
  },
  sox: { packages: ["sox"], programs: ["sox", "soxi"], probes: [[["sox", ["--version"]]]] },
  // Recognising nothing from /dev/null loads the English model, so a missing model package shows too.
  // PocketSphinx 5 has no such harmless run; like the emulator, its `pocketsphinx` counts when found.
  pocketsphinx: {
    packages: ["pocketsphinx", "pocketsphinx-en-us"],
    programs: ["pocketsphinx_continuous", "pocketsphinx"],
    probes: [
      [["pocketsphinx_continuous", ["-infile", "/dev/null", "-logfn", "/dev/null"]]],
      [["sh", ["-c", "command -v pocketsphinx"]]],
    ],
  },
  aws: { packages: ["awscli"], programs: ["aws"], probes: [[["aws", ["--version"]]]] },
  s3cmd: { packages: ["s3cmd"], programs: ["s3cmd"], probes: [[["s3cmd", ["--version"]]]] },
  rclone: { packages: ["rclone"], programs: ["rclone"], probes: [[["rclone", ["version"]]]] },
  curl: { packages: ["curl"], programs: ["curl"], probes: [[["curl", ["--version"]]]] },
} as const satisfies Record<string, ToolSpec>;

export type Tool = keyof typeof TOOLS;
export const toolNames = Object.keys(TOOLS) as Tool[];

/** Where the probe result travels from scripts/test.sh to the test workers. */
export const probedToolsVariable = "CLOUDPLATFORM_TEST_TOOLS";

const answers = new Map<Tool, boolean>();

function fromEnvironment(): void {
  const handed = process.env[probedToolsVariable];
  if (!handed || answers.size > 0) return;
  const parsed = JSON.parse(handed) as Record<string, unknown>;
  for (const tool of toolNames) if (typeof parsed[tool] === "boolean") answers.set(tool, parsed[tool]);
}

function probe(tool: Tool): boolean {
  const spec: ToolSpec = TOOLS[tool];
  return spec.probes.some((commands) =>
    commands.every(([file, args]) => spawnSync(file, args, { stdio: "ignore", timeout: 30_000 }).status === 0),
  );
}

/** Whether `tool` works on this machine (asked once per process). */
export function hasTool(tool: Tool): boolean {
  fromEnvironment();
  let answer = answers.get(tool);
  if (answer === undefined) {
    answer = probe(tool);
    answers.set(tool, answer);
  }
  return answer;
}

export function missingTools(tools: readonly Tool[] = toolNames): Tool[] {
  return tools.filter((tool) => !hasTool(tool));
}

/** The one command that installs `tools` on Debian or Ubuntu. */
export function installCommand(tools: readonly Tool[]): string {
  const packages = [...new Set(tools.flatMap((tool) => TOOLS[tool].packages))];
  return `sudo apt-get install -y ${packages.join(" ")}`;
}

/** CI must test everything: there a missing tool fails the tests that need it instead of skipping them. */
export function isCI(): boolean {
  const ci = process.env["CI"];
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}

/**
 * Options for `describe`/`it` whose tests run `tools`: skipped when one is missing (outside CI),
 * with the reason in the test's meta, where the closing summary of `npm test` reads it.
 */
export function needs(...tools: Tool[]): TestOptions {
  const missing = missingTools(tools);
  if (missing.length === 0 || isCI()) return {};
  return {
    skip: true,
    meta: { skipReason: `needs ${missing.join(", ")}; install: ${installCommand(missing)}` },
  };
}

export interface ProgramOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/** A program that could not be started, failed, or was killed: its name and stderr are in the message. */
export class ProgramError extends Error {
  readonly program: string;
  /** The exit status; null when the program never ran or was killed. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;

  constructor(program: string, exitCode: number | null, output: ProgramOutput, message: string, cause: unknown) {
    super(message, { cause });
    this.name = "ProgramError";
    this.program = program;
    this.exitCode = exitCode;
    this.stdout = output.stdout;
    this.stderr = output.stderr;
  }
}

export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Default 120 s. */
  readonly timeoutMs?: number;
}

function installHint(file: string): string {
  const name = path.basename(file);
  const tool = toolNames.find((t) => (TOOLS[t].programs as readonly string[]).includes(name));
  return tool ? `; install it with: ${installCommand([tool])}` : "";
}

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 4000 ? `…${trimmed.slice(-4000)}` : trimmed;
}

function describeCall(file: string, args: readonly string[]): string {
  const line = [path.basename(file), ...args].join(" ");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Resolves with the exit status and output of a program that ran to its end; rejects otherwise. */
function execute(
  file: string,
  args: readonly string[],
  options: RunOptions,
): Promise<ProgramOutput & { readonly exitCode: number }> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { env: options.env ?? process.env, cwd: options.cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const output = { stdout: String(stdout), stderr: String(stderr) };
        if (!error) return resolve({ ...output, exitCode: 0 });
        const code: unknown = error.code;
        if (typeof code === "number") return resolve({ ...output, exitCode: code });
        const message =
          code === "ENOENT"
            ? `${path.basename(file)} is not installed (not found on PATH)${installHint(file)}`
            : `\`${describeCall(file, args)}\` ${error.killed ? `killed after ${timeoutMs / 1000} s` : error.message}; stderr:\n${tail(output.stderr)}`;
        reject(new ProgramError(file, null, output, message, error));
      },
    );
  });
}

/** Runs a program without a shell; rejects with a ProgramError unless it exits 0. */
export async function runProgram(
  file: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<ProgramOutput> {
  const { exitCode, ...output } = await execute(file, args, options);
  if (exitCode !== 0) {
    const message = `\`${describeCall(file, args)}\` exited with status ${exitCode}; stderr:\n${tail(output.stderr)}`;
    throw new ProgramError(file, exitCode, output, message, undefined);
  }
  return output;
}

/**
 * Runs a program that is expected to fail (exit non-zero) and returns what it printed; rejects with a
 * ProgramError when it could not run at all or, unexpectedly, succeeded.
 */
export async function programFailure(
  file: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<ProgramOutput & { readonly exitCode: number }> {
  const exit = await execute(file, args, options);
  if (exit.exitCode === 0) {
    const message = `\`${describeCall(file, args)}\` succeeded but was expected to fail; stdout:\n${tail(exit.stdout)}`;
    throw new ProgramError(file, 0, exit, message, undefined);
  }
  return exit;
}
