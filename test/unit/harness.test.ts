// The test harness has one home (test/support/, docs/architecture.md "The test harness"), and this
// keeps it so: the suites (test/unit, test/e2e, test/soak) share it and never import each other, the
// harness imports no suite, scripts/lib (below it) imports neither; nothing names scripts/soak;
// the emulator's inspection endpoints are read through the one client, test/support/platform.mts;
// and the fault settings are the emulator's own type, which no test file declares again.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "..", "..");
/** The one client of `/_emulator/...`. */
const client = "test/support/platform.mts";
/** A page for people, not an endpoint a test reads data from (emulator-package.test.ts loads it). */
const pages = new Set(["/_emulator/console"]);
/** Fields of the emulator's FaultSettings: a declaration naming two of them is a copy of the type. */
const faultFields = new Set(["latencyMs", "statusRates", "dropRate", "loseRate", "garbleRate", "retryAfterSeconds"]);

/** The harness's folders: what each file belongs to. */
type Home = "support" | "e2e" | "soak" | "unit" | "scripts-lib" | "other";

function homeOf(file: string): Home {
  if (file.startsWith("test/support/")) return "support";
  if (file.startsWith("test/e2e/")) return "e2e";
  if (file.startsWith("test/soak/")) return "soak";
  if (file.startsWith("test/unit/")) return "unit";
  if (file.startsWith("scripts/lib/")) return "scripts-lib";
  return "other";
}

/**
 * What may import what: scripts/lib (the toolchain and the runner, shared with the demo and the
 * benchmarks) at the bottom, test/support (the harness) above it, and the suites (unit, e2e, soak)
 * on top, each using the harness and never another suite. Why an import breaks it, or undefined.
 */
function crossing(from: Home, to: Home): string | undefined {
  const suites: Home[] = ["e2e", "soak", "unit"];
  if (from === "support" && suites.includes(to))
    return `the harness (test/support) imports a suite (test/${to}); move what both need into test/support`;
  if (suites.includes(from) && suites.includes(to) && from !== to)
    return `test/${from} imports test/${to}: suites share test/support, not each other`;
  if (from === "scripts-lib" && to !== "scripts-lib" && to !== "other")
    return `scripts/lib imports test/${to}: it is below the harness`;
  return undefined;
}

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly why: string;
}

/** What `file` (repository-relative) does against the harness's rules. */
export function harnessFindings(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const findings: Finding[] = [];
  const at = (node: ts.Node, why: string) =>
    findings.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, why });
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      /(^|\/)scripts\/soak\//.test(node.moduleSpecifier.text)
    ) {
      at(node, `imports ${node.moduleSpecifier.text}: the soak lives in test/soak/`);
    }
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text.startsWith(".")
    ) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), node.moduleSpecifier.text));
      const wrong = crossing(homeOf(file), homeOf(target));
      if (wrong !== undefined) at(node, `imports ${node.moduleSpecifier.text}: ${wrong}`);
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const literal = ts.isTemplateExpression(node)
        ? [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join("")
        : node.text;
      const endpoint = /\/_emulator\/[a-z]+/.exec(literal)?.[0];
      if (endpoint !== undefined && file !== client && !pages.has(endpoint)) {
        at(node, `names ${endpoint}: read the emulator through ${client}`);
      }
    }
    if (ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) {
      const fields = node.members.flatMap((m) =>
        ts.isPropertySignature(m) && ts.isIdentifier(m.name) && faultFields.has(m.name.text) ? [m.name.text] : [],
      );
      if (fields.length >= 2) {
        at(node, `declares fault settings (${fields.join(", ")}): use FaultSettings from the emulator (${client})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

function testSources(): string[] {
  return ["test", path.join("scripts", "lib")]
    .flatMap((dir) =>
      readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: "utf8" })
        .filter((f) => /\.m?ts$/.test(f) && !f.split(path.sep).includes("node_modules"))
        .map((f) => path.join(dir, f).split(path.sep).join("/")),
    )
    .sort();
}

describe("the test harness", () => {
  // It parses every test source with TypeScript: 4.7 s on a quiet machine, over the 5-s default
  // beside two other files on a loaded one (6.3 s at load 15).
  it(
    "has no import of scripts/soak or across suites, no second client of /_emulator/, no copy of the fault settings",
    { timeout: 60_000 },
    () => {
      const files = testSources();
      expect(files).toContain(client);
      expect(files).toContain("test/soak/soak.mts");
      const findings = files.flatMap((file) => harnessFindings(file, readFileSync(path.join(repoRoot, file), "utf8")));
      expect(findings.map((f) => `${f.file}:${f.line}: ${f.why}`)).toEqual([]);
    },
  );

  it("finds each of the three", () => {
    // Endpoints spelled in pieces, so that this file names none itself.
    const endpoint = (name: string) => ["", "_emulator", name].join("/");
    const text = [
      `import { Platform } from "../../scripts/soak/platform.mts";`,
      `const state = await fetch(\`\${base}${endpoint("state")}\`);`,
      "interface Faults { readonly loseRate?: number; readonly garbleRate?: number }",
      `const page = await fetch(\`\${base}${endpoint("console")}\`);`,
      "interface Other { readonly loseRate?: number }",
    ].join("\n");
    expect(harnessFindings("test/e2e/x.test.ts", text).map((f) => `${f.line}: ${f.why.split(":")[0]}`)).toEqual([
      "1: imports ../../scripts/soak/platform.mts",
      `2: names ${endpoint("state")}`,
      "3: declares fault settings (loseRate, garbleRate)",
    ]);
    expect(harnessFindings(client, `const s = \`\${base}${endpoint("stats")}\`;`)).toEqual([]);
    // Across the harness's folders: a suite importing another, the harness importing a suite.
    const crossings = [
      ["test/e2e/x.test.ts", `import { SoakStack } from "../soak/stacks.mts";`],
      ["test/soak/soak.mts", `import { killedUp } from "../e2e/support/kill.js";`],
      ["test/support/x.mts", `import { seeded } from "../soak/random.mts";`],
      ["scripts/lib/x.mts", `import { Platform } from "../../test/support/platform.mts";`],
    ] as const;
    for (const [file, line] of crossings) expect(harnessFindings(file, line), file).toHaveLength(1);
    expect(harnessFindings("test/e2e/x.test.ts", `import { SoakStack } from "../support/stacks.mts";`)).toEqual([]);
  });
});
