/**
 * How the provider host finds a resource's provider. The engine stores a dynamic resource's
 * `__provider` text twice per resource (in its inputs and its outputs) and rewrites the whole
 * checkpoint after every step, so the text costs time at every step of every deployment; the host
 * evaluates it as a CommonJS module (require-from-string, from the program's directory), calls its
 * `handler()` for the provider object, and configures it once per distinct text.
 *
 * The SDK writes that text itself, one line that names the resource:
 *
 *     exports.handler=()=>require("pulumi-cloudplatform/shims/resource").of("Bucket","logs","<journal key>")
 *
 * `of` (sdk/shims/resource.ts) returns a provider whose methods load `pulumi-cloudplatform/provider`
 * when first called and delegate to `providerFor(type, name, journal key)`. Dynamic providers are
 * not told the URN: the text is what tells every call, read and delete included (which get only the
 * state), which resource of which stack it is about, so the bags themselves carry no such keys. The
 * journal key is the stack's (provider/contract.ts `journalKey`), absent outside a deployment. Letting
 * Pulumi serialize a provider object as a closure instead costs 267 bytes at best and a closure
 * analysis per type in every program.
 *
 * Every text a version of this package ever wrote keeps working with every later version: the
 * shim modules and the `<type>Provider` exports of `pulumi-cloudplatform/provider` are never
 * renamed (0.1.0's closures load the latter by name; the per-type shim modules,
 * `pulumi-cloudplatform/shims/<type>Provider`, served the texts before they named the resource;
 * test/unit/serialization.test.ts).
 */
import type * as pulumi from "@pulumi/pulumi";

type Provider = pulumi.dynamic.ResourceProvider;

/** The `__provider` text of the resource `name` of type `type` (`Bucket`), on the stack whose journal key is `journal`. */
export function providerText(type: string, name: string, journal: string | undefined): string {
  const args = [type, name, ...(journal === undefined ? [] : [journal])].map((a) => JSON.stringify(a)).join(",");
  return `exports.handler=()=>require("pulumi-cloudplatform/shims/resource").of(${args})`;
}

/** A provider whose every method calls `load()` for the provider it delegates to, when first called. */
export function lazyProvider(load: () => Provider): Required<Provider> {
  let loaded: Provider | undefined;
  const get = (): Provider => (loaded ??= load());
  return {
    configure: (req) => get().configure!(req),
    check: (olds, news) => get().check!(olds, news),
    diff: (id, olds, news) => get().diff!(id, olds, news),
    create: (inputs) => get().create(inputs),
    read: (id, props) => get().read!(id, props),
    update: (id, olds, news) => get().update!(id, olds, news),
    delete: (id, props) => get().delete!(id, props),
  };
}

/** What `pulumi-cloudplatform/provider` exports to the shims. */
interface RuntimeEntry {
  providerFor(type: string, name: string, journal?: string): Provider;
  [exportName: string]: unknown;
}

/** The runtime entry, by package name: resolved from where the host evaluates the text. */
export function runtimeEntry(): RuntimeEntry {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when called, by package name
  return require("pulumi-cloudplatform/provider") as RuntimeEntry;
}

/**
 * The provider of the per-type shim modules (`<type>Provider`), which serve the texts written
 * before the text named the resource: the resource comes from the state's host keys.
 */
export function newShim(exportName: string): Required<Provider> {
  return lazyProvider(() => runtimeEntry()[exportName] as Provider);
}
