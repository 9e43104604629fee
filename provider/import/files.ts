/**
 * The two files `cloudplatform-import` writes, from its plan (plan.ts). Both hold names, ids and
 * settings a program states anyway, never a secret, and are the same for the same project.
 *
 * - The import file, for `pulumi import --file` with the plugin (Go, YAML, Python, …): each object
 *   by its type token, name and import id. The engine reads each object through the provider and
 *   generates the program that declares it. It refers to another imported resource where a property
 *   holds that resource's id or `name` output, so a credential's `bucketId` becomes its bucket's `id`.
 *   A zone named like a bucket (`assets.example.com`, both) would make each refer to the other, a
 *   circle after which the engine drops every reference of the import: such zones go into a second
 *   file, imported after the first.
 * - The program file, for TypeScript programs on the dynamic SDK, which `pulumi import` cannot serve:
 *   the same objects as declarations that the next `pulumi up` takes over (`adopt: true`,
 *   `accessKeyId`), each credential referring to its bucket's `bucketId` output.
 */
import { tokenOf } from "../plugin/cores.js";
import { countText, counts, type Item, type Plan } from "./plan.js";

export interface ImportFile {
  readonly resources: ReadonlyArray<{ readonly type: string; readonly name: string; readonly id: string }>;
}

/** The items of each import file: one, or two when some zones are named like an imported bucket. */
export function importBatches(items: readonly Item[]): Item[][] {
  const bucketNames = new Set(items.flatMap((i) => (i.kind === "Bucket" ? [i.bucketName] : [])));
  const apart = (i: Item) => i.kind === "DnsZone" && bucketNames.has(i.zoneName);
  const later = items.filter(apart);
  const first = items.filter((i) => !apart(i));
  return later.length === 0 ? [first] : [first, later];
}

export function importFile(items: readonly Item[]): ImportFile {
  return { resources: items.map((item) => ({ type: tokenOf(item.kind), name: item.name, id: item.id })) };
}

export function importFileText(items: readonly Item[]): string {
  return `${JSON.stringify(importFile(items), null, 2)}\n`;
}

const quote = (s: string): string => JSON.stringify(s);

function declaration(item: Item): string {
  const lines: string[] = [];
  switch (item.kind) {
    case "DnsZone":
      lines.push(`name: ${quote(item.zoneName)}`, "adopt: true");
      break;
    case "Bucket":
      lines.push(`name: ${quote(item.bucketName)}`);
      if (item.storageClass !== undefined) lines.push(`storageClass: ${quote(item.storageClass)}`);
      lines.push("adopt: true");
      break;
    case "BucketCredential":
      if (item.bucket === undefined) {
        lines.push(`// bucket ${quote(item.bucketName)}, which the stack manages already`);
        lines.push(`bucketId: ${quote(item.bucketId)}`);
      } else {
        lines.push(`bucketId: ${item.bucket}.bucketId`);
      }
      lines.push(`accessKeyId: ${quote(item.accessKeyId)}`);
      if (item.active !== undefined) lines.push(`active: ${String(item.active)}`);
      break;
  }
  const body = lines.map((l) => `  ${l}${l.startsWith("//") ? "" : ","}`).join("\n");
  return `export const ${item.name} = new cloudplatform.${item.kind}(${quote(item.name)}, {\n${body}\n});`;
}

/**
 * The line above each declaration: what it takes over. A later run reads these back (declaredIn), so
 * what an earlier run wrote stays, and is not written twice before a `pulumi up` takes it over.
 */
const marker = (item: Item): string => `// cloudplatform-import: ${item.kind} ${item.id}`;
const markerPattern = /^\/\/ cloudplatform-import: (DnsZone|Bucket|BucketCredential) (\S+)$/gm;
const declarationPattern = /^export const (\w+) = new cloudplatform\./gm;
/** Where the kept part of the file ends: the list of every declaration, rewritten on each run. */
const footerMarker = "// Every object this file declares";

/** What a program file written earlier declares: its ids (as StackHoldings keeps them) and names. */
export interface Declared {
  readonly zones: ReadonlySet<string>;
  readonly buckets: ReadonlySet<string>;
  /** Access key ids. */
  readonly credentials: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
}

export function declaredIn(text: string): Declared {
  const zones = new Set<string>();
  const buckets = new Set<string>();
  const credentials = new Set<string>();
  for (const [, kind, id = ""] of text.matchAll(markerPattern)) {
    if (kind === "DnsZone") zones.add(id);
    else if (kind === "Bucket") buckets.add(id);
    else credentials.add(id.slice(id.lastIndexOf("/") + 1));
  }
  const names = new Set([...text.matchAll(declarationPattern)].map((m) => m[1] ?? ""));
  return { zones, buckets, credentials, names };
}

/**
 * `where`: the project's management API address; `stack`: the stack the objects go into, when known;
 * `previous`: the file an earlier run wrote, whose declarations are kept as they are (with any edit
 * the user made) and the new ones added after them: a run never takes a declaration away, so the
 * next `pulumi up` never plans to delete what an earlier run took over. The file ends with
 * `imported`, every object it declares, which the program uses (README): a program that imports this
 * file and ends up with none of it fails instead of passing with nothing taken over.
 */
export function programFileText(p: Plan, where: string, stack: string | undefined, previous?: string): string {
  const kept = previous === undefined ? undefined : previous.split(`\n${footerMarker}`)[0]?.trimEnd();
  const section = [
    `// Written by cloudplatform-import: ${countText(counts(p.items))} of the project at ${where}`,
    stack === undefined ? "// (every object it holds)." : `// that stack ${stack} does not manage yet.`,
  ].join("\n");
  const header = [
    section,
    "//",
    '// Use it from your program (index.ts: `import { imported } from "./cloudplatform-imported";` and',
    "// `export const importedObjects = imported.length;`), then `pulumi up`: it takes every object over as",
    "// it is. Nothing is created, changed or deleted on the platform, and no secret is written here: a",
    "// credential's secret stays unknown to Pulumi (secretKnown: false) until you rotate it with",
    "// rotateWhenChanged. Then `pulumi preview --expect-no-changes` passes. Run the command again at any",
    "// time: it adds what was made since below, and keeps every declaration above as it is.",
    '// README: "Bring an existing project under Pulumi".',
    'import * as cloudplatform from "pulumi-cloudplatform";',
  ].join("\n");
  const declarations = p.items.map((item) => `${marker(item)}\n${declaration(item)}`);
  const body = [kept ?? header, ...(kept === undefined ? [] : [section]), ...declarations].join("\n\n");
  const names = [...body.matchAll(declarationPattern)].map((m) => m[1] ?? "");
  const footer = [
    `${footerMarker} (rewritten on each run): use it from the program, so that a program that`,
    "// imports this file and declares none of it fails instead of passing with nothing taken over.",
    `export const imported = [${names.map((n) => `\n  ${n},`).join("")}\n];`,
  ].join("\n");
  return `${body}\n\n${footer}\n`;
}
