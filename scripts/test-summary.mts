// `npm test`'s closing summary: `node scripts/test-summary.mts <vitest JSON report> <vitest exit status>`.
// Prints what was skipped and why, what failed, and the closing line; exits 1 when anything failed.
import { readFileSync } from "node:fs";
import { summarise } from "../test/support/summary.mts";
import { fileCpuVariable, timingsVariable, type FileCpu, type FileTiming } from "../test/support/timing-reporter.mts";
import { repoRoot } from "./lib/paths.mts";

const [reportFile = "", status = "1"] = process.argv.slice(2);
let report: unknown;
try {
  report = JSON.parse(readFileSync(reportFile, "utf8"));
} catch {
  report = undefined;
}
// Set by scripts/test-without-tools.mts for its `--tags-filter` run.
const onlyTag = process.env["CLOUDPLATFORM_SUMMARY_ONLY_TAG"] || undefined;
// Written by test/support/timing-reporter.mts when scripts/test.sh named the file: spans with hooks.
let timings: FileTiming[] | undefined;
try {
  const file = process.env[timingsVariable];
  timings = file ? (JSON.parse(readFileSync(file, "utf8")) as FileTiming[]) : undefined;
} catch {
  timings = undefined;
}
// Written by test/support/file-cpu.mts, one JSON line per file, when scripts/test.sh named the file.
let cpu: FileCpu[] | undefined;
try {
  const file = process.env[fileCpuVariable];
  cpu = file
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as FileCpu)
    : undefined;
} catch {
  cpu = undefined;
}
const summary = summarise({ report, vitestStatus: Number(status), root: repoRoot, onlyTag, timings, cpu });
for (const line of summary.lines) console.log(line);
process.exit(summary.failed > 0 ? 1 : 0);
