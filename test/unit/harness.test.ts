// The test harness has one home (test/support/, docs/architecture.md "The test harness"), and this
// keeps it so: the soak is imported from test/soak/, never from where it lived before (scripts/soak);
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
  return readdirSync(path.join(repoRoot, "test"), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.m?ts$/.test(f) && !f.split(path.sep).includes("node_modules"))
    .map((f) => path.join("test", f).split(path.sep).join("/"))
    .sort();
}

describe("the test harness", () => {
  it("has no import of scripts/soak, no second client of /_emulator/, no copy of the fault settings", () => {
    const files = testSources();
    expect(files).toContain(client);
    expect(files).toContain("test/soak/soak.mts");
    const findings = files.flatMap((file) => harnessFindings(file, readFileSync(path.join(repoRoot, file), "utf8")));
    expect(findings.map((f) => `${f.file}:${f.line}: ${f.why}`)).toEqual([]);
  });

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
  });
});
