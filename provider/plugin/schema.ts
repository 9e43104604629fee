/**
 * The Pulumi package schema of `cloudplatform` (served by GetSchema): what other languages'
 * SDK generators, `pulumi import` code generation and `pulumi package get-schema` read. It follows
 * from the cores' field tables (tables.ts) and the settings of config.ts; property names are the
 * cores' wire names. Resources and functions are described as Pulumi's registry docs expect, with
 * their examples in every language and how to import them (schema-docs.ts).
 */
import { settingTable } from "../config.js";
import { alwaysSet, programInputs, type Field, type FieldKind, type ResourceTable } from "../tables.js";
import { lookups, type Lookup } from "../functions.js";
import { cores, packageName, tokenOf } from "./cores.js";
import { describedWithExamples, examplesRoot } from "./schema-docs.js";

type Spec = Record<string, unknown>;

function typeSpec(kind: FieldKind): Spec {
  switch (kind) {
    case "stringMap":
      return { type: "object", additionalProperties: { type: "string" } };
    case "stringList":
      return { type: "array", items: { type: "string" } };
    default:
      return { type: kind };
  }
}

/** `replaceOnChanges` only where generated SDKs read it: on the outputs. */
function propertySpec(field: Field, asOutput: boolean): Spec {
  return {
    ...typeSpec(field.kind),
    description: field.description,
    ...(field.secret ? { secret: true } : {}),
    ...(asOutput && field.replaceOnChange ? { replaceOnChanges: true } : {}),
  };
}

function resourceSpec(table: ResourceTable, examples: string): Spec {
  const { fields } = table;
  const specs = (names: readonly string[], asOutput: boolean) =>
    Object.fromEntries(names.map((name) => [name, propertySpec(fields[name] as Field, asOutput)]));
  return {
    description: describedWithExamples(table.description, table.type, examples),
    inputProperties: specs(programInputs(table), false),
    requiredInputs: Object.keys(fields).filter((name) => fields[name]?.required),
    properties: specs(Object.keys(fields), true),
    required: alwaysSet(table),
  };
}

const properties = (fields: Readonly<Record<string, Field>>): Spec =>
  Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, propertySpec(field, false)]));

/** An object the lookups return, as a schema type: every field, those always set required. */
function objectSpec(table: ResourceTable): Spec {
  return { properties: properties(table.fields), required: alwaysSet(table) };
}

const typeRef = (table: ResourceTable): string => `#/types/${tokenOf(table.type)}`;

function functionSpec(lookup: Lookup, examples: string): Spec {
  const { args, result } = lookup;
  const outputs =
    "object" in result
      ? objectSpec(result.object)
      : {
          properties: {
            [result.list]: { type: "array", items: { $ref: typeRef(result.of) }, description: result.description },
          },
          required: [result.list],
        };
  return {
    description: describedWithExamples(lookup.description, lookup.name, examples),
    ...(Object.keys(args).length === 0
      ? {}
      : { inputs: { properties: properties(args), required: Object.keys(args).filter((n) => args[n]?.required) } }),
    outputs,
  };
}

/** The object types the list lookups return, each once. */
function typeSpecs(): Spec {
  const tables = lookups.flatMap((l) => ("of" in l.result ? [l.result.of] : []));
  return Object.fromEntries(
    tables.map((t) => [tokenOf(t.type), { type: "object", description: t.description, ...objectSpec(t) }]),
  );
}

const settings: Spec = Object.fromEntries(
  Object.entries(settingTable).map(([name, s]) => [
    name,
    {
      type: s.type ?? "string",
      description: `${s.description} Environment variable: ${s.env}.`,
      ...(s.secret ? { secret: true } : {}),
    },
  ]),
);

/**
 * Where the Go SDK lives: sdks/go of this repository, its own module (`<repository>/sdks/go`, go.mod
 * written by the generator from this path), the package `cloudplatform` inside it.
 */
export const repository = "github.com/cloudplatform/pulumi-cloudplatform";
export const goImportBasePath = `${repository}/sdks/go/${packageName}`;

/**
 * Names per language. The Node SDK cannot be `pulumi-cloudplatform`, the dynamic SDK's own name:
 * it is `@pulumi-cloudplatform/sdk`, under a scope that holds this project's packages only.
 */
export const languages = {
  nodejs: { packageName: "@pulumi-cloudplatform/sdk", respectSchemaVersion: true },
  go: { importBasePath: goImportBasePath, generateResourceContainerTypes: true, respectSchemaVersion: true },
  python: { packageName: "pulumi_cloudplatform", respectSchemaVersion: true },
  // The vendor's packages sit under `Pulumi.*`; ours under the platform's own root.
  csharp: {
    rootNamespace: "CloudPlatform",
    namespaces: { [packageName]: "Pulumi" },
    packageReferences: { Pulumi: "3.*" },
    respectSchemaVersion: true,
  },
} as const;

/** `examples`: the folder of the examples (docs/examples of the package, unless a test says otherwise). */
export function buildSchema(version: string, examples: string = examplesRoot()): Spec {
  return {
    name: packageName,
    displayName: "Cloud Platform",
    version,
    description: "API key, DNS zones, buckets, per-bucket S3 credentials and transcripts of the Cloud Platform.",
    keywords: ["pulumi", packageName, "category/cloud", "kind/native"],
    license: "Apache-2.0",
    repository: `https://${repository}`,
    // The generators then write each SDK as a package of its own at this version (Go: its go.mod).
    meta: { supportPack: true },
    config: { variables: settings },
    provider: {
      description:
        "The Cloud Platform provider: where the platform's APIs are and the credentials that call them. Each " +
        "setting is the stack's `cloudplatform:<setting>` config (an explicit provider's input), else its " +
        "environment variable.",
      inputProperties: settings,
    },
    types: typeSpecs(),
    resources: Object.fromEntries(cores.map((core) => [tokenOf(core.table.type), resourceSpec(core.table, examples)])),
    functions: Object.fromEntries(lookups.map((lookup) => [tokenOf(lookup.name), functionSpec(lookup, examples)])),
    language: languages,
  };
}

export function schemaJson(version: string): string {
  return JSON.stringify(buildSchema(version));
}
