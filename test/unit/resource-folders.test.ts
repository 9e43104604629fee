// docs/architecture.md says what a resource is made of: one folder under provider/resources/ with
// the files its "A resource" item names, one line in the registry, and its SDK class. This keeps
// that true of every resource there is, reading the file names from the document itself.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cores } from "../../provider/resources/all.js";

const root = resolve(__dirname, "../..");
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** `BucketCredential` → `bucket-credential`: the name of a type's folder and SDK file. */
const kebab = (type: string) => type.replace(/(?<=[a-z0-9])([A-Z])/g, "-$1").toLowerCase();

/** The files of a resource folder that the document's "A resource" item names. */
function documentedFiles(): string[] {
  const item = /- \*\*A resource\*\*([\s\S]*?)\n- \*\*/.exec(read("docs/architecture.md"))?.[1] ?? "";
  return [...new Set([...item.matchAll(/`provider\/resources\/<name>\/([\w.-]+)`/g)].map((m) => m[1] as string))];
}

const folders = readdirSync(join(root, "provider/resources")).filter((f) =>
  statSync(join(root, "provider/resources", f)).isDirectory(),
);

describe("a resource is one folder, one registry line and its SDK class", () => {
  it("the document names a folder's files", () => {
    expect(documentedFiles().sort()).toEqual(["core.ts", "fields.ts"]);
  });

  it.each(folders)("resources/%s/ holds the files the document names", (folder) => {
    const missing = documentedFiles().filter((f) => !existsSync(join(root, "provider/resources", folder, f)));
    expect(missing).toEqual([]);
  });

  it("the registry serves each folder's core, and nothing else", () => {
    expect(cores.map((c) => kebab(c.table.type)).sort()).toEqual([...folders].sort());
    const registry = read("provider/resources/all.ts");
    for (const folder of folders) expect(registry).toContain(`from "./${folder}/core.js"`);
  });

  it.each(cores.map((c) => c.table.type))("%s has its SDK class, exported by the SDK", (type) => {
    const file = `sdk/${kebab(type)}.ts`;
    expect(existsSync(join(root, file)), file).toBe(true);
    expect(read(file)).toMatch(new RegExp(`export class ${type} extends pulumi\\.CustomResource`));
    expect(read("sdk/index.ts")).toContain(`from "./${kebab(type)}.js"`);
  });
});
