/**
 * Invokes of the executable provider: the lookups of functions.ts by token
 * `cloudplatform:index:<name>` (`getDnsZone`, …), the very code the TypeScript SDK's functions run,
 * given the host's client (the provider's configuration) instead of the program's. Arguments are
 * checked against the lookup's table first.
 */
import type { InvokeResult } from "@pulumi/pulumi/provider";
import { UnknownTypeError } from "../errors.js";
import { argumentFailures, lookups, type Lookup } from "../functions.js";
import type { Host } from "../host.js";
import { tokenOf } from "./cores.js";
import { decode } from "./wire.js";

const byToken = new Map(lookups.map((lookup) => [tokenOf(lookup.name), lookup]));

export function lookupFor(token: string): Lookup {
  const lookup = byToken.get(token);
  if (lookup === undefined) {
    throw new UnknownTypeError(
      `the cloudplatform provider has no function "${token}"`,
      `Known functions: ${[...byToken.keys()].join(", ")}. Upgrade the provider if the program expects a newer one.`,
    );
  }
  return lookup;
}

export async function invoke(host: Host, token: string, inputs: unknown): Promise<InvokeResult> {
  const lookup = lookupFor(token);
  // Arguments may arrive as secrets (an output of a secret); the lookups take plain values.
  const args = decode(inputs).props;
  const failures = argumentFailures(lookup, args);
  if (failures.length > 0) return { failures };
  return { outputs: await lookup.invoke(host.context(lookup.name, "").client, args) };
}
