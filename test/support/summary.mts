// The end of `npm test`: what was skipped and why, what failed, and one closing line
// `N passed, N failed[, N skipped]` computed so that it never disagrees with the exit status. Reads
// vitest's JSON report, in which a test file that failed to load or in a hook has no failed test
// (its tests show as skipped): such a file counts as one failure here, with its name.
import path from "node:path";
import { z } from "zod";
import { phaseOf } from "./phases.mts";
import type { FileCpu, FileTiming } from "./timing-reporter.mts";

const assertionSchema = z.object({
  ancestorTitles: z.array(z.string()),
  title: z.string(),
  status: z.string(),
  meta: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()).optional(),
});

const reportSchema = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string(),
      message: z.string().optional(),
      startTime: z.number().optional(),
      endTime: z.number().optional(),
      assertionResults: z.array(assertionSchema),
    }),
  ),
});

export type VitestJsonReport = z.infer<typeof reportSchema>;

export interface Summary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** What to print: the details, then the closing line last. */
  readonly lines: readonly string[];
}

export interface SummaryInput {
  /** The parsed JSON report, or undefined when vitest wrote none. */
  readonly report: unknown;
  /** vitest's exit status. */
  readonly vitestStatus: number;
  /** Test file names are printed relative to this directory. */
  readonly root: string;
  /**
   * The tag of a `--tags-filter` run (scripts/test-without-tools.mts): its untagged tests are left out
   * on purpose, counted apart, and one that ran anyway is a failure (the run must cover exactly the tagged).
   */
  readonly onlyTag?: string;
  /** Each file's span with its hooks, from the timing reporter, when the run had it. */
  readonly timings?: readonly FileTiming[];
  /** Each file's CPU, from test/support/file-cpu.mts, when the run had it. */
  readonly cpu?: readonly FileCpu[];
}

const skippedStates = new Set(["skipped", "pending", "todo"]);

const tests = (n: number): string => `${n} ${n === 1 ? "test" : "tests"}`;

/** How many of the slowest files the summary names: a slow test is seen the day it lands. */
export const slowestShown = 20;

/** A test file's span of wall time, its name relative to the repository. */
export interface FileSpan {
  readonly name: string;
  /** ms since the epoch. */
  readonly start: number;
  readonly end: number;
}

/**
 * Each file's span: from the timing reporter (test/support/timing-reporter.mts: hooks included)
 * when it wrote one, else from vitest's JSON report (first test's start to last test's end).
 */
export function fileSpans(report: VitestJsonReport, root: string, timings?: readonly FileTiming[]): FileSpan[] {
  const relative = (file: string) => path.relative(root, file) || file;
  if (timings !== undefined && timings.length > 0)
    return timings.map((t) => ({ name: relative(t.file), start: t.start, end: t.end }));
  return report.testResults.flatMap((file) =>
    file.startTime !== undefined && file.endTime !== undefined
      ? [{ name: relative(file.name), start: file.startTime, end: file.endTime }]
      : [],
  );
}

/** The `count` slowest files, slowest first, as `  123.4 s  test/e2e/x.test.ts`. */
export function slowestFiles(spans: readonly FileSpan[], count = slowestShown): string[] {
  return spans
    .map(({ name, start, end }) => ({ name, seconds: (end - start) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count)
    .map(({ name, seconds }) => `${seconds.toFixed(1).padStart(8)} s  ${name}`);
}

/**
 * Each phase's wall time, how many files ran at once on average (file-seconds over wall seconds),
 * and how long its last file ran after every other had ended: the time the phase left workers
 * idle at its end. Measured so that a cut of the suite's time is aimed where the time goes.
 */
export function phaseFigures(spans: readonly FileSpan[]): string[] {
  const byPhase = new Map<string, FileSpan[]>();
  for (const span of spans) {
    const phase = phaseOf(span.name);
    byPhase.set(phase, [...(byPhase.get(phase) ?? []), span]);
  }
  const lines: string[] = [];
  for (const [phase, files] of byPhase) {
    const wall = (Math.max(...files.map((f) => f.end)) - Math.min(...files.map((f) => f.start))) / 1000;
    const busy = files.reduce((sum, f) => sum + (f.end - f.start), 0) / 1000;
    const [last, before] = [...files].sort((a, b) => b.end - a.end);
    const alone = last && before ? Math.max(0, (last.end - Math.max(before.end, last.start)) / 1000) : 0;
    const atOnce = wall > 0 ? busy / wall : 1;
    lines.push(
      `  ${phase.padEnd(18)} ${wall.toFixed(0).padStart(5)} s, ${files.length} file${files.length === 1 ? "" : "s"}, ` +
        `${atOnce.toFixed(1)} at once on average` +
        (last && before ? `; the last, ${last.name}, ran ${alone.toFixed(0)} s alone` : ""),
    );
  }
  return lines;
}

/** How many of the files that cost the most CPU the summary names. */
export const costliestShown = 10;

/**
 * The files that cost the most CPU, costliest first, each with its wall time, after the total over
 * every file: on two cores the run is CPU-bound, so these, not the slowest, set its length.
 */
export function costliestFiles(
  cpu: readonly FileCpu[],
  spans: readonly FileSpan[],
  root: string,
  count = costliestShown,
): string[] {
  if (cpu.length === 0) return [];
  const relative = (file: string) => path.relative(root, file) || file;
  const wall = new Map(spans.map((s) => [s.name, (s.end - s.start) / 1000]));
  const total = cpu.reduce((sum, f) => sum + f.cpu, 0);
  const lines = [
    `Most CPU (a file's worker and the processes it waited for; ${total.toFixed(0)} s over ${cpu.length} files):`,
  ];
  for (const f of [...cpu].sort((a, b) => b.cpu - a.cpu).slice(0, count)) {
    const name = relative(f.file);
    const seconds = wall.get(name);
    lines.push(
      `${f.cpu.toFixed(1).padStart(8)} s of CPU` +
        (seconds === undefined ? "" : ` in ${seconds.toFixed(1)} s`) +
        `  ${name}`,
    );
  }
  return lines;
}

export function closingLine(passed: number, failed: number, skipped: number): string {
  return `${passed} passed, ${failed} failed` + (skipped > 0 ? `, ${skipped} skipped` : "");
}

export function summarise({ report, vitestStatus, root, onlyTag, timings, cpu }: SummaryInput): Summary {
  const parsed = report === undefined ? undefined : reportSchema.safeParse(report);
  if (!parsed?.success) {
    const why = parsed ? "a report vitest wrote in a shape this summary does not know" : "no report from vitest";
    return {
      passed: 0,
      failed: 1,
      skipped: 0,
      lines: [`vitest failed (exit ${vitestStatus}) with ${why}: see its output above`, closingLine(0, 1, 0)],
    };
  }

  let passed = 0;
  const failedTests: string[] = [];
  const brokenFiles: string[] = [];
  const skippedByReason = new Map<string, string[]>();
  let skippedWithoutReason = 0;
  let leftOutByTag = 0;
  const ranWithoutTag: string[] = [];

  for (const file of parsed.data.testResults) {
    const name = path.relative(root, file.name) || file.name;
    const failedHere = file.assertionResults.filter((a) => a.status === "failed");
    // A failed file without a failed test failed outside its tests: at import, in a hook, or its worker died.
    const broken = file.status === "failed" && failedHere.length === 0;
    let notRun = 0;
    for (const a of file.assertionResults) {
      const title = [name, ...a.ancestorTitles, a.title].join(" › ");
      const untagged = onlyTag !== undefined && !(a.tags ?? []).includes(onlyTag);
      if (a.status === "passed") {
        if (untagged) ranWithoutTag.push(title);
        else passed++;
      } else if (a.status === "failed") failedTests.push(title);
      else if (skippedStates.has(a.status)) {
        const reason = a.meta?.["skipReason"];
        if (typeof reason === "string") skippedByReason.set(reason, [...(skippedByReason.get(reason) ?? []), title]);
        else if (untagged) leftOutByTag++;
        else if (broken) notRun++;
        else skippedWithoutReason++;
      }
    }
    if (broken) {
      const why = file.message?.trim() || "a beforeAll/afterAll hook or the worker failed: see the error above";
      brokenFiles.push(`${name}: ${why.split("\n")[0]}` + (notRun > 0 ? ` (${tests(notRun)} not run)` : ""));
    }
  }

  const spans = fileSpans(parsed.data, root, timings);
  const slowest = slowestFiles(spans);
  const lines: string[] = slowest.length > 0 ? [`Slowest ${slowest.length} test files:`, ...slowest] : [];
  const phases = phaseFigures(spans);
  if (phases.length > 0) lines.push("Phases (wall time, files at once, the end of each):", ...phases);
  lines.push(...costliestFiles(cpu ?? [], spans, root));
  let failed = failedTests.length + brokenFiles.length;
  if (failed === 0 && vitestStatus !== 0) {
    failed = 1;
    lines.push(
      `vitest exited with status ${vitestStatus} although no test in its report failed ` +
        "(an unhandled error or a crashed worker): see its output above",
    );
  }
  failed += ranWithoutTag.length;
  let skipped = skippedWithoutReason + leftOutByTag;
  if (skippedByReason.size > 0 || skipped > 0) lines.push("Skipped:");
  if (leftOutByTag > 0) lines.push(`  ${tests(leftOutByTag)} without the tag ${onlyTag}, left out by --tags-filter`);
  for (const [reason, titles] of skippedByReason) {
    skipped += titles.length;
    lines.push(`  ${reason} (${tests(titles.length)}):`, ...titles.map((t) => `    ${t}`));
  }
  if (skippedWithoutReason > 0)
    lines.push(`  ${skippedWithoutReason} with no reason recorded (left out by a name filter or marked skip in code)`);
  if (brokenFiles.length > 0)
    lines.push(
      "Test files that failed to load or set up (each counted as one failure):",
      ...brokenFiles.map((f) => `  ${f}`),
    );
  if (failedTests.length > 0) lines.push("Failed tests:", ...failedTests.map((t) => `  ${t}`));
  if (ranWithoutTag.length > 0)
    lines.push(
      `Tests that ran without the tag ${onlyTag} (each counted as one failure; the run covers exactly the tagged):`,
      ...ranWithoutTag.map((t) => `  ${t}`),
    );
  lines.push(closingLine(passed, failed, skipped));
  return { passed, failed, skipped, lines };
}
