/**
 * How the provider host finds a resource's provider. The engine stores a dynamic resource's
 * `__provider` text twice per resource (in its inputs and its outputs) and rewrites the whole
 * checkpoint after every step, so the text costs time at every step of every deployment; the host
 * evaluates it as a CommonJS module (require-from-string, from the program's directory) and calls
 * its `handler()` for the provider object.
 *
 * The SDK writes that text itself, one line: a `require` of the type's shim module,
 * `pulumi-cloudplatform/shims/<export>` (sdk/shims/<export>.ts), whose exports are the provider's
 * methods, each loading `pulumi-cloudplatform/provider` when first called and delegating to the
 * export of that name. Letting Pulumi serialize a provider object as a closure instead costs 267
 * bytes at best and a closure analysis per type in every program.
 *
 * Every text a version of this package ever wrote keeps working with every later version: the
 * shim modules and the `<type>Provider` exports of `pulumi-cloudplatform/provider` are never
 * renamed (0.1.0's closures load the latter by name; test/unit/serialization.test.ts).
 */
import type * as pulumi from "@pulumi/pulumi";

type Provider = pulumi.dynamic.ResourceProvider;

/** The provider exports that have a shim module under sdk/shims/. */
const shimExports = new Set([
  "apiKeyProvider",
  "dnsZoneProvider",
  "bucketProvider",
  "bucketCredentialProvider",
  "transcriptProvider",
]);

/** The `__provider` text of the resources served by `exportName` (`bucketProvider` for Bucket). */
export function providerText(exportName: string): string {
  if (!shimExports.has(exportName))
    throw new Error(`no provider shim for "${exportName}": add sdk/shims/${exportName}.ts`);
  return `exports.handler = () => require("pulumi-cloudplatform/shims/${exportName}");\n`;
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
