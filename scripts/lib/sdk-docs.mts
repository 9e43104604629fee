// The SDK's property docs from the field tables (provider/resources/*/fields.ts): the table is the one
// place a field's text is written; sdk/*.ts carries it because TypeScript cannot derive TSDoc, and the
// .d.ts files users' editors read are compiled from sdk/. `sdkDocs` rewrites, in one sdk/ file, the
// summary of every property of `<Type>Args` (the program's inputs) and of the `<Type>` class (its
// outputs), and the `@default` of each input the table gives a default. The rest of a comment (its
// `@example`, a `@default` the table cannot state) is the SDK's own and kept as written.
// Used by scripts/gen-sdk-docs.mts (writes sdk/) and test/unit/sdk-fields.test.ts (sdk/ is current).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

/** The part of a field table (provider/tables.ts `ResourceTable`) the docs come from. */
export interface DocTable {
  readonly type: string;
  readonly fields: Readonly<
    Record<
      string,
      {
        readonly description: string;
        readonly input?: string;
        readonly default?: unknown;
        readonly sdk?: { readonly name: string; readonly description: string };
      }
    >
  >;
}

interface Doc {
  readonly summary: string;
  /** `@default` text from the table; undefined keeps the comment's own, if any. */
  readonly defaultTag: string | undefined;
}

/** Prettier's width (.prettierrc): generated lines stay within it. */
const width = 120;

/** An exported value shaped like a field table (a fields.ts module also exports shared field groups). */
export function isDocTable(value: unknown): value is DocTable {
  if (typeof value !== "object" || value === null) return false;
  const { type, fields } = value as { type?: unknown; fields?: unknown };
  return typeof type === "string" && typeof fields === "object" && fields !== null;
}

/**
 * Every table of `<resources>/<name>/fields<ext>`: provider/resources with `.ts` (where vitest runs
 * the sources), bin/provider/resources with `.js` (the build, for node).
 */
export async function loadTables(resources: string, ext: ".ts" | ".js"): Promise<DocTable[]> {
  const tables: DocTable[] = [];
  for (const entry of readdirSync(resources, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const file = path.join(resources, entry.name, `fields${ext}`);
    // A folder of shared code has no table.
    if (!existsSync(file)) continue;
    const module = (await import(pathToFileURL(file).href)) as object;
    tables.push(...Object.values(module).filter(isDocTable));
  }
  return tables;
}

/** What each declaration documented from a table must say, by declaration name, then property name. */
function expectedDocs(tables: readonly DocTable[]): Map<string, Map<string, Doc>> {
  const expected = new Map<string, Map<string, Doc>>();
  for (const { type, fields } of tables) {
    const args = new Map<string, Doc>();
    const outputs = new Map<string, Doc>();
    for (const [name, field] of Object.entries(fields)) {
      if (field.input === "program") {
        args.set(field.sdk?.name ?? name, {
          summary: field.sdk?.description ?? field.description,
          defaultTag: field.default === undefined ? undefined : JSON.stringify(field.default),
        });
      }
      outputs.set(name, { summary: field.description, defaultTag: undefined });
    }
    expected.set(`${type}Args`, args);
    expected.set(type, outputs);
  }
  return expected;
}

/** The comment's lines without `/**`, `*\/` and the leading ` * `. */
function commentLines(raw: string): string[] {
  const lines = raw
    .replace(/^\/\*\*/, "")
    .replace(/\*\/$/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, "").trimEnd());
  while (lines[0]?.trim() === "") lines.shift();
  while (lines.at(-1)?.trim() === "") lines.pop();
  return lines;
}

/** The comment's tag blocks (each `@tag` line with the lines that continue it), as written. */
function tagBlocks(raw: string | undefined): string[][] {
  const blocks: string[][] = [];
  for (const line of raw === undefined ? [] : commentLines(raw)) {
    if (line.startsWith("@")) blocks.push([line]);
    else blocks.at(-1)?.push(line);
  }
  return blocks;
}

/** `text` broken at spaces into lines of at most `room` characters (a longer word keeps its own line). */
function wrap(text: string, room: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

function render(doc: Doc, existing: string | undefined, indent: string): string {
  const blocks = tagBlocks(existing);
  if (doc.defaultTag !== undefined) {
    const tag = [`@default ${doc.defaultTag}`];
    const at = blocks.findIndex((block) => /^@default\b/.test(block[0] ?? ""));
    if (at === -1) blocks.unshift(tag);
    else blocks[at] = tag;
  }
  const oneLine = `${indent}/** ${doc.summary} */`;
  if (blocks.length === 0 && oneLine.length <= width) return oneLine.trimStart();
  const body = [...wrap(doc.summary, width - indent.length - 3), ...blocks.flat()];
  return ["/**", ...body.map((line) => `${indent} *${line === "" ? "" : ` ${line}`}`), `${indent} */`].join("\n");
}

function propertyName(member: ts.ClassElement | ts.TypeElement): string | undefined {
  const isProperty =
    ts.isPropertySignature(member) ||
    (ts.isPropertyDeclaration(member) && (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Ambient) !== 0);
  return isProperty && member.name !== undefined && ts.isIdentifier(member.name) ? member.name.text : undefined;
}

/**
 * `text` (the sdk/ file `file`) with the docs the tables give. Throws when a documented declaration
 * and its table disagree on the properties: a missing or extra property is a change to the SDK's
 * API, made by hand, not by this generator.
 */
export function sdkDocs(file: string, text: string, tables: readonly DocTable[]): string {
  const expected = expectedDocs(tables);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edits: { start: number; end: number; text: string }[] = [];
  const problems: string[] = [];
  for (const statement of source.statements) {
    if (!(ts.isInterfaceDeclaration(statement) || ts.isClassDeclaration(statement)) || !statement.name) continue;
    const declaration = statement.name.text;
    const docs = expected.get(declaration);
    if (docs === undefined) continue;
    const seen = new Set<string>();
    for (const member of statement.members) {
      const name = propertyName(member);
      if (name === undefined) continue;
      const doc = docs.get(name);
      if (doc === undefined) {
        problems.push(`${declaration}.${name} is no field of the ${declaration.replace(/Args$/, "")} table`);
        continue;
      }
      seen.add(name);
      const comment = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc).at(-1);
      const start = member.getStart(source);
      const indent = " ".repeat(start - text.lastIndexOf("\n", start - 1) - 1);
      if (comment === undefined) {
        edits.push({ start, end: start, text: `${render(doc, undefined, indent)}\n${indent}` });
      } else {
        const from = comment.getStart(source);
        edits.push({ start: from, end: comment.end, text: render(doc, text.slice(from, comment.end), indent) });
      }
    }
    for (const name of docs.keys()) {
      if (!seen.has(name)) problems.push(`${declaration} has no property ${name} (a field of its table)`);
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `${file}: the SDK and the field tables disagree (add or remove the property by hand):\n  ` +
        problems.join("\n  "),
    );
  }
  let result = text;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  }
  return result;
}

/** Each sdk/*.ts file (the folder `sdkDir`) as it is and as the tables make it. */
export function sdkFiles(sdkDir: string, tables: readonly DocTable[]) {
  return readdirSync(sdkDir)
    .filter((file) => file.endsWith(".ts"))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(sdkDir, file), "utf8");
      return { file, text, generated: sdkDocs(`sdk/${file}`, text, tables) };
    });
}
