// Every command and program the documentation gives a reader, and what the tests do with each
// (issue 35: the user's path is the test path). A fenced block is one of:
// - shell: sh, bash, console, powershell, … — commands a reader types;
// - program: ts, js, go, yaml, python — code a reader pastes;
// - text: anything else (JSON answers, output, diagrams), which nobody runs.
// A shell block or a program must be run by a test (the test says so with `recordRun` as it reads
// the block), or carry a visible marker: the line right above its fence, in italics,
// `_Not run by the tests: <why>._` (it needs the internet, a real account, another OS, …).
// `npm test` collects what the tests recorded (scripts/doc-coverage.mts), prints the coverage and
// fails on a block with neither.
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { docPages, repoRoot } from "./doc-links.mts";

export type BlockKind = "shell" | "program" | "text";

export interface DocBlock {
  /** Repository-relative page. */
  readonly file: string;
  /** Line of the opening fence (1-based). */
  readonly line: number;
  readonly language: string;
  readonly kind: BlockKind;
  /** The nearest heading above it, without its #s. */
  readonly heading: string;
  /** The block's text, its list indentation removed. */
  readonly text: string;
  /** The reason of its marker, when it has one. */
  readonly notRun: string | undefined;
}

const shellLanguages = new Set(["sh", "bash", "shell", "console", "zsh", "powershell", "pwsh", "ps1", "cmd", "bat"]);
const programLanguages = new Set(["ts", "typescript", "js", "javascript", "go", "python", "py"]);

/**
 * A YAML block is a program when it is a Pulumi YAML program (top-level `resources:`, or `name:` and
 * `runtime:`); a workflow's or a plugin's settings (PulumiPlugin.yaml) are text a reader copies.
 */
export function kindOf(language: string, text = ""): BlockKind {
  const lower = language.toLowerCase();
  if (shellLanguages.has(lower)) return "shell";
  if (lower === "yaml" || lower === "yml")
    return /^resources:/m.test(text) || (/^name:/m.test(text) && /^runtime:/m.test(text)) ? "program" : "text";
  return programLanguages.has(lower) ? "program" : "text";
}

/** The marker's form: the whole line, in italics (`_…_`, as prettier writes it, or `*…*`). */
export const markerPattern = /^\s*([*_])Not run by the tests: (.+?)\.?\1\s*$/;

/** The fenced blocks of one Markdown text, in order. */
export function blocksOf(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const title = /^#{1,6} (.+)$/.exec(line);
    if (title) heading = title[1]!.trim();
    const open = /^( *)(`{3,}|~{3,})\s*([\w+-]*)\s*$/.exec(line);
    if (!open) continue;
    const [, indent = "", fence = "", language = ""] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const closing = /^ *(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (closing && closing[1]![0] === fence[0] && closing[1]!.length >= fence.length) break;
      body.push(lines[j]!.replace(new RegExp(`^ {0,${indent.length}}`), ""));
    }
    let above = i - 1;
    while (above >= 0 && lines[above]!.trim() === "") above--;
    const marker = above >= 0 ? markerPattern.exec(lines[above]!) : null;
    const text = body.length > 0 ? `${body.join("\n")}\n` : "";
    blocks.push({
      file,
      line: i + 1,
      language,
      kind: kindOf(language, text),
      heading,
      text,
      notRun: marker?.[2],
    });
    i = j;
  }
  return blocks;
}

/**
 * Pages the rule leaves out, and why: their text is not a page of ours alone, so a marker cannot be
 * written into it.
 */
export const pagesLeftOut: Readonly<Record<string, string>> = {
  "bench/README.md": "the benchmarks' figures and the commands that measure them (minutes each)",
  "docs/examples/":
    "the schema's examples, embedded in the Registry's pages and the generated SDKs: their programs are type-checked and compiled by `npm run check:sdks`; their `pulumi import` lines need objects with those ids",
};

/** The pages whose blocks are held to the rule: README.md, docs/, examples/*\/README.md, emulator/README.md. */
export function coveredPages(root = repoRoot): string[] {
  return docPages(root).filter((page) => !Object.keys(pagesLeftOut).some((out) => page.startsWith(out)));
}

export function allDocBlocks(root = repoRoot): DocBlock[] {
  return coveredPages(root).flatMap((page) => blocksOf(page, readFileSync(path.join(root, page), "utf8")));
}

/** The blocks of the section under `heading` (at `level`) of `file`, as a reader finds them there. */
export function sectionBlocks(file: string, heading: string, level = 3, root = repoRoot): DocBlock[] {
  const markdown = readFileSync(path.join(root, file), "utf8");
  const lines = markdown.split("\n");
  const title = `${"#".repeat(level)} ${heading}`;
  // Headings outside fenced blocks only: a shell comment (`# write main.go`) is no heading.
  let fence: string | undefined;
  let start = -1;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marks = /^ *(`{3,}|~{3,})/.exec(line)?.[1];
    if (marks !== undefined) {
      if (fence === undefined) fence = marks;
      else if (marks[0] === fence[0] && marks.length >= fence.length && line.trim() === marks) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    if (start < 0 && line === title) start = i;
    else if (start >= 0 && /^#{1,6} /.test(line) && line.split(" ")[0]!.length <= level) {
      end = i;
      break;
    }
  }
  if (start < 0) throw new Error(`${file} has no section "${title}"`);
  return blocksOf(file, markdown).filter((block) => block.line > start + 1 && block.line <= end);
}

/** The bucket the examples of docs/rotation.md and docs/objects.md write to, as docs/resources.md declares it. */
const bucketProgram = `import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";
const bucket = new cloudplatform.Bucket("media", { forceDestroy: true });
`;

/**
 * What a page's TypeScript example takes from a program its text names (the page says which): put
 * before the page's blocks, it makes them the program a reader has once they followed that page.
 */
export const programContinues: Readonly<Record<string, string>> = {
  "docs/rotation.md": bucketProgram, // "continues the program of Resources"
  "docs/objects.md": bucketProgram, // "the outputs of a BucketCredential of the bucket"
};

/**
 * What a test did with a block: ran it, type-checked it against the SDK, or skipped it because this
 * machine lacks a tool the test needs (`needs`, test/support/tools.mts: never under CI, where a
 * missing tool fails the run instead).
 */
export interface BlockUse {
  readonly file: string;
  readonly text: string;
  readonly how: "ran" | "type-checked" | "skipped";
  /** The test file, repository-relative. */
  readonly by: string;
  /** Why a skipped test did not run it ("needs espeak-ng; install: …"). */
  readonly reason?: string;
}

/** Where `npm test` collects the uses (set by scripts/test.sh); nothing is recorded without it. */
export const coverageVariable = "CLOUDPLATFORM_DOC_COVERAGE";

/**
 * Records that the test `by` ran (or type-checked, or skipped for `reason`) these blocks, for the
 * coverage report. A test that runs blocks and may be skipped for a missing tool records them as
 * skipped then: on a machine without the tool, `npm test` reports them not run here, not unrun.
 */
export function recordUse(blocks: readonly DocBlock[], how: BlockUse["how"], by: string, reason?: string): void {
  const dir = process.env[coverageVariable];
  if (!dir) return;
  const relative = path.isAbsolute(by) ? path.relative(repoRoot, by) : by;
  const use = (b: DocBlock): BlockUse => ({
    file: b.file,
    text: b.text,
    how,
    by: relative,
    ...(reason ? { reason } : {}),
  });
  const lines = blocks.map((b) => JSON.stringify(use(b)));
  appendFileSync(path.join(dir, `uses-${process.pid}.jsonl`), `${lines.join("\n")}\n`);
}

export interface BlockCoverage {
  readonly block: DocBlock;
  readonly ran: readonly string[];
  readonly typeChecked: readonly string[];
  /** The tests that would have run it, skipped here for a missing tool: "<test>: <reason>". */
  readonly skipped: readonly string[];
}

/** Each shell block and program with the tests that used it. */
export function coverage(blocks: readonly DocBlock[], uses: readonly BlockUse[]): BlockCoverage[] {
  const key = (file: string, text: string) => `${file}\n${text}`;
  const by = new Map<string, { ran: Set<string>; typeChecked: Set<string>; skipped: Set<string> }>();
  for (const use of uses) {
    const entry = by.get(key(use.file, use.text)) ?? { ran: new Set(), typeChecked: new Set(), skipped: new Set() };
    if (use.how === "skipped") entry.skipped.add(`${use.by}: ${use.reason ?? "skipped"}`);
    else (use.how === "ran" ? entry.ran : entry.typeChecked).add(use.by);
    by.set(key(use.file, use.text), entry);
  }
  return blocks
    .filter((block) => block.kind !== "text")
    .map((block) => {
      const entry = by.get(key(block.file, block.text));
      const sorted = (set: Set<string> | undefined) => [...(set ?? [])].sort();
      return {
        block,
        ran: sorted(entry?.ran),
        typeChecked: sorted(entry?.typeChecked),
        skipped: sorted(entry?.skipped),
      };
    });
}

/** Not run on this machine only because a test that runs it was skipped for a missing tool. */
const skippedHere = (entry: BlockCoverage): boolean =>
  entry.ran.length === 0 && entry.block.notRun === undefined && entry.skipped.length > 0;

/** A block the rule refuses: neither run by a test nor marked (nor skipped here for a missing tool). */
export const uncovered = (entry: BlockCoverage): boolean =>
  entry.ran.length === 0 && entry.block.notRun === undefined && entry.skipped.length === 0;

/** The report's lines: one per block, then the totals; the refused ones first, so a reader sees them. */
export function coverageReport(entries: readonly BlockCoverage[]): string[] {
  const where = (e: BlockCoverage) => `${e.block.file}:${e.block.line} (${e.block.language})`;
  const lines: string[] = [];
  const refused = entries.filter(uncovered);
  for (const e of refused) lines.push(`  ✗ ${where(e)} "${e.block.heading}": neither run by a test nor marked`);
  for (const e of entries.filter((x) => x.ran.length > 0)) lines.push(`  ✓ ${where(e)} ran by ${e.ran.join(", ")}`);
  for (const e of entries.filter((x) => x.ran.length === 0 && x.block.notRun !== undefined)) {
    const checked = e.typeChecked.length > 0 ? `; type-checked by ${e.typeChecked.join(", ")}` : "";
    lines.push(`  - ${where(e)} not run: ${e.block.notRun}${checked}`);
  }
  const skipped = entries.filter(skippedHere);
  for (const e of skipped) lines.push(`  - ${where(e)} not run on this machine: ${e.skipped.join("; ")}`);
  for (const [page, why] of Object.entries(pagesLeftOut)) lines.push(`  - ${page}* left out: ${why}`);
  const ran = entries.filter((x) => x.ran.length > 0).length;
  const skippedText = skipped.length > 0 ? `, skipped for a missing tool ${skipped.length}` : "";
  lines.push(
    `Documentation blocks (shell and programs): ${entries.length}; run by a test ${ran}, ` +
      `marked not run ${entries.length - ran - refused.length - skipped.length}${skippedText}, neither ${refused.length}`,
  );
  return lines;
}
