// What Pulumi's registry docs need of a package schema, checked on any schema: the one the provider
// builds (test/unit/schema-docs.test.ts) and the one the installed plugin serves to `pulumi package
// get-schema` (test/e2e/schema-docs.test.ts). Generic: it walks whatever the schema holds, so a
// resource or function added later fails it until it has its texts and examples.
// - every resource, function, type, property, setting and the package have a description;
// - a resource's or function's description is its summary, then `{{% examples %}}`, `## Example
//   Usage`, and examples (`{{% example %}}`, `### <title>`, one fenced block per language);
// - each example's programs use the subject in their language, and its YAML program holds only
//   types, properties, functions and arguments the schema declares;
// - a resource that can be imported (its core's `importing`) says how under `## Import`, with a
//   `pulumi import` command whose id its core accepts; one that cannot has no such section.
import { createRequire } from "node:module";
import type { ImportSupport } from "../../provider/contract.js";
import { exampleFiles, kebab } from "../../provider/plugin/schema-docs.js";

/** The languages every example shows (the SDKs this repository generates, and YAML). */
export const docLanguages = ["typescript", "python", "go", "yaml"] as const;
type DocLanguage = (typeof docLanguages)[number];

/** Fence languages the SDK generators keep: those of an SDK, and `sh` (kept in every one). */
const knownFences = new Set<string>([...docLanguages, "csharp", "java", "sh"]);

interface PropertySpec {
  readonly description?: string;
}
type Properties = Readonly<Record<string, PropertySpec>>;
interface ObjectSpec {
  readonly description?: string;
  readonly properties?: Properties;
  readonly required?: readonly string[];
}
interface ResourceSpec {
  readonly description?: string;
  readonly inputProperties?: Properties;
  readonly requiredInputs?: readonly string[];
  readonly properties?: Properties;
}
interface FunctionSpec {
  readonly description?: string;
  readonly inputs?: ObjectSpec;
  readonly outputs?: ObjectSpec;
}
export interface SchemaSpec {
  readonly name: string;
  readonly description?: string;
  readonly config?: { readonly variables?: Properties };
  readonly provider?: ResourceSpec;
  readonly types?: Readonly<Record<string, ObjectSpec>>;
  readonly resources?: Readonly<Record<string, ResourceSpec>>;
  readonly functions?: Readonly<Record<string, FunctionSpec>>;
  readonly language?: {
    readonly nodejs?: { readonly packageName?: string };
    readonly python?: { readonly packageName?: string };
    readonly go?: { readonly importBasePath?: string };
  };
}

/** How each resource is imported, by type token: its core's `importing` (absent: it cannot be). */
export type ImportRules = ReadonlyMap<string, ImportSupport<object> | undefined>;

interface CodeBlock {
  readonly language: string;
  readonly code: string;
}
interface Example {
  readonly title: string | undefined;
  readonly blocks: readonly CodeBlock[];
}
interface Doc {
  readonly summary: string;
  /** Undefined: no `{{% examples %}}` section. */
  readonly examples: readonly Example[] | undefined;
  /** The text under `## Import`, if any. */
  readonly importing: string | undefined;
  readonly problems: readonly string[];
}

const blank = (text: string | undefined): boolean => typeof text !== "string" || text.trim() === "";

function codeBlocks(markdown: string): CodeBlock[] {
  return [...markdown.matchAll(/^```(\S*)\n([\s\S]*?)\n```$/gm)].map((m) => ({ language: m[1]!, code: m[2]! }));
}

const examplesOpen = "{{% examples %}}";
const examplesClose = "{{% /examples %}}";

/** A resource's or function's description, split as the registry's docs generator splits it. */
function parseDoc(description: string): Doc {
  const problems: string[] = [];
  const importAt = description.search(/^## Import$/m);
  const importing = importAt < 0 ? undefined : description.slice(importAt + "## Import".length).trim();
  const open = description.indexOf(examplesOpen);
  const close = description.indexOf(examplesClose);
  if (open < 0) {
    if (close >= 0) problems.push(`has ${examplesClose} without ${examplesOpen}`);
    const summary = (importAt < 0 ? description : description.slice(0, importAt)).trim();
    return { summary, examples: undefined, importing, problems };
  }
  if (close < open) problems.push(`opens ${examplesOpen} and never closes it with ${examplesClose}`);
  if (importAt >= 0 && importAt < open) problems.push("has its ## Import section before the examples");
  const inside = description.slice(open + examplesOpen.length, close < open ? undefined : close);
  if (!/^\s*## Example Usage\n/.test(inside)) problems.push(`has no "## Example Usage" heading after ${examplesOpen}`);
  const examples = [...inside.matchAll(/\{\{% example %\}\}([\s\S]*?)\{\{% \/example %\}\}/g)].map((m) => {
    const body = m[1]!;
    return { title: /^### (.+)$/m.exec(body)?.[1]?.trim(), blocks: codeBlocks(body) };
  });
  return { summary: description.slice(0, open).trim(), examples, importing, problems };
}

/** `getBucketCredentials` → `get_bucket_credentials`, as the Python SDK names it. */
const snake = (name: string): string => name.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase();
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const lastPart = (token: string): string => token.slice(token.lastIndexOf(":") + 1);

interface Subject {
  readonly kind: "resource" | "function";
  readonly token: string;
}

/** What a program of `language` must contain to use the subject, as that language's SDK names it. */
function usage(schema: SchemaSpec, subject: Subject, language: Exclude<DocLanguage, "yaml">): RegExp[] {
  const name = lastPart(subject.token);
  const fn = subject.kind === "function";
  const afterGet = name.replace(/^get/, "");
  switch (language) {
    case "typescript":
      return [
        new RegExp(`from "${escape(schema.language?.nodejs?.packageName ?? "")}"`),
        fn ? new RegExp(`\\b\\w+\\.${name}(Output)?\\(`) : new RegExp(`\\bnew \\w+\\.${name}\\(`),
      ];
    case "python":
      return [
        new RegExp(`^import ${escape(schema.language?.python?.packageName ?? "")}\\b`, "m"),
        new RegExp(`\\b\\w+\\.${fn ? `${snake(name)}(_output)?` : name}\\(`),
      ];
    case "go":
      return [
        new RegExp(`"${escape(schema.language?.go?.importBasePath ?? "")}"`),
        new RegExp(`\\b\\w+\\.${fn ? `(Get|Lookup)${afterGet}(Output)?` : `New${name}`}\\(ctx\\b`),
      ];
  }
}

const yaml = createRequire(require.resolve("@pulumi/pulumi"))("js-yaml") as { load(text: string): unknown };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every value of a parsed YAML document, depth first. */
function* values(v: unknown): Generator<unknown> {
  yield v;
  if (Array.isArray(v)) for (const item of v) yield* values(item);
  else if (isRecord(v)) for (const item of Object.values(v)) yield* values(item);
}

/**
 * What is wrong with a Pulumi YAML program, given the schema: resource types of the package it does
 * not declare, properties that are not inputs, missing required inputs, unknown functions, arguments
 * and `return` keys, and `${name.property}` reads of a resource or of a lookup's result that it does
 * not have. `subject`: the resource the program must declare, or the function it must invoke.
 */
export function yamlProblems(schema: SchemaSpec, program: string, subject?: Subject): string[] {
  let doc: unknown;
  try {
    doc = yaml.load(program);
  } catch (error) {
    return [`is not YAML: ${(error as Error).message.split("\n")[0]}`];
  }
  if (!isRecord(doc)) return ["is not a YAML mapping"];
  const problems: string[] = [];
  const ours = (token: string) => token.startsWith(`${schema.name}:`);
  /** What `${name.x}` may read, by name: a resource's outputs, a whole lookup result's outputs. */
  const readable = new Map<string, Properties | undefined>();
  const declared = new Set<string>();
  const invoked = new Set<string>();

  const resources = isRecord(doc["resources"]) ? doc["resources"] : {};
  for (const [name, resource] of Object.entries(resources)) {
    const type = isRecord(resource) ? resource["type"] : undefined;
    if (typeof type !== "string") {
      problems.push(`resource ${name} has no type`);
      continue;
    }
    declared.add(type);
    if (!ours(type)) {
      readable.set(name, undefined);
      continue;
    }
    const spec = schema.resources?.[type];
    if (spec === undefined) {
      problems.push(`resource ${name}: the schema has no resource type ${type}`);
      continue;
    }
    readable.set(name, spec.properties ?? {});
    const given = isRecord(resource) && isRecord(resource["properties"]) ? resource["properties"] : {};
    for (const key of Object.keys(given)) {
      if (spec.inputProperties?.[key] === undefined) problems.push(`resource ${name}: ${type} has no input ${key}`);
    }
    for (const key of spec.requiredInputs ?? []) {
      if (!(key in given)) problems.push(`resource ${name}: ${type} needs ${key}`);
    }
  }

  for (const value of values(doc)) {
    if (!isRecord(value) || !isRecord(value["fn::invoke"])) continue;
    const invoke = value["fn::invoke"];
    const fn = invoke["function"];
    if (typeof fn !== "string") {
      problems.push("an fn::invoke has no function");
      continue;
    }
    invoked.add(fn);
    if (!ours(fn)) continue;
    const spec = schema.functions?.[fn];
    if (spec === undefined) {
      problems.push(`fn::invoke: the schema has no function ${fn}`);
      continue;
    }
    const args = isRecord(invoke["arguments"]) ? invoke["arguments"] : {};
    for (const key of Object.keys(args)) {
      if (spec.inputs?.properties?.[key] === undefined) problems.push(`fn::invoke ${fn}: no argument ${key}`);
    }
    for (const key of spec.inputs?.required ?? []) {
      if (!(key in args)) problems.push(`fn::invoke ${fn}: needs the argument ${key}`);
    }
    const returned = invoke["return"];
    if (typeof returned === "string" && spec.outputs?.properties?.[returned] === undefined) {
      problems.push(`fn::invoke ${fn}: returns no ${returned}`);
    }
  }

  const variables = isRecord(doc["variables"]) ? doc["variables"] : {};
  for (const [name, value] of Object.entries(variables)) {
    const invoke = isRecord(value) && isRecord(value["fn::invoke"]) ? value["fn::invoke"] : undefined;
    const fn = invoke?.["function"];
    const whole = invoke !== undefined && invoke["return"] === undefined && typeof fn === "string" && ours(fn);
    readable.set(name, whole ? (schema.functions?.[fn]?.outputs?.properties ?? {}) : undefined);
  }
  for (const section of ["config", "configuration"]) {
    if (isRecord(doc[section])) for (const name of Object.keys(doc[section])) readable.set(name, undefined);
  }

  for (const value of values(doc)) {
    if (typeof value !== "string") continue;
    for (const m of value.matchAll(/\$\{([\w-]+)(?:\.(\w+))?[^}]*\}/g)) {
      const [, head = "", property] = m;
      if (head === "pulumi") continue;
      if (!readable.has(head)) {
        problems.push(`\${${head}…} names no resource, variable or setting of the program`);
        continue;
      }
      const props = readable.get(head);
      if (props !== undefined && property !== undefined && props[property] === undefined) {
        problems.push(`\${${head}.${property}}: ${head} has no output ${property}`);
      }
    }
  }

  if (subject?.kind === "resource" && !declared.has(subject.token)) problems.push(`declares no ${subject.token}`);
  if (subject?.kind === "function" && !invoked.has(subject.token)) problems.push(`invokes no ${subject.token}`);
  return problems;
}

/** Where an example's files go, for the messages. */
function exampleHint(token: string): string {
  const files = docLanguages.map((l) => exampleFiles.find((f) => f.language === l)?.file ?? `<${l} program>`);
  return `docs/examples/${kebab(lastPart(token))}/ (README.md with "# <title>", ${files.join(", ")})`;
}

function exampleProblems(schema: SchemaSpec, subject: Subject, doc: Doc): string[] {
  const problems: string[] = [];
  if (doc.examples === undefined || doc.examples.length === 0) {
    return [`has no example: write ${exampleHint(subject.token)}`];
  }
  for (const [i, example] of doc.examples.entries()) {
    const which = doc.examples.length === 1 ? "its example" : `example ${i + 1}`;
    if (blank(example.title)) problems.push(`${which} has no "### <title>" (${exampleHint(subject.token)})`);
    for (const block of example.blocks) {
      if (!knownFences.has(block.language)) {
        problems.push(`${which} has a \`\`\`${block.language} block, which no SDK generator keeps`);
      }
    }
    for (const language of docLanguages) {
      const blocks = example.blocks.filter((b) => b.language === language);
      if (blocks.length !== 1) {
        problems.push(
          blocks.length === 0
            ? `${which} has no ${language} program (${exampleHint(subject.token)})`
            : `${which} has ${blocks.length} ${language} programs, not one`,
        );
        continue;
      }
      const code = blocks[0]!.code;
      if (language === "yaml") {
        for (const p of yamlProblems(schema, code, subject)) problems.push(`${which}, yaml: ${p}`);
        continue;
      }
      for (const pattern of usage(schema, subject, language)) {
        if (!pattern.test(code)) problems.push(`${which}, ${language}: does not match ${pattern}`);
      }
    }
  }
  return problems;
}

function importProblems(token: string, doc: Doc, rule: ImportSupport<object> | undefined): string[] {
  if (rule?.supported !== true) {
    return doc.importing === undefined ? [] : ["cannot be imported (its core's `importing`), yet has ## Import"];
  }
  const hint = `docs/examples/${kebab(lastPart(token))}/import.md`;
  if (doc.importing === undefined) return [`can be imported, but has no ## Import: write ${hint}`];
  const commands = codeBlocks(doc.importing)
    .filter((b) => b.language === "sh")
    .flatMap((b) => [...b.code.matchAll(/^\$?\s*pulumi import (\S+) (\S+) (\S+)\s*$/gm)]);
  if (commands.length === 0) return [`## Import shows no \`pulumi import <type> <name> <id>\` in a sh block (${hint})`];
  const problems: string[] = [];
  for (const [, type, , id = ""] of commands) {
    if (type !== token) problems.push(`## Import imports ${type}, not ${token}`);
    try {
      rule.target(id);
    } catch (error) {
      problems.push(`## Import shows the id "${id}", which its core refuses: ${(error as Error).message}`);
    }
  }
  return problems;
}

function propertyProblems(where: string, properties: Properties | undefined): string[] {
  return Object.entries(properties ?? {})
    .filter(([, p]) => blank(p.description))
    .map(([name]) => `${where}.${name}: no description`);
}

/** Everything the registry docs would miss in `schema`, one line each, naming where; empty when none. */
export function schemaDocProblems(schema: SchemaSpec, importing: ImportRules): string[] {
  const problems: string[] = [];
  if (blank(schema.description)) problems.push("the package: no description");
  problems.push(...propertyProblems("config", schema.config?.variables));
  if (blank(schema.provider?.description)) problems.push("provider: no description");
  problems.push(...propertyProblems("provider.inputProperties", schema.provider?.inputProperties));
  for (const [token, type] of Object.entries(schema.types ?? {})) {
    if (blank(type.description)) problems.push(`${token}: no description`);
    problems.push(...propertyProblems(`${token}.properties`, type.properties));
  }
  const documented = (subject: Subject, description: string | undefined): string[] => {
    const doc = parseDoc(description ?? "");
    return [
      ...(blank(doc.summary) ? ["no description (the summary before the examples)"] : []),
      ...doc.problems,
      ...exampleProblems(schema, subject, doc),
      ...(subject.kind === "resource" ? importProblems(subject.token, doc, importing.get(subject.token)) : []),
    ].map((p) => `${subject.token}: ${p}`);
  };
  for (const [token, resource] of Object.entries(schema.resources ?? {})) {
    problems.push(...documented({ kind: "resource", token }, resource.description));
    problems.push(...propertyProblems(`${token}.inputProperties`, resource.inputProperties));
    problems.push(...propertyProblems(`${token}.properties`, resource.properties));
  }
  for (const [token, fn] of Object.entries(schema.functions ?? {})) {
    problems.push(...documented({ kind: "function", token }, fn.description));
    problems.push(...propertyProblems(`${token}.inputs`, fn.inputs?.properties));
    problems.push(...propertyProblems(`${token}.outputs`, fn.outputs?.properties));
  }
  return problems;
}
