// The registry docs in the schema users get: `pulumi package get-schema` (the real CLI) of the plugin
// packed by `npm run plugin:pack` and installed with `pulumi plugin install --file` into a
// PULUMI_HOME of its own. Every resource, function, type, property and setting is described, each
// resource and function has an example in every language of the SDKs (and YAML), and each
// importable resource says how (test/support/schema-docs.ts). The check reads the schema, not a
// list of names: a resource or function added later fails it until docs/examples has its folder.
// This is also what shows that the tarball carries the examples the schema is built from.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookups } from "../../provider/functions.js";
import { cores, tokenOf } from "../../provider/plugin/cores.js";
import { schemaDocProblems, type ImportRules, type SchemaSpec } from "../support/schema-docs.js";
import { packPlugin, PluginSandbox, pluginVersion } from "./support/plugin-cli.js";

let scratch: string;
let sandbox: PluginSandbox;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-schema-docs-"));
  sandbox = await PluginSandbox.create(await packPlugin(scratch), []);
});
afterAll(async () => {
  await sandbox?.dispose();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("`pulumi package get-schema` of the installed plugin", () => {
  let schema: SchemaSpec & { resources: object; functions: object };

  beforeAll(async () => {
    const { stdout } = await sandbox.cli(sandbox.root, ["package", "get-schema", `cloudplatform@${pluginVersion()}`]);
    schema = JSON.parse(stdout) as typeof schema;
  });

  it("is the installed plugin's, with every resource and function the provider serves", () => {
    expect(schema.name).toBe("cloudplatform");
    expect(Object.keys(schema.resources).sort()).toEqual(cores.map((c) => tokenOf(c.table.type)).sort());
    expect(Object.keys(schema.functions).sort()).toEqual(lookups.map((l) => tokenOf(l.name)).sort());
  });

  it("describes everything, with an example in every language and, where the core accepts imports, ## Import", () => {
    const importing: ImportRules = new Map(cores.map((core) => [tokenOf(core.table.type), core.importing]));
    expect(schemaDocProblems(schema, importing)).toEqual([]);
  });
});
