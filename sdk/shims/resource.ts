/**
 * The serialized provider of every resource the SDK declares: `of(type, name, journal)` (see ../shim.ts).
 * Loaded by the provider text every resource stores in its state; not for programs, never removed
 * (docs/public-api.md).
 */
import type * as pulumi from "@pulumi/pulumi";
import { lazyProvider, runtimeEntry } from "../shim.js";

/** The provider of the resource `name` of type `type`, on the stack whose journal key is `journal`. */
export function of(type: string, name: string, journal?: string): Required<pulumi.dynamic.ResourceProvider> {
  return lazyProvider(() => runtimeEntry().providerFor(type, name, journal));
}
