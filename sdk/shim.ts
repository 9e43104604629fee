/**
 * The provider object each resource class hands to `pulumi.dynamic.Resource`. Pulumi serializes it
 * into the state (`__provider`, stored twice per resource: in its inputs and its outputs) and the
 * provider host evaluates that text, so it captures nothing the host could load by itself.
 *
 * Each type's provider object is the exports object of its own module, `sdk/shims/<export>.ts`
 * (whose exports are the provider's methods), which the package exports as
 * `pulumi-cloudplatform/shims/<export>`. Pulumi writes a value that is a
 * module under node_modules as a `require` of that module, so the state holds only
 * `require("pulumi-cloudplatform/shims/bucketProvider")` and a few lines around it. Where the
 * package is not under node_modules (a `file:` link), Pulumi copies the object by value instead:
 * methods that each load `pulumi-cloudplatform/provider` and delegate to the export of that name.
 *
 * Both texts keep working with every later version of the package: the shim modules and the
 * `<type>Provider` exports of `pulumi-cloudplatform/provider` are never renamed (older states load
 * the latter by name).
 */
import type * as pulumi from "@pulumi/pulumi";

type Provider = pulumi.dynamic.ResourceProvider;

// The shim modules import newShim from here: a cycle that is safe, as CommonJS exports a function
// declaration before this module's first require.
import * as apiKeyProvider from "./shims/apiKeyProvider.js";
import * as bucketCredentialProvider from "./shims/bucketCredentialProvider.js";
import * as bucketProvider from "./shims/bucketProvider.js";
import * as dnsZoneProvider from "./shims/dnsZoneProvider.js";
import * as transcriptProvider from "./shims/transcriptProvider.js";

/** The shim modules' exports, by the provider export they delegate to. */
const shimModules: Readonly<Record<string, Provider>> = {
  apiKeyProvider,
  dnsZoneProvider,
  bucketProvider,
  bucketCredentialProvider,
  transcriptProvider,
};

/**
 * The shim of one provider export, one object per export: Pulumi caches the serialized text per
 * provider object, so every resource of a type shares one serialization.
 */
export function providerShim(exportName: string): Provider {
  const shim = shimModules[exportName];
  if (shim === undefined) throw new Error(`no provider shim for "${exportName}": add sdk/shims/${exportName}.ts`);
  return shim;
}

/** A provider whose every method loads `pulumi-cloudplatform/provider` when called and delegates. */
export function newShim(exportName: string): Required<Provider> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when called, by package name
  const load = (): Provider => (require("pulumi-cloudplatform/provider") as Record<string, Provider>)[exportName];
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
