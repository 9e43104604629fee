/* eslint-disable @typescript-eslint/no-require-imports -- the shim must load the provider lazily by package name */
/**
 * The provider object each resource class hands to `pulumi.dynamic.Resource`. Pulumi serializes it
 * into the state (`__provider`) and the provider host evaluates that text, so it must capture
 * nothing but the export name: every method loads `pulumi-cloudplatform/provider` inside its body
 * (resolved from the program's node_modules when the host runs) and delegates. No client, config or
 * secret is ever captured; old states keep working with new package versions.
 */
import type * as pulumi from "@pulumi/pulumi";

const shims = new Map<string, pulumi.dynamic.ResourceProvider>();

/**
 * The shim of one provider export, one object per export: Pulumi caches the serialized text per
 * provider object, so every resource of a type shares one serialization.
 */
export function providerShim(exportName: string): pulumi.dynamic.ResourceProvider {
  const existing = shims.get(exportName);
  if (existing !== undefined) return existing;
  const shim = newShim(exportName);
  shims.set(exportName, shim);
  return shim;
}

function newShim(exportName: string): pulumi.dynamic.ResourceProvider {
  const load = (): pulumi.dynamic.ResourceProvider =>
    (require("pulumi-cloudplatform/provider") as Record<string, pulumi.dynamic.ResourceProvider>)[exportName];
  return {
    configure: (req) => load().configure!(req),
    check: (olds, news) => load().check!(olds, news),
    diff: (id, olds, news) => load().diff!(id, olds, news),
    create: (inputs) => load().create(inputs),
    read: (id, props) => load().read!(id, props),
    update: (id, olds, news) => load().update!(id, olds, news),
    delete: (id, props) => load().delete!(id, props),
  };
}
