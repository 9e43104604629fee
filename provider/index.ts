/**
 * Runtime entry `pulumi-cloudplatform/provider`: what the provider texts stored in states `require`
 * in the provider host, and nothing else (docs/public-api.md). `providerFor(type, name, journal)`
 * serves the text of every resource the SDK declares (sdk/shim.ts); each `<type>Provider` serves the
 * texts of states written before that text named the resource (0.1.0's closures and the per-type
 * shims look them up by name). Neither is for programs, and neither is ever removed or renamed: a
 * state written by any earlier version calls them. The plugin, the lookups and the tools import
 * their modules by path, inside the package.
 *
 * @packageDocumentation
 */
// First: it speeds up loading every module below (compile-cache.ts).
import "./compile-cache.js";
import { toDynamicProvider } from "./dynamic.js";
import { apiKeyCore } from "./resources/api-key/core.js";
import { bucketCore } from "./resources/bucket/core.js";
import { bucketCredentialCore } from "./resources/bucket-credential/core.js";
import { dnsZoneCore } from "./resources/dns-zone/core.js";
import { transcriptCore } from "./resources/transcript/core.js";
import { engineAddress } from "./plugin/engine-address.js";
import { exitWithEngine } from "./plugin/engine-watch.js";

// Loaded by @pulumi/pulumi's dynamic provider host (`pulumi-resource-pulumi-nodejs`), which itself
// outlives a killed CLI: once our resources are served there, that process ends with its engine
// too (plugin/engine-watch.ts). Only there: a program or a test that imports this module is left alone.
if (/[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/.test(require.main?.filename ?? "")) {
  exitWithEngine(engineAddress(process.argv.slice(2)), "pulumi-resource-pulumi-nodejs (pulumi-cloudplatform)");
}

/** The provider of ApiKey resources whose stored text does not name them (learns each from its state). */
export const apiKeyProvider = toDynamicProvider(apiKeyCore);
/** The provider of DnsZone resources whose stored text does not name them. */
export const dnsZoneProvider = toDynamicProvider(dnsZoneCore);
/** The provider of Bucket resources whose stored text does not name them. */
export const bucketProvider = toDynamicProvider(bucketCore);
/** The provider of BucketCredential resources whose stored text does not name them. */
export const bucketCredentialProvider = toDynamicProvider(bucketCredentialCore);
/** The provider of Transcript resources whose stored text does not name them. */
export const transcriptProvider = toDynamicProvider(transcriptCore);

export { providerFor } from "./dynamic.js";
