// What every suite of the benchmark shares: the shape of a row, medians, paired rounds, timing of
// child processes, and the results file. A suite measures one or more rows of the table in
// bench/README.md; bench.mts runs the suites and prints the table.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

/** One row of the printed table: a figure of this run, its goal, and whether it is met. */
export interface RowResult {
  /** Stable id, for `--row` and the results file (e.g. "up-buckets", "s3-put-256"). */
  readonly id: string;
  /** What is measured, as the table says it. */
  readonly what: string;
  /** Resources in the program, for the rows that have an N. */
  readonly n?: number;
  /** The figure, formatted (e.g. "1.12×", "150 calls", "5.9 KB vs 4.6 KB"). */
  readonly now: string;
  readonly goal: string;
  /** undefined when the row has no pass/fail goal (a figure kept for reference). */
  readonly met: boolean | undefined;
  /** Medians behind the figure, for a reader who wants the absolute values. */
  readonly detail: string;
}

export interface SuiteOptions {
  readonly rounds: number;
  /** The short version: fewer and smaller cases, for a quick look. */
  readonly short: boolean;
  /** Resources per program, for the suites whose rows have an N. */
  readonly sizes: readonly number[];
  /** The rows asked for with `--row` (empty: all), so a suite can skip the cases no row needs. */
  readonly rows: ReadonlySet<string>;
  /** Scratch space, removed after the run. */
  readonly workDir: string;
  readonly log: (message: string) => void;
}

export interface SuiteResult {
  readonly rows: readonly RowResult[];
  /** Every measurement of every round, kept in the results file. */
  readonly raw: unknown;
}

/** A group of rows measured together (they share setup: servers, programs, files). */
export interface Suite {
  readonly name: string;
  /** The ids of the rows it produces (for `--row` before anything runs). */
  readonly rowIds: readonly string[];
  run(options: SuiteOptions): Promise<SuiteResult>;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The order of the contenders in round `round` (from 1): it rotates, so none always runs first
 * (cold caches) or last (a machine busier as the run goes on).
 */
export function rotation<T>(contenders: readonly T[], round: number): T[] {
  return contenders.map((_, i) => contenders[(i + round - 1) % contenders.length]!);
}

/** "1.12×" */
export const ratio = (value: number): string => `${value.toFixed(2)}×`;

/** Seconds of wall time `work` takes. */
export async function timed<T>(work: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { seconds: (performance.now() - started) / 1000, value };
}

export interface ProcessUsage {
  readonly seconds: number;
  /** User + system CPU seconds, from /usr/bin/time. */
  readonly cpuSeconds: number;
  readonly maxRssMiB: number;
  readonly stdout: string;
}

/**
 * Runs a command under `/usr/bin/time` and reports its wall time, CPU time and peak RSS. Fails
 * with the command's stderr when it exits non-zero. `env`: the command's whole environment (the
 * bench's own, unless given).
 */
export function measureProcess(
  command: string,
  args: readonly string[],
  cwd?: string,
  env?: NodeJS.ProcessEnv,
): Promise<ProcessUsage> {
  return new Promise((resolve, reject) => {
    const marker = "__bench_time__";
    const child = spawn("/usr/bin/time", ["-f", `${marker} %e %U %S %M`, command, ...args], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const line = stderr.split("\n").find((l) => l.startsWith(marker));
      if (code !== 0 || line === undefined) {
        reject(new Error(`${command} ${args.join(" ")} failed (${code}): ${stderr.slice(-2000)}`));
        return;
      }
      const [, wall, user, system, rssKiB] = line.split(" ").map(Number) as [number, number, number, number, number];
      resolve({ seconds: wall, cpuSeconds: user + system, maxRssMiB: rssKiB / 1024, stdout });
    });
  });
}
