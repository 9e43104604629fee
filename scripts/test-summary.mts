// `npm test`'s closing summary: `node scripts/test-summary.mts <vitest JSON report> <vitest exit status>`.
// Prints what was skipped and why, what failed, and the closing line; exits 1 when anything failed.
import { readFileSync } from "node:fs";
import { summarise } from "../test/support/summary.mts";
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
const summary = summarise({ report, vitestStatus: Number(status), root: repoRoot, onlyTag });
for (const line of summary.lines) console.log(line);
process.exit(summary.failed > 0 ? 1 : 0);
