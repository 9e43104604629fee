// The SDK's hand-written classes against the field tables (provider/tables.ts): each Args property
// is an input of the table, with the table's description as its TSDoc summary and the table's
// default as its `@default`; each declared output is a field of the table, and none is missing.
// TypeScript cannot derive TSDoc, so this test is what keeps the two equal.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { programInputs, type Field } from "../../provider/tables.js";
import { cores } from "../../provider/plugin/cores.js";

const sdkDir = join(__dirname, "../../sdk");

interface Documented {
  readonly summary: string | undefined;
  readonly defaultTag: string | undefined;
}

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

function docOf(node: ts.Node): Documented {
  const doc = ts.getJSDocCommentsAndTags(node).find((d): d is ts.JSDoc => ts.isJSDoc(d));
  const summary = ts.getTextOfJSDocComment(doc?.comment);
  const tag = doc?.tags?.find((t) => t.tagName.text === "default");
  return {
    summary: summary === undefined ? undefined : squash(summary),
    defaultTag: tag === undefined ? undefined : squash(ts.getTextOfJSDocComment(tag.comment) ?? ""),
  };
}

/** The members of every exported interface and class of sdk/*.ts, by declaration name. */
function sdkMembers(): Map<string, Map<string, Documented>> {
  const found = new Map<string, Map<string, Documented>>();
  for (const file of readdirSync(sdkDir).filter((f) => f.endsWith(".ts"))) {
    const source = ts.createSourceFile(file, readFileSync(join(sdkDir, file), "utf8"), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!(ts.isInterfaceDeclaration(statement) || ts.isClassDeclaration(statement)) || !statement.name) continue;
      const members = new Map<string, Documented>();
      for (const member of statement.members) {
        const isDeclared =
          ts.isPropertyDeclaration(member) && ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Ambient;
        if ((ts.isPropertySignature(member) || isDeclared) && member.name && ts.isIdentifier(member.name)) {
          members.set(member.name.text, docOf(member));
        }
      }
      found.set(statement.name.text, members);
    }
  }
  return found;
}

describe("SDK classes follow the field tables", () => {
  const members = sdkMembers();

  for (const core of cores) {
    const { type, fields } = core.table;
    const field = (name: string) => fields[name] as Field;

    it(`${type}Args: one property per program input, described and defaulted as the table says`, () => {
      const args = members.get(`${type}Args`);
      expect(args, `${type}Args`).toBeDefined();
      const expected = programInputs(core.table).map((name) => field(name).sdk?.name ?? name);
      expect([...(args?.keys() ?? [])].sort()).toEqual(expected.sort());
      for (const name of programInputs(core.table)) {
        const f = field(name);
        const doc = args?.get(f.sdk?.name ?? name);
        expect(doc?.summary, `${type}Args.${name}`).toBe(f.sdk?.description ?? f.description);
        if (f.default !== undefined)
          expect(doc?.defaultTag, `${type}Args.${name} @default`).toBe(JSON.stringify(f.default));
      }
    });

    it(`${type}: declares every field as an output, each output not set by the program described as the table says`, () => {
      const declared = members.get(type);
      expect(declared, type).toBeDefined();
      expect([...(declared?.keys() ?? [])].sort()).toEqual(Object.keys(fields).sort());
      for (const [name, doc] of declared ?? []) {
        // An input's output may leave its text to the Args property; an output the provider computes may not.
        if (doc.summary !== undefined || field(name).input !== "program") {
          expect(doc.summary, `${type}.${name}`).toBe(field(name).description);
        }
      }
    });
  }

  it("every table describes every field", () => {
    for (const core of cores) {
      for (const [name, f] of Object.entries(core.table.fields))
        expect(f.description, `${core.table.type}.${name}`).not.toBe("");
    }
  });
});
