// The documentation harness's own rules (test/support/doc-blocks.mts): what counts as a command or a
// program, how a marker is read, and that coverage refuses a block neither run nor marked.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
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
