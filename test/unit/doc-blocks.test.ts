// The documentation harness's own rules (test/support/doc-blocks.mts): what counts as a command or a
// program, how a marker is read, and that coverage refuses a block neither run nor marked.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/doc-links.mts";
import { debianTools } from "../support/tools.mts";
import { allDocBlocks, blocksOf, coverage, coverageReport, sectionBlocks, uncovered } from "../support/doc-blocks.mts";

const page = [
  "# Title",
  "",
  "```sh",
  "npm install",
  "```",
  "",
  "## Later",
  "",
  "*Not run by the tests: it needs a real account.*",
  "",
  "```ts",
  "const x = 1;",
  "```",
  "",
  "1. a step",
  "   ```json",
  "   {}",
  "   ```",
  "",
].join("\n");

describe("the documentation's blocks", () => {
  it("are read with their page, line, kind, heading and marker", () => {
    expect(blocksOf("p.md", page)).toEqual([
      {
        file: "p.md",
        line: 3,
        language: "sh",
        kind: "shell",
        heading: "Title",
        text: "npm install\n",
        notRun: undefined,
      },
      {
        file: "p.md",
        line: 11,
        language: "ts",
        kind: "program",
        heading: "Later",
        text: "const x = 1;\n",
        notRun: "it needs a real account",
      },
      { file: "p.md", line: 16, language: "json", kind: "text", heading: "Later", text: "{}\n", notRun: undefined },
    ]);
  });

  it("count as covered when run by a test or marked, and only then", () => {
    const blocks = blocksOf("p.md", page);
    const none = coverage(blocks, []);
    expect(none.map((e) => e.block.line)).toEqual([3, 11]); // text blocks are not held to the rule
    expect(none.filter(uncovered).map((e) => e.block.line)).toEqual([3]);
    const ran = coverage(blocks, [{ file: "p.md", text: "npm install\n", how: "ran", by: "test/e2e/x.test.ts" }]);
    expect(ran.filter(uncovered)).toEqual([]);
    // A type-check is not a run: an unmarked program stays refused.
    const checked = coverage(blocks, [{ file: "p.md", text: "npm install\n", how: "type-checked", by: "t" }]);
    expect(checked.filter(uncovered).map((e) => e.block.line)).toEqual([3]);
    expect(coverageReport(none).at(-1)).toBe(
      "Documentation blocks (shell and programs): 2; run by a test 0, marked not run 1, neither 1",
    );
  });

  it("not run on this machine only because their test lacked a tool: reported so, not refused", () => {
    const blocks = blocksOf("p.md", page);
    const reason = "needs espeak-ng; install: sudo apt-get install -y espeak-ng";
    const skipped = coverage(blocks, [
      { file: "p.md", text: "npm install\n", how: "skipped", by: "test/e2e/x.test.ts", reason },
    ]);
    expect(skipped.filter(uncovered)).toEqual([]);
    const report = coverageReport(skipped);
    expect(report).toContain(`  - p.md:3 (sh) not run on this machine: test/e2e/x.test.ts: ${reason}`);
    expect(report.at(-1)).toBe(
      "Documentation blocks (shell and programs): 2; run by a test 0, marked not run 1, skipped for a missing tool 1, neither 0",
    );
  });

  it("are recorded as skipped by every test file that runs them and may be skipped for a Debian tool", () => {
    // Such a file records nothing when skipped, and `npm test` on a machine without the tool then
    // refuses its blocks as run by no test (found on a fresh machine at 86d82a7: doc-programs).
    const dir = path.join(repoRoot, "test", "e2e");
    const offenders = readdirSync(dir)
      .filter((name) => name.endsWith(".test.ts"))
      .filter((name) => {
        const text = readFileSync(path.join(dir, name), "utf8");
        const debianNeeds = [...text.matchAll(/needs\(([^)]*)\)/g)].some((m) =>
          debianTools.some((tool) => m[1]!.includes(`"${tool}"`)),
        );
        return debianNeeds && /recordUse\([^)]*"ran"/.test(text) && !/"skipped"/.test(text);
      });
    expect(offenders).toEqual([]);
  });

  it("of a section are those under its heading only", () => {
    const blocks = sectionBlocks("docs/import.md", "TypeScript on the dynamic SDK");
    expect(blocks.map((b) => b.language)).toEqual(["sh", "ts"]);
    // A shell comment in a block (`# write main.go (below), then:`) does not end the section.
    expect(sectionBlocks("docs/languages.md", "Go").map((b) => b.language)).toEqual(["sh", "go"]);
  });

  it("carry a reason with every marker, and no marker stands away from a block", () => {
    const blocks = allDocBlocks();
    expect(blocks.length).toBeGreaterThan(50);
    for (const block of blocks.filter((b) => b.notRun !== undefined)) expect(block.notRun!.length).toBeGreaterThan(8);
    // Markers in the pages: as many as blocks that carry one.
    const pages = [...new Set(blocks.map((b) => b.file))];
    const written = pages
      .map(
        (p) =>
          readFileSync(p, "utf8")
            .split("\n")
            .filter((l: string) => /^\s*[*_]Not run by the tests:/.test(l)).length,
      )
      .reduce((a, b) => a + b, 0);
    expect(written).toBe(blocks.filter((b) => b.notRun !== undefined).length);
  });
});
