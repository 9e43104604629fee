// The end-to-end files of fault loops and kills (vitest's project "faults", test/support/phases.mts),
// which `npm test` leaves to the soak (issue 36): run here in a child vitest beside the rounds, whose
// time is mostly waiting (retry back-offs, Retry-After pauses). vitest's own output goes to a log in
// the soak's folder; the JSON report gives the counts, read as `npm test` reads its own
// (test/support/summary.mts); when one fails, the soak prints the log's end (soak.mts).
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.mts";
import { summarise } from "../support/summary.mts";

export interface FaultTests {
  readonly passed: number;
  readonly failed: number;
  readonly seconds: number;
  /** What `npm test` would print for the run: the failed tests, then the closing line. */
  readonly lines: readonly string[];
  /** Where vitest's own output is. */
  readonly log: string;
}

/** Runs the project "faults" in `dir` (its report and log there) with vitest from this repository. */
export async function runFaultTests(dir: string): Promise<FaultTests> {
  const started = Date.now();
  const report = path.join(dir, "fault-tests.json");
  const log = path.join(dir, "fault-tests.log");
  const out = createWriteStream(log);
  const vitest = path.join(repoRoot, "node_modules", "vitest", "vitest.mjs");
  const args = [vitest, "run", "--project", "faults", "--reporter=default", "--reporter=json"];
  const status = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [...args, `--outputFile.json=${report}`], {
      // The soak's own environment, inherited (no `env`): under CI a missing tool fails a test that
      // needs it, elsewhere it skips the test, as in `npm test` (test/support/tools.mts).
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
  out.end();
  const parsed: unknown = await readFile(report, "utf8").then(
    (text) => JSON.parse(text) as unknown,
    () => undefined,
  );
  const summary = summarise({ report: parsed, vitestStatus: status, root: repoRoot });
  return {
    passed: summary.passed,
    // summarise counts a failed vitest with no failed test (no report, a file that did not load) as one.
    failed: summary.failed,
    seconds: Math.round((Date.now() - started) / 1000),
    lines: summary.lines,
    log,
  };
}
