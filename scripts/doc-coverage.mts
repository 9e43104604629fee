// The documentation's coverage, after `npm test`: `node scripts/doc-coverage.mts <dir>`, where the
// tests recorded which blocks they ran (test/support/doc-blocks.mts). Prints every shell block and
// program with the test that ran it or the reason it is not run, and exits 1 when one has neither.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { allDocBlocks, coverage, coverageReport, uncovered, type BlockUse } from "../test/support/doc-blocks.mts";

const [dir = ""] = process.argv.slice(2);
const uses: BlockUse[] = readdirSync(dir)
  .filter((name) => name.endsWith(".jsonl"))
  .flatMap((name) => readFileSync(path.join(dir, name), "utf8").split("\n"))
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as BlockUse);
const entries = coverage(allDocBlocks(), uses);
for (const line of coverageReport(entries)) console.log(line);
if (entries.some(uncovered)) {
  console.log(
    "A block of the documentation is neither run by a test nor marked: run it from a test (readmeBlocks " +
      "in test/e2e/support/readme.ts records it), or put `_Not run by the tests: <why>._` on the line above it.",
  );
  process.exit(1);
}
