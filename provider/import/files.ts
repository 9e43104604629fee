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

/** `where`: the project's management API address; `stack`: the stack the objects go into, when known. */
export function programFileText(p: Plan, where: string, stack: string | undefined): string {
  const header = [
    `// Written by cloudplatform-import: ${countText(counts(p.items))} of the project at ${where}`,
    stack === undefined ? "// (every object it holds)." : `// that stack ${stack} does not manage yet.`,
    "//",
    '// Import it from your program (`import * as imported from "./cloudplatform-import";`) or run it as',
    "// the program, then `pulumi up`: it takes every object over as it is. Nothing is created, changed or",
    "// deleted on the platform, and no secret is written here: a credential's secret stays unknown to",
    "// Pulumi (secretKnown: false) until you rotate it with rotateWhenChanged. Then",
    '// `pulumi preview --expect-no-changes` passes. README: "Bring an existing project under Pulumi".',
    'import * as cloudplatform from "pulumi-cloudplatform";',
  ];
  return `${[header.join("\n"), ...p.items.map(declaration)].join("\n\n")}\n`;
}
