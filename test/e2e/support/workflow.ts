// Runs the jobs of a GitHub Actions workflow file on this machine, as a runner would run their
// `run:` steps: which jobs an event starts (their `if:`, in `needs` order), each job in a fresh
// checkout with its own temp folder and HOME, each step's script through `bash --noprofile --norc
// -eo pipefail` with the workflow's, job's and step's `env` (secrets and variables from the test),
// GITHUB_ENV carried to later steps, GITHUB_STEP_SUMMARY collected, and what a job left running
// ended with it. The `uses:` steps are the only ones it cannot run: the caller says what each one
// it accepts stands for (the checkout, the setup), and any other fails the run, so the file cannot
// grow a step that the test silently skips. Only the expressions the files use are understood.
import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

/** js-yaml, the YAML parser @pulumi/pulumi itself depends on (loaded as its dependency). */
const yaml = createRequire(require.resolve("@pulumi/pulumi"))("js-yaml") as { load(text: string): unknown };

export interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly env?: Record<string, string>;
  readonly with?: Record<string, unknown>;
  readonly "working-directory"?: string;
}

export interface Job {
  readonly name?: string;
  readonly if?: string;
  readonly needs?: string | string[];
  readonly env?: Record<string, string>;
  readonly steps: Step[];
}

export interface Workflow {
  readonly name: string;
  readonly on: Record<string, unknown>;
  readonly env?: Record<string, string>;
  readonly defaults?: { run?: { shell?: string } };
  readonly jobs: Record<string, Job>;
}

export async function readWorkflow(file: string): Promise<Workflow> {
  return yaml.load(await readFile(file, "utf8")) as Workflow;
}

export async function readYaml<T>(file: string): Promise<T> {
  return yaml.load(await readFile(file, "utf8")) as T;
}

/** The event a run is for: `github.event_name` and `github.ref`. */
export interface WorkflowEvent {
  readonly name: "pull_request" | "push" | "schedule" | "workflow_dispatch";
  readonly ref: string;
}

/** `a == 'b'` terms joined by `&&` and `||` over github.event_name and github.ref: what the file's `if:`s use. */
export function evaluateIf(condition: string, event: WorkflowEvent): boolean {
  const values: Record<string, string> = { "github.event_name": event.name, "github.ref": event.ref };
  const term = (text: string): boolean => {
    const match = /^\s*([\w.]+)\s*==\s*'([^']*)'\s*$/.exec(text);
    if (!match || values[match[1]!] === undefined) throw new Error(`the test cannot evaluate \`${text.trim()}\``);
    return values[match[1]!] === match[2];
  };
  return condition.split("||").some((any) => any.split("&&").every(term));
}

/** The jobs `event` starts, dependencies first. */
export function jobsFor(workflow: Workflow, event: WorkflowEvent): string[] {
  const started = Object.entries(workflow.jobs)
    .filter(([, job]) => job.if === undefined || evaluateIf(job.if, event))
    .map(([id]) => id);
  const needs = (id: string): string[] => [workflow.jobs[id]?.needs ?? []].flat();
  const ordered: string[] = [];
  const visit = (id: string): void => {
    if (ordered.includes(id)) return;
    for (const dependency of needs(id)) {
      // GitHub skips a job whose dependency did not run.
      if (!started.includes(dependency)) return;
      visit(dependency);
    }
    ordered.push(id);
  };
  for (const id of started) visit(id);
  return ordered;
}

export interface StepResult {
  readonly name: string;
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** What the step wrote to GITHUB_STEP_SUMMARY. */
  readonly summary: string;
}

export interface JobResult {
  readonly id: string;
  readonly ok: boolean;
  readonly steps: StepResult[];
  /** The job's summary: its steps' summaries, in order. */
  readonly summary: string;
  /** Everything the job printed, for assertions about what a log shows (or must not). */
  readonly log: string;
}

export interface RunnerOptions {
  /** The repository as a checkout gets it (copied per job, without node_modules). */
  readonly repository: string;
  /** The installed node_modules a job's setup leaves (linked into each checkout). */
  readonly nodeModules: string;
  /** What the runner has on PATH after the setup steps (node, npx, pulumi, …). */
  readonly path: string;
  readonly secrets: Readonly<Record<string, string>>;
  readonly vars?: Readonly<Record<string, string>>;
  /** The `uses:` steps accepted, and why running nothing for them is right. */
  readonly uses: Readonly<Record<string, string>>;
  /** Parent of the jobs' folders. */
  readonly scratch: string;
}

function expand(value: unknown, options: RunnerOptions): string {
  return String(value).replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
    const match = /^(secrets|vars)\.(\w+)$/.exec(expression);
    const source = match?.[1] === "secrets" ? options.secrets : match?.[1] === "vars" ? options.vars : undefined;
    const found = match ? source?.[match[2]!] : undefined;
    if (found === undefined) throw new Error(`the test has no value for \${{ ${expression} }}`);
    return found;
  });
}

function expandAll(env: Record<string, string> | undefined, options: RunnerOptions): Record<string, string> {
  return Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, expand(v, options)]));
}

/** `NAME=value` lines of a GITHUB_ENV file (the only form the file's steps write). */
function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const at = line.indexOf("=");
    if (at <= 0 || line.includes("<<"))
      throw new Error(`the test cannot read the GITHUB_ENV line ${line.slice(0, 40)}`);
    env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

/** Runs one script as a step does; the process group stays alive for the job (background processes). */
function runScript(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ exitCode: number; stdout: string; stderr: string; pgid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 600_000);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      // What it printed is read once its pipes close; a process it left in the background may
      // hold them (its output then belongs to no step).
      const done = (): void => resolve({ exitCode: code ?? (signal ? 128 : 1), stdout, stderr, pgid: child.pid! });
      const grace = setTimeout(done, 2000);
      child.once("close", () => {
        clearTimeout(grace);
        done();
      });
    });
  });
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {
    // Gone already.
  }
}

export async function runJob(
  workflow: Workflow,
  id: string,
  event: WorkflowEvent,
  options: RunnerOptions,
): Promise<JobResult> {
  const job = workflow.jobs[id];
  if (!job) throw new Error(`the workflow has no job ${id}`);
  const root = await mkdtemp(path.join(options.scratch, `${id}-`));
  const workspace = path.join(root, "checkout");
  const temp = path.join(root, "runner-temp");
  const home = path.join(root, "home");
  await Promise.all([mkdir(temp), mkdir(home)]);
  await cp(options.repository, workspace, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|\.git)$/.test(source),
  });
  await symlink(options.nodeModules, path.join(workspace, "node_modules"), "dir");
  const githubEnv = path.join(temp, "github-env");
  await writeFile(githubEnv, "");
  const results: StepResult[] = [];
  const groups: number[] = [];
  let ok = true;
  try {
    for (const [index, step] of job.steps.entries()) {
      const name = step.name ?? step.uses ?? `step ${index + 1}`;
      if (step.uses !== undefined) {
        if (options.uses[step.uses] === undefined)
          throw new Error(`the test cannot run \`uses: ${step.uses}\` (job ${id})`);
        results.push({ name, exitCode: 0, stdout: "", stderr: "", summary: "" });
        continue;
      }
      if (step.run === undefined) throw new Error(`step ${name} of job ${id} has neither run nor uses`);
      const shell = workflow.defaults?.run?.shell;
      if (shell !== "bash") throw new Error(`the test runs steps with bash; the workflow's default shell is ${shell}`);
      const script = path.join(temp, `step-${index + 1}.sh`);
      const summaryFile = path.join(temp, `summary-${index + 1}.md`);
      await writeFile(script, step.run);
      await writeFile(summaryFile, "");
      const env = {
        HOME: home,
        PATH: options.path,
        CI: "true",
        GITHUB_ACTIONS: "true",
        GITHUB_EVENT_NAME: event.name,
        GITHUB_REF: event.ref,
        GITHUB_WORKSPACE: workspace,
        GITHUB_ENV: githubEnv,
        GITHUB_STEP_SUMMARY: summaryFile,
        RUNNER_TEMP: temp,
        ...expandAll(workflow.env, options),
        ...expandAll(job.env, options),
        ...parseEnvFile(await readFile(githubEnv, "utf8")),
        ...expandAll(step.env, options),
      };
      const cwd = step["working-directory"] ? path.join(workspace, step["working-directory"]) : workspace;
      const { exitCode, stdout, stderr, pgid } = await runScript(script, cwd, env);
      groups.push(pgid);
      results.push({ name, exitCode, stdout, stderr, summary: await readFile(summaryFile, "utf8") });
      if (exitCode !== 0) {
        ok = false;
        break;
      }
    }
  } finally {
    // The runner ends what the job left running (the check job's emulator).
    for (const pgid of groups) killGroup(pgid);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
  return {
    id,
    ok,
    steps: results,
    summary: results.map((s) => s.summary).join(""),
    log: results.map((s) => `${s.stdout}${s.stderr}`).join(""),
  };
}

/** Runs the jobs `event` starts, in order; a failed job skips the jobs that need it. */
export async function runEvent(workflow: Workflow, event: WorkflowEvent, options: RunnerOptions): Promise<JobResult[]> {
  const results: JobResult[] = [];
  for (const id of jobsFor(workflow, event)) {
    const needs = [workflow.jobs[id]?.needs ?? []].flat();
    if (needs.some((need) => results.find((r) => r.id === need)?.ok !== true)) continue;
    results.push(await runJob(workflow, id, event, options));
  }
  return results;
}
