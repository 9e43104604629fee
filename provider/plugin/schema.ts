/**
 * The Pulumi package schema of `cloudplatform` (served by GetSchema): what other languages'
 * SDK generators, `pulumi import` code generation and `pulumi package get-schema` read. It follows
 * from the cores' field tables (fields.ts) and the settings of config.ts; property names are the
 * cores' wire names.
 */
import { settingTable } from "../config.js";
import { alwaysSet, programInputs, type Field, type FieldKind, type ResourceTable } from "../fields.js";
import { cores, packageName, tokenOf } from "./cores.js";

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

function resourceSpec(table: ResourceTable): Spec {
  const { fields } = table;
  const specs = (names: readonly string[], asOutput: boolean) =>
    Object.fromEntries(names.map((name) => [name, propertySpec(fields[name] as Field, asOutput)]));
  return {
    description: table.description,
    inputProperties: specs(programInputs(table), false),
    requiredInputs: Object.keys(fields).filter((name) => fields[name]?.required),
    properties: specs(Object.keys(fields), true),
    required: alwaysSet(table),
  };
}

const settings: Spec = Object.fromEntries(
  Object.entries(settingTable).map(([name, s]) => [
    name,
    {
      type: "string",
      description: `${s.description} Environment variable: ${s.env}.`,
      ...(s.secret ? { secret: true } : {}),
    },
  ]),
);

export function buildSchema(version: string): Spec {
  return {
    name: packageName,
    displayName: "Cloud Platform",
    version,
    description: "API key, DNS zones, buckets, per-bucket S3 credentials and transcripts of the Cloud Platform.",
    license: "Apache-2.0",
    config: { variables: settings },
    provider: { description: "The Cloud Platform provider.", inputProperties: settings },
    resources: Object.fromEntries(cores.map((core) => [tokenOf(core.table.type), resourceSpec(core.table)])),
    language: { nodejs: { packageName: "pulumi-cloudplatform" } },
  };
}

export function schemaJson(version: string): string {
  return JSON.stringify(buildSchema(version));
}
