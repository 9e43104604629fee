// The schema's registry docs (test/support/schema-docs.ts says what they need), on the schema the
// provider builds: every resource and function described, with an example in every language from
// docs/examples and, where its core accepts imports, how to import it. And the check itself: each
// kind of gap it must name, made on purpose. test/e2e/schema-docs.test.ts runs the same check on
// what the installed plugin serves to `pulumi package get-schema`.
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lookups } from "../../provider/functions.js";
import { cores, tokenOf } from "../../provider/plugin/cores.js";
import { buildSchema } from "../../provider/plugin/schema.js";
import { examplesRoot, kebab } from "../../provider/plugin/schema-docs.js";
import { schemaDocProblems, yamlProblems, type ImportRules, type SchemaSpec } from "../support/schema-docs.js";

type Mutable = {
  resources: Record<string, { description: string; inputProperties: Record<string, { description?: string }> }>;
  functions: Record<string, { description: string }>;
};

const rules: ImportRules = new Map(cores.map((core) => [tokenOf(core.table.type), core.importing]));
const built = (examples?: string): SchemaSpec => buildSchema("1.0.0", examples) as unknown as SchemaSpec;
/** A copy to change: the built schema as plain JSON. */
const copy = (): SchemaSpec & Mutable => JSON.parse(JSON.stringify(built())) as SchemaSpec & Mutable;

const scratch = mkdtempSync(join(tmpdir(), "schema-docs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the schema's registry docs", () => {
  it("describe every resource, function, type, property and setting, with an example in every language", () => {
    expect(schemaDocProblems(built(), rules)).toEqual([]);
  });

  it("are read for every resource and function the provider serves", () => {
    const s = copy();
    expect(Object.keys(s.resources).sort()).toEqual(cores.map((c) => tokenOf(c.table.type)).sort());
    expect(Object.keys(s.functions).sort()).toEqual(lookups.map((l) => tokenOf(l.name)).sort());
    for (const spec of [...Object.values(s.resources), ...Object.values(s.functions)]) {
      expect(spec.description).toContain("{{% examples %}}\n## Example Usage\n\n{{% example %}}\n### ");
    }
  });

  it("come from docs/examples, where every folder is a resource's or a function's", () => {
    const names = [...cores.map((c) => c.table.type), ...lookups.map((l) => l.name)].map(kebab);
    const folders = readdirSync(examplesRoot()).filter((f) => statSync(join(examplesRoot(), f)).isDirectory());
    expect(folders.sort()).toEqual(names.sort());
  });
});

describe("the docs check names each gap", () => {
  const [resource] = cores.map((c) => tokenOf(c.table.type));
  const [fn] = lookups.map((l) => tokenOf(l.name));
  // What a change adds to the problems the docs have today (none, unless the first test fails).
  const baseline = schemaDocProblems(built(), rules);
  const added = (s: SchemaSpec, importing: ImportRules = rules) =>
    schemaDocProblems(s, importing).filter((p) => !baseline.includes(p));

  it("a property without a description", () => {
    const s = copy();
    const [property] = Object.keys(s.resources[resource!]!.inputProperties);
    delete s.resources[resource!]!.inputProperties[property!]!.description;
    expect(added(s)).toEqual([`${resource}.inputProperties.${property}: no description`]);
  });

  it("a resource or function with examples but no summary", () => {
    const s = copy();
    s.functions[fn!]!.description = s.functions[fn!]!.description.replace(/^[^{]*/, "");
    expect(added(s)).toEqual([`${fn}: no description (the summary before the examples)`]);
  });

  it("a resource with a summary only, as a new one is until it has its examples", () => {
    const s = copy();
    s.resources["cloudplatform:index:SyncedFolder"] = {
      description: "A local folder kept in sync with a bucket.",
      inputProperties: { path: { description: "The folder." } },
    };
    expect(added(s)).toEqual([
      'cloudplatform:index:SyncedFolder: has no example: write docs/examples/synced-folder/ (README.md with "# <title>", index.ts, __main__.py, main.go, Pulumi.yaml)',
    ]);
  });

  it("an example folder that lacks one language's program, or its title", () => {
    const examples = join(scratch, "examples");
    cpSync(examplesRoot(), examples, { recursive: true });
    const folder = kebab(fn!.split(":").pop()!);
    rmSync(join(examples, folder, "main.go"));
    rmSync(join(examples, folder, "README.md"));
    expect(added(built(examples))).toEqual([
      `${fn}: its example has no "### <title>" (docs/examples/${folder}/ (README.md with "# <title>", index.ts, __main__.py, main.go, Pulumi.yaml))`,
      `${fn}: its example has no go program (docs/examples/${folder}/ (README.md with "# <title>", index.ts, __main__.py, main.go, Pulumi.yaml))`,
    ]);
  });

  it("a program that does not use what it documents", () => {
    const s = copy();
    const [first, second] = Object.keys(s.resources);
    s.resources[second!]!.description = s.resources[first!]!.description;
    const languages = added(s).flatMap((p) => {
      const language = p.startsWith(`${second}: its example, `) ? /its example, (\w+):/.exec(p)?.[1] : undefined;
      return language === undefined ? [] : [language];
    });
    expect([...new Set(languages)]).toEqual(["typescript", "python", "go", "yaml"]);
  });

  it("an importable resource without ## Import, an id its core refuses, ## Import where the core refuses imports", () => {
    const s = copy();
    const importable = Object.keys(s.resources).filter((t) => rules.get(t)?.supported === true);
    const refusing = Object.keys(s.resources).filter((t) => rules.get(t)?.supported !== true);
    expect(importable.length).toBeGreaterThan(0);
    expect(refusing.length).toBeGreaterThan(0);
    const [a, b] = importable;
    const section = s.resources[a!]!.description.slice(s.resources[a!]!.description.indexOf("\n\n## Import"));
    s.resources[a!]!.description = s.resources[a!]!.description.replace(section, "");
    s.resources[refusing[0]!]!.description += section.replace(a!, refusing[0]!);
    const refuse = new Map(rules);
    refuse.set(b!, {
      supported: true,
      target: () => {
        throw new Error("not an id");
      },
    });
    expect(added(s, refuse)).toEqual([
      `${refusing[0]}: cannot be imported (its core's \`importing\`), yet has ## Import`,
      `${a}: can be imported, but has no ## Import: write docs/examples/${kebab(a!.split(":").pop()!)}/import.md`,
      expect.stringMatching(new RegExp(`^${b}: ## Import shows the id ".+", which its core refuses: not an id$`)),
    ]);
  });

  it("a YAML program with what the schema does not declare", () => {
    const program = [
      "name: p",
      "runtime: yaml",
      "resources:",
      "  media:",
      "    type: cloudplatform:index:Bucket",
      "    properties: { forceDestroy: true, size: 3 }",
      "  writer:",
      "    type: cloudplatform:index:BucketCredential",
      "  other:",
      "    type: cloudplatform:index:Nothing",
      "variables:",
      "  zone:",
      "    fn::invoke: { function: cloudplatform:index:getDnsZone, arguments: { zone: x } }",
      "  zones:",
      "    fn::invoke: { function: cloudplatform:index:getDnsZones, return: items }",
      "outputs:",
      "  a: ${media.bucketIdentifier}",
      "  b: ${zone.nameServers}",
      "  c: ${nowhere.x}",
      "  d: ${zones}",
    ].join("\n");
    expect(yamlProblems(built(), program, { kind: "resource", token: "cloudplatform:index:DnsZone" })).toEqual([
      "resource media: cloudplatform:index:Bucket has no input size",
      "resource writer: cloudplatform:index:BucketCredential needs bucketId",
      "resource other: the schema has no resource type cloudplatform:index:Nothing",
      "fn::invoke cloudplatform:index:getDnsZone: no argument zone",
      "fn::invoke cloudplatform:index:getDnsZone: needs the argument name",
      "fn::invoke cloudplatform:index:getDnsZones: returns no items",
      "${media.bucketIdentifier}: media has no output bucketIdentifier",
      "${zone.nameServers}: zone has no output nameServers",
      "${nowhere…} names no resource, variable or setting of the program",
      "declares no cloudplatform:index:DnsZone",
    ]);
    expect(yamlProblems(built(), "a: [")[0]).toMatch(/^is not YAML/);
  });
});
