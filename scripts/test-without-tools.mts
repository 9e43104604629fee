// Plays a fresh machine for the tests that use a Debian tool: hides every program of those tools
// from PATH (a shadow folder of links to everything else), runs `npm test` on the tests that declare
// such a tool with `needs` (their tag; the files chosen are those whose imports reach the tool gate
// or name a tool), outside CI, and fails unless that run passes with the tools' tests skipped for
// their reason and no other test run. Hooks of a file run only when it has such a test. CI runs it after the full run, because CI installs every
// tool first and so can never see a test that fails without one (test/support/tools.mts).
// With --all it runs the whole `npm test` so, every test and the typecheck, lint and package checks:
// the README's command as a fresh machine runs it, to time it (issue 36's goal is measured there).
// Usage: node scripts/test-without-tools.mts [--list | --all]   (--list: print the chosen files and stop)
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { debianToolTag, debianTools, TOOLS } from "../test/support/tools.mts";
import { repoRoot } from "./lib/paths.mts";

const hiddenPrograms = new Set(debianTools.flatMap((tool) => TOOLS[tool].programs as readonly string[]));
const gate = path.join(repoRoot, "test", "support", "tools.mts");

/** PATH with each folder that holds a hidden program replaced by a shadow folder without it. */
function pathWithoutTools(scratch: string): string {
  const dirs = (process.env["PATH"] ?? "").split(path.delimiter).filter((dir) => dir !== "");
  return dirs
    .map((dir, index) => {
      let entries: string[];
      try {
        entries = readdirSync(dir);
      } catch {
        return dir;
      }
      if (!entries.some((name) => hiddenPrograms.has(name))) return dir;
      const shadow = path.join(scratch, `path-${index}`);
      mkdirSync(shadow);
      for (const name of entries)
        if (!hiddenPrograms.has(name)) symlinkSync(path.join(dir, name), path.join(shadow, name));
      return shadow;
    })
    .join(path.delimiter);
}

/** The test files of vitest.config.mts's three projects. */
function testFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string, pattern: RegExp): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(file, pattern);
      } else if (pattern.test(entry.name)) found.push(file);
    }
  };
  walk(path.join(repoRoot, "test", "unit"), /\.test\.ts$/);
  walk(path.join(repoRoot, "test", "soak"), /\.test\.mts$/);
  walk(path.join(repoRoot, "emulator", "test"), /\.test\.ts$/);
  walk(path.join(repoRoot, "test", "e2e"), /\.test\.ts$/);
  return found.sort();
}

const importPattern = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
const quotedProgram = new RegExp(
  `["'\`](?:${[...hiddenPrograms].map((p) => p.replace(/[.+]/g, "\\$&")).join("|")})["'\`]`,
);

/** A relative import's file: `.js` written for a `.ts` source, as TypeScript's nodenext resolution allows. */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, ".ts"), base.replace(/\.mjs$/, ".mts"), `${base}.ts`];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Test code, as opposed to the emulator and provider it drives (which run tools of their own, and cope without). */
const testCode = ["test", path.join("emulator", "test")].map((dir) => path.join(repoRoot, dir) + path.sep);

/**
 * Whether the test file or test code it imports (relatively) declares a tool with `needs` or names
 * a hidden program (the gate itself, which names them all, aside).
 */
function reachesATool(file: string, seen = new Set<string>()): boolean {
  if (file === gate || seen.has(file) || !testCode.some((dir) => file.startsWith(dir))) return false;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  if (quotedProgram.test(text) || /\bneeds\(/.test(text)) return true;
  for (const match of text.matchAll(importPattern)) {
    const target = resolveImport(file, match[1]!);
    if (target && reachesATool(target, seen)) return true;
  }
  return false;
}

function run(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer, to: NodeJS.WriteStream): void => {
      output += chunk.toString("utf8");
      to.write(chunk);
    };
    child.stdout.on("data", (chunk: Buffer) => keep(chunk, process.stdout));
    child.stderr.on("data", (chunk: Buffer) => keep(chunk, process.stderr));
    child.on("error", reject);
    child.on("close", (code) => resolve({ status: code ?? 1, output }));
  });
}

export interface Verdict {
  readonly ok: boolean;
  readonly problems: readonly string[];
}

/** Judges `npm test`'s output: exit 0, 0 failed, something skipped, and every skip for a hidden tool. */
export function judge(status: number, output: string): Verdict {
  const problems: string[] = [];
  // Colours and carriage returns aside, the closing line is the last of its kind.
  // eslint-disable-next-line no-control-regex -- the escape character starts every colour code
  const lines = output.replace(/\x1b\[[0-9;]*m/g, "").split(/\r?\n/);
  const closing = lines.filter((line) => /^\d+ passed, \d+ failed(, \d+ skipped)?$/.test(line)).at(-1);
  if (status !== 0) problems.push(`npm test exited with status ${status}`);
  if (!closing) problems.push("no closing line `N passed, N failed, M skipped`");
  const [, , failed = "1", skipped = "0"] =
    /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/.exec(closing ?? "") ?? [];
  if (closing && Number(failed) > 0) problems.push(`${failed} failed`);
  if (closing && Number(skipped) === 0) problems.push("nothing was skipped, although the tools were hidden");
  const hidden = new Set<string>(debianTools);
  for (const line of lines) {
    const reason = /^ {2}needs ([^;]+);/.exec(line);
    if (reason) {
      const named = reason[1]!.split(", ");
      const other = named.filter((tool) => !hidden.has(tool));
      if (other.length > 0) problems.push(`tests skipped for a tool that was not hidden: ${other.join(", ")}`);
    }
    if (/^ {2}\d+ with no reason recorded/.test(line)) problems.push(`tests skipped without a reason: ${line.trim()}`);
  }
  return { ok: problems.length === 0, problems };
}

async function main(): Promise<void> {
  const files = testFiles().filter((file) => reachesATool(file));
  const relative = files.map((file) => path.relative(repoRoot, file));
  if (process.argv.includes("--list")) {
    for (const file of relative) console.log(file);
    return;
  }
  const scratch = mkdtempSync(path.join(tmpdir(), "cloudplatform-no-tools-"));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: pathWithoutTools(scratch) };
    // Outside CI a missing tool skips its tests; CI's own run (under CI=true) makes it a failure instead.
    delete env["CI"];
    delete env["CLOUDPLATFORM_TEST_TOOLS"];
    const all = process.argv.includes("--all");
    // The whole suite is test.sh with no arguments, as `npm test` runs it.
    const args = all ? [] : [`--tags-filter=${debianToolTag}`, ...relative];
    if (all) console.error(`==> npm test without ${debianTools.join(", ")} on PATH: the whole suite`);
    else {
      console.error(`==> npm test without ${debianTools.join(", ")} on PATH: ${relative.length} files`);
      for (const file of relative) console.error(`    ${file}`);
      // Exactly the tests that declare a Debian tool run (their tag, given by `needs`); the summary
      // fails the run if any other test ran, and counts the others as left out.
      env["CLOUDPLATFORM_SUMMARY_ONLY_TAG"] = debianToolTag;
    }
    const started = Date.now();
    const { status, output } = await run("bash", [path.join(repoRoot, "scripts", "test.sh"), ...args], env);
    if (all) console.error(`==> the whole npm test without the tools: ${Math.round((Date.now() - started) / 1000)} s`);
    const verdict = judge(status, output);
    if (!verdict.ok) {
      console.error("error: without the Debian tools, `npm test` would not pass on a fresh machine:");
      for (const problem of verdict.problems) console.error(`  - ${problem}`);
      console.error("Declare each tool a test uses with needs(...) from test/support/tools.mts (see its header).");
      process.exit(1);
    }
    console.error("==> without the Debian tools: passed, with their tests skipped for their reason");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await main();
