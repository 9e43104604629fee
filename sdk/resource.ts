import * as pulumi from "@pulumi/pulumi";
import { journalKey } from "../provider/contract.js";
import { computedOutputs, programInputs, secretOutputs, type ResourceTable } from "../provider/tables.js";
import { providerText } from "./shim.js";

/** Where the engine and the provider host look for a dynamic resource's provider text. */
const providerKey = "__provider";

/** The arguments of `pulumi.CustomResource`'s constructor. */
export type CustomResourceArgs = [
  type: string,
  name: string,
  props: pulumi.Inputs,
  opts: pulumi.CustomResourceOptions | undefined,
];

/**
 * A resource of this package as a dynamic resource of type
 * `pulumi-nodejs:dynamic/cloudplatform:<type>`, as its field table declares it: the program's inputs
 * taken from `args`, every output the provider fills, the secret outputs marked, and the provider's
 * text (shim.ts), which names the resource and its stack's recovery journal. `extra` carries inputs
 * the SDK takes in another form (a Transcript's `source`).
 *
 * Each class extends `pulumi.CustomResource` itself and passes these arguments to it, as a
 * dynamic resource would after serializing its provider: Pulumi records the stack of every
 * registration past the constructors of `Resource`, `CustomResource` and one class, so with no
 * class in between, the position the engine shows and stores is the program's own line.
 */
export function customResourceArgs(
  table: ResourceTable,
  name: string,
  args: object,
  opts: pulumi.CustomResourceOptions | undefined,
  extra: Record<string, unknown> = {},
): CustomResourceArgs {
  return [
    `pulumi-nodejs:dynamic/cloudplatform:${table.type}`,
    name,
    {
      ...props(table, args),
      ...extra,
      [providerKey]: providerText(table.type, name, stackJournal()),
    },
    options(table, opts),
  ];
}

/** A resource's registration, under way: `end` closes it, `failed` readies an error thrown in it. */
export interface Registration {
  end(): void;
  failed(error: unknown): unknown;
}

/**
 * Opens the span of a resource's registration (its `super(...)` call), in which no stack trace is
 * captured. @pulumi/pulumi captures and source-maps one for each promise it makes per property
 * (4 per input and output, 10-15 properties a resource) and keeps it only for its report of
 * promises still pending when a program ends: without them a no-change preview at N = 1,000 takes
 * 0.90x the time (bench/README.md, "Where a no-change preview goes at N = 1,000"). The position of
 * the resource in the program, which the engine shows and stores, Pulumi takes with a limit of its
 * own: unchanged. An error thrown in the span gets the caller's stack from `failed`. Open and
 * closed in each class's constructor around `super(...)`: Pulumi finds the program's line a fixed
 * number of frames up, so no base class of ours may stand between (`customResourceArgs`).
 */
export function registration(): Registration {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let open = true;
  const end = (): void => {
    if (open) Error.stackTraceLimit = limit;
    open = false;
  };
  const failed = (error: unknown): unknown => {
    end();
    if (error instanceof Error && !/\n\s+at /.test(error.stack ?? "")) {
      const here: { stack?: string } = {};
      Error.captureStackTrace(here, failed);
      const frames = (here.stack ?? "").split("\n").slice(1).join("\n");
      error.stack = `${error.stack ?? `${error.name}: ${error.message}`}\n${frames}`;
    }
    return error;
  };
  return { end, failed };
}

/**
 * The inputs as the provider's check receives them: every argument the program gave, the unknown
 * ones included, so that check refuses a misspelt property at preview (a JavaScript program is not
 * type-checked, and a dropped argument would pass silently); arguments the SDK takes in another
 * form (`sdk` in the table) travel as that form in `extra`. Outputs the provider fills are declared
 * as undefined.
 */
function props(table: ResourceTable, args: object): Record<string, unknown> {
  const sdkForms = new Set(Object.values(table.fields).flatMap((f) => (f.sdk === undefined ? [] : [f.sdk.name])));
  const bag: Record<string, unknown> = {};
  for (const input of programInputs(table)) if (table.fields[input]?.sdk === undefined) bag[input] = undefined;
  for (const [key, value] of Object.entries(args)) if (!sdkForms.has(key)) bag[key] = value;
  for (const output of computedOutputs(table)) if (!(output in bag)) bag[output] = undefined;
  return bag;
}

/** The journal key of the stack the program deploys (`journalKey`); undefined outside a deployment. */
function stackJournal(): string | undefined {
  const stack = stackIdentity();
  return stack === undefined ? undefined : journalKey(stack);
}

/**
 * `<organization>/<project>/<stack>`, which dynamic providers are not told otherwise (the recovery
 * journal is kept per stack). Undefined outside a deployment (unit tests without mocks).
 */
function stackIdentity(): string | undefined {
  let organization = "";
  try {
    organization = pulumi.getOrganization();
  } catch {
    // An engine that does not say the organization: the project and stack still tell stacks apart.
  }
  try {
    return `${organization}/${pulumi.getProject()}/${pulumi.getStack()}`;
  } catch {
    return undefined;
  }
}

function options(
  table: ResourceTable,
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.CustomResourceOptions | undefined {
  const secrets = secretOutputs(table);
  if (secrets.length === 0) return opts;
  return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secrets] };
}
