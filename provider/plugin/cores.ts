/**
 * The resources this host serves, by type token `cloudplatform:index:<Type>`: the same cores the
 * dynamic host serves, nothing re-implemented.
 */
import { journalKey } from "../contract.js";
import { UnknownTypeError } from "../errors.js";
import type { Call } from "../host.js";
import { cores } from "../resources/all.js";

export { cores };

export const packageName = "cloudplatform";

export function tokenOf(type: string): string {
  return `${packageName}:index:${type}`;
}

const byToken = new Map(cores.map((core) => [tokenOf(core.table.type), core]));

/**
 * `urn:pulumi:<stack>::<project>::<[parent$]type>::<name>` → type token, logical name, and the stack
 * as `<project>/<stack>` (the URN does not name the organization).
 */
export function parseUrn(urn: string): { token: string; name: string; stack: string } {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  const token = qualified.split("$").pop() ?? "";
  const stackName = (parts[0] ?? "").replace(/^urn:pulumi:/, "");
  const stack = stackName === "" || parts[1] === undefined ? "" : `${parts[1]}/${stackName}`;
  return { token, name: parts.slice(3).join("::"), stack };
}

export function coreFor(urn: string): Call {
  const { token, name, stack } = parseUrn(urn);
  const core = byToken.get(token);
  if (core === undefined) {
    throw new UnknownTypeError(
      `the cloudplatform provider has no resource type "${token}"`,
      `Known types: ${[...byToken.keys()].join(", ")}. Upgrade the provider if the program expects a newer one.`,
    );
  }
  return { core, name, journal: stack === "" ? "" : journalKey(stack) };
}
