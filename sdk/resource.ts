import * as pulumi from "@pulumi/pulumi";
import { nameKey } from "../provider/core.js";
import { computedOutputs, programInputs, secretOutputs, type ResourceTable } from "../provider/fields.js";
import { providerShim } from "./shim.js";

/**
 * A resource of this package as a Pulumi dynamic resource of type
 * `pulumi-nodejs:dynamic/cloudplatform:<type>`, as its field table declares it: the program's inputs
 * taken from `args`, every output the provider fills, the secret outputs marked, and the logical
 * name for the provider's messages. Served by the provider export `<type>Provider` (`ApiKey` →
 * `apiKeyProvider`). `extra` carries inputs the SDK takes in another form (a Transcript's `source`).
 */
export abstract class TableResource extends pulumi.dynamic.Resource {
  protected constructor(
    table: ResourceTable,
    name: string,
    args: object,
    opts: pulumi.CustomResourceOptions | undefined,
    extra: Record<string, unknown> = {},
  ) {
    const exportName = `${table.type[0]?.toLowerCase()}${table.type.slice(1)}Provider`;
    super(
      providerShim(exportName),
      name,
      { ...props(table, name, args), ...extra },
      options(table, opts),
      "cloudplatform",
      table.type,
    );
  }
}

function props(table: ResourceTable, name: string, args: object): Record<string, unknown> {
  const given = args as Record<string, unknown>;
  const bag: Record<string, unknown> = {};
  for (const input of programInputs(table)) if (table.fields[input]?.sdk === undefined) bag[input] = given[input];
  for (const output of computedOutputs(table)) bag[output] = undefined;
  return { ...bag, [nameKey]: name };
}

function options(
  table: ResourceTable,
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.CustomResourceOptions | undefined {
  const secrets = secretOutputs(table);
  if (secrets.length === 0) return opts;
  return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secrets] };
}
