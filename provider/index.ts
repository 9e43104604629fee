/**
 * Runtime entry `pulumi-cloudplatform/provider`: what the serialized provider shims of the SDK
 * `require` in the provider host, plus the lookup functions and the building blocks for other hosts.
 * `providerFor(type, name, journal)` serves the provider text of every resource the SDK declares
 * (sdk/shim.ts); each `<type>Provider` serves the texts of states written before that text named
 * the resource (the per-type shims look them up by name).
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

export const apiKeyProvider = toDynamicProvider(apiKeyCore);
export const dnsZoneProvider = toDynamicProvider(dnsZoneCore);
export const bucketProvider = toDynamicProvider(bucketCore);
export const bucketCredentialProvider = toDynamicProvider(bucketCredentialCore);
export const transcriptProvider = toDynamicProvider(transcriptCore);

export { configure, providerFor, toDynamicProvider } from "./dynamic.js";
export { nameKey } from "./contract.js";
export { Host } from "./host.js";
export type { HostOptions } from "./host.js";
export { apiKeyCore, bucketCore, bucketCredentialCore, dnsZoneCore };
export * from "./functions.js";
export * from "./errors.js";
export { ApiClient, closePools, pathOf } from "./client.js";
export type { ApiResponse, Base, ClientOptions, HttpMethod, RequestOptions } from "./client.js";
export { resolveSettings } from "./config.js";
export type { Settings } from "./config.js";
