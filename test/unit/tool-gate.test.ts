// The tests reach the programs outside Node.js and the Pulumi CLI (test/support/tools.mts, TOOLS) only
// through the gate: `runProgram`/`programFailure`, which check that the running test declared the
// tool with `needs`. A raw child_process call, or a shell script that names such a program, would
// work only where the tool is installed and break `npm test` on a fresh machine without CI seeing it
// (15188e5: `run("bash", ["-c", "command -v go"])` and speech made in a hook). This reads every test
// source and fails on each such call, naming the file and line.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { TOOLS, toolNames } from "../support/tools.mts";

const repoRoot = path.resolve(__dirname, "..", "..");

/** Where test code lives (vitest.config.mts's projects and what they import). */
const testRoots = ["test", "emulator/test"];
/** The gate itself: the one place that may start these programs. */
const gateFile = "test/support/tools.mts";

const childProcessFunctions = new Set(["execFile", "execFileSync", "spawn", "spawnSync", "exec", "execSync", "fork"]);
/** Functions whose first argument is a whole shell command line. */
const shellLineFunctions = new Set(["exec", "execSync"]);
const gateFunctions = new Set(["runProgram", "programFailure"]);
const shells = new Set(["bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/env"]);

const gatedPrograms: readonly string[] = toolNames.flatMap((tool) => TOOLS[tool].programs as readonly string[]);

export interface Violation {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  readonly why: string;
}

/** The literal text of a string or template argument (a template's literal parts, joined by spaces). */
function literalText(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(" ");
  return undefined;
}

/** The gated programs a shell command line starts (as a command word, not as part of another word). */
export function programsInShellLine(line: string): string[] {
  return gatedPrograms.filter((program) =>
    new RegExp(`(^|[\\s;&|(\`$])${program.replace(/[.+]/g, "\\$&")}(?=$|[\\s;&|)\`])`).test(line),
  );
}

/**
 * The names under which this file can call child_process functions (imports, aliases, promisify()),
 * each with the function it stands for, and the names of namespace imports of the module.
 */
function spawnNames(source: ts.SourceFile): { functions: Map<string, string>; namespaces: Set<string> } {
  const functions = new Map<string, string>();
  const namespaces = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      if (!/^(node:)?child_process$/.test(statement.moduleSpecifier.text)) continue;
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          const imported = (element.propertyName ?? element.name).text;
          if (childProcessFunctions.has(imported)) functions.set(element.name.text, imported);
        }
      }
      if (statement.importClause?.name) namespaces.add(statement.importClause.name.text);
    }
  }
  // `const run = promisify(execFile)` makes `run` one of them too.
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      ts.isCallExpression(node.initializer) &&
      /(^|\.)promisify$/.test(node.initializer.expression.getText(source)) &&
      node.initializer.arguments[0] &&
      functions.has(node.initializer.arguments[0].getText(source))
    ) {
      functions.set(node.name.text, functions.get(node.initializer.arguments[0].getText(source))!);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { functions, namespaces };
}

/** What a call is: a child_process function (by its own name), the gate, or neither. */
function callKind(
  call: ts.CallExpression,
  { functions, namespaces }: ReturnType<typeof spawnNames>,
): { spawn?: string; gate?: true } {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) {
    const spawn = functions.get(callee.text);
    if (spawn) return { spawn };
    return gateFunctions.has(callee.text) ? { gate: true } : {};
  }
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
    if (namespaces.has(callee.expression.text) && childProcessFunctions.has(callee.name.text)) {
      return { spawn: callee.name.text };
    }
  }
  return {};
}

/** Every call in `text` that starts a gated program outside the gate, or hides one in a shell line. */
export function violations(file: string, text: string): Violation[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const names = spawnNames(source);
  const found: Violation[] = [];
  const report = (node: ts.Node, why: string): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({ file, line, text: node.getText(source).split("\n")[0]!.slice(0, 120), why });
  };

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const { spawn, gate } = callKind(node, names);
      const [first, second] = node.arguments;
      const program = literalText(first);
      if (spawn && program !== undefined) {
        const inLine = shellLineFunctions.has(spawn) ? programsInShellLine(program) : [];
        if (inLine.length > 0) report(node, `a shell line starts ${inLine.join(", ")}`);
        else if (gatedPrograms.includes(path.basename(program))) {
          report(node, `starts ${path.basename(program)} without the gate`);
        }
      }
      if (
        (spawn || gate) &&
        program !== undefined &&
        shells.has(program) &&
        second &&
        ts.isArrayLiteralExpression(second)
      ) {
        const args = second.elements;
        const dashC = args.findIndex((a) => literalText(a) === "-c");
        const script = dashC >= 0 ? literalText(args[dashC + 1]) : undefined;
        const hidden = script === undefined ? [] : programsInShellLine(script);
        if (hidden.length > 0) report(node, `a shell script starts ${hidden.join(", ")}, out of the gate's sight`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function testSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== "fixtures") walk(relative);
      } else if (/\.m?ts$/.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(relative);
    }
  };
  for (const root of testRoots) walk(root);
  // Fixtures may hold code too (emulator/test/fixtures): read them as well.
  const fixtureDirs = ["emulator/test/fixtures", "test/unit/fixtures"];
  for (const dir of fixtureDirs) {
    for (const entry of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
      if (entry.isFile() && /\.m?ts$/.test(entry.name)) files.push(path.join(dir, entry.name));
    }
  }
  return files.filter((file) => file !== gateFile);
}

describe("the tool gate", () => {
  it("no test source starts a tool outside runProgram/programFailure, or inside a shell script", () => {
    const files = testSources();
    expect(files.length).toBeGreaterThan(50);
    const all = files.flatMap((file) => violations(file, readFileSync(path.join(repoRoot, file), "utf8")));
    expect(all.map((v) => `${v.file}:${v.line}: ${v.why}: ${v.text}`)).toEqual([]);
  });

  it("finds each way a tool can slip past it (so the check above can fail)", () => {
    const code = [
      'import { execFile, spawn as start, execSync } from "node:child_process";',
      'import * as cp from "node:child_process";',
      'import { promisify } from "node:util";',
      "const run = promisify(execFile);",
      'await run("bash", ["-c", "command -v go"]);', // 15188e5, test/e2e/go.test.ts
      'execFile("espeak-ng", ["-w", file, words]);',
      'start("/usr/bin/ffprobe", ["-version"]);',
      "execSync(`sox -n ${out} trim 0 1`);",
      'cp.spawnSync("rclone", ["version"]);',
      'await runProgram("sh", ["-c", "aws s3 ls && echo done"]);',
      // Not violations: the gate with a tool, other programs, words that contain a tool's name.
      'await runProgram("sox", ["--version"]);',
      'await run("npm", ["run", "plugin:pack"]);',
      'await run("bash", ["-c", "cd go-e2e && ls"]);',
      'execFile("git", ["status"]);',
    ].join("\n");
    expect(violations("example.ts", code).map((v) => [v.line, v.why])).toEqual([
      [5, "a shell script starts go, out of the gate's sight"],
      [6, "starts espeak-ng without the gate"],
      [7, "starts ffprobe without the gate"],
      [8, "a shell line starts sox"],
      [9, "starts rclone without the gate"],
      [10, "a shell script starts aws, out of the gate's sight"],
    ]);
  });
});
