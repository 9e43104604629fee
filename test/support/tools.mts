// The programs outside Node.js and the Pulumi CLI that the tests drive (real S3 clients, speech and
// media tools, Go), whether this machine has them, and the one gate through which tests use them:
// `needs(...)` on the describe/it that uses a tool (skipped with the reason when it is missing, a
// failure under CI=true), and `runProgram`/`programFailure`, which refuse a tool that the running
// test did not declare, so that a test which works only because the tool happens to be installed
// fails on every machine, CI included. `npm test` probes once up front (scripts/check-tools.mts) and
// hands the answer to every test worker in CLOUDPLATFORM_TEST_TOOLS; a test run started some other
// way probes here, once per process and tool. test/unit/tool-gate.test.ts keeps raw spawns of these
// programs out of the test sources, and scripts/test-without-tools.sh runs the tests that name a
// tool with the tools hidden from PATH (CI does, after the full run).
import { execFile, spawnSync } from "node:child_process";
import path from "node:path";
import type { RunnerTask, RunnerTestCase, TestOptions } from "vitest";

declare module "vitest" {
  interface TaskMeta {
    /** Why a test was skipped: the missing tools and the command that installs them. */
    skipReason?: string;
    /** The tools a test or suite declared with `needs` (what `runProgram` lets it run). */
    tools?: readonly string[];
  }
}

type Command = readonly [file: string, args: readonly string[]];

interface ToolSpec {
  /** Debian packages that provide it (the install command names these); none for a tool Debian lacks in a usable version. */
  readonly packages: readonly string[];
  /** How to install it when no Debian package does. */
  readonly elsewhere?: string;
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
  // The emulator console's browser test drives it with playwright-core, which downloads no browser.
  chromium: { packages: ["chromium"], programs: ["chromium"], probes: [[["chromium", ["--version"]]]] },
  // Builds the Go end-to-end program and the YAML language host (scripts/build-go-e2e.sh,
  // ensure-pulumi-yaml.sh). Debian's golang-go is older than test/e2e/go/go.mod's `go` line on
  // most releases, so the hint points to Go's own installer.
  go: {
    packages: [],
    elsewhere: "Go 1.25 or newer from https://go.dev/doc/install",
    programs: ["go"],
    probes: [[["go", ["version"]]]],
  },
} as const satisfies Record<string, ToolSpec>;

export type Tool = keyof typeof TOOLS;
export const toolNames = Object.keys(TOOLS) as Tool[];

/** The tools Debian packages install (what a fresh machine lacks, and what CI hides to play one). */
export const debianTools: readonly Tool[] = toolNames.filter((tool) => TOOLS[tool].packages.length > 0);

/**
 * The vitest tag of every test (or suite) that declares a Debian tool with `needs`: vitest.config.mts
 * defines it, and `--tags-filter` with it runs those tests alone.
 */
export const debianToolTag = "debian-tool";

/** The tool a program belongs to (`ffprobe` → `ffmpeg`), if any. */
export function toolOfProgram(program: string): Tool | undefined {
  const name = path.basename(program);
  return toolNames.find((tool) => (TOOLS[tool].programs as readonly string[]).includes(name));
}

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

/** How to install `tools`: one apt-get command for those Debian packages, then the others' own way. */
export function installCommand(tools: readonly Tool[]): string {
  const specs: ToolSpec[] = [...new Set(tools)].map((tool) => TOOLS[tool]);
  const packages = [...new Set(specs.flatMap((spec) => spec.packages))];
  const elsewhere = specs.flatMap((spec) => (spec.elsewhere ? [spec.elsewhere] : []));
  return [...(packages.length > 0 ? [`sudo apt-get install -y ${packages.join(" ")}`] : []), ...elsewhere].join("; ");
}

/** CI must test everything: there a missing tool fails the tests that need it instead of skipping them. */
export function isCI(): boolean {
  const ci = process.env["CI"];
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}

/** Every tool some `needs` of this test file declared: what its hooks may run (they belong to no test). */
const declaredInFile = new Set<Tool>();

/**
 * Options for `describe`/`it` whose tests run `tools`: skipped when one is missing (outside CI),
 * with the reason in the test's meta, where the closing summary of `npm test` reads it. The tools
 * are recorded in the meta either way: `runProgram` lets a test run only the tools it or one of its
 * suites declared.
 */
export function needs(...tools: Tool[]): TestOptions {
  for (const tool of tools) declaredInFile.add(tool);
  // The run without the Debian tools (scripts/test-without-tools.mts) selects exactly these tests by tag.
  const tags = tools.some((tool) => debianTools.includes(tool)) ? [debianToolTag] : [];
  const missing = missingTools(tools);
  if (missing.length === 0 || isCI()) return { tags, meta: { tools } };
  return {
    skip: true,
    tags,
    meta: { tools, skipReason: `needs ${missing.join(", ")}; install: ${installCommand(missing)}` },
  };
}

/** Thrown when a test runs a tool it did not declare: it would fail on a machine without that tool. */
export class UndeclaredToolError extends Error {
  constructor(program: string, tool: Tool, where: string) {
    super(
      `${where} runs ${path.basename(program)} without declaring it: add needs("${tool}") to the describe or it ` +
        `that uses it (test/support/tools.mts), so that a machine without ${tool} skips it instead of failing`,
    );
    this.name = "UndeclaredToolError";
  }
}

/** The test running now, inside a vitest worker; undefined in a hook or outside vitest. */
async function currentTest(): Promise<RunnerTestCase | undefined> {
  if (!process.env["VITEST"]) return undefined;
  const { TestRunner } = await import("vitest");
  return TestRunner.getCurrentTest<RunnerTestCase | undefined>();
}

/**
 * Refuses a tool that the running test (or one of its suites) did not declare with `needs`; in a
 * hook, one that no `needs` of the file declared. Outside vitest (scripts), every program may run.
 */
async function checkDeclared(file: string): Promise<void> {
  const tool = toolOfProgram(file);
  if (!tool || !process.env["VITEST"]) return;
  const test = await currentTest();
  if (!test) {
    if (!declaredInFile.has(tool)) throw new UndeclaredToolError(file, tool, "a hook of this test file");
    return;
  }
  for (let task: RunnerTask | undefined = test; task; task = task.suite) if (task.meta.tools?.includes(tool)) return;
  throw new UndeclaredToolError(file, tool, `the test "${test.name}"`);
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
  const tool = toolOfProgram(file);
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

/**
 * Resolves with the exit status and output of a program that ran to its end; rejects otherwise, and
 * before starting it when it is a tool the running test did not declare.
 */
async function execute(
  file: string,
  args: readonly string[],
  options: RunOptions,
): Promise<ProgramOutput & { readonly exitCode: number }> {
  await checkDeclared(file);
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

/** Builds the package into bin/ (`tsc -b`, incremental: quick when built) for tests that load or read it. */
export async function buildPackage(): Promise<void> {
  const root = path.resolve(import.meta.dirname, "../..");
  const tsc = path.join(root, "node_modules/typescript/bin/tsc");
  await runProgram(process.execPath, [tsc, "-b", path.join(root, "tsconfig.json")], { timeoutMs: 600_000 });
}
