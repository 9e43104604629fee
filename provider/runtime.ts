/**
 * The process-wide client: built from the settings read at call time, rebuilt when they change
 * (e.g. after the provider rotated its own API key), with options a test can inject.
 */
import { ApiClient, type ClientOptions } from "./client.js";
import { hostLookup, resolveSettings, type ConfigLookup } from "./config.js";

let options: ClientOptions = {};
let cached: { key: string; client: ApiClient } | undefined;

/** For tests: a dispatcher, fast retries, a fake clock. */
export function setClientOptions(next: ClientOptions): void {
  options = next;
  cached = undefined;
}

export function getClient(lookup: ConfigLookup = hostLookup, onWarning?: (message: string) => void): ApiClient {
  const settings = resolveSettings(lookup, onWarning);
  const key = JSON.stringify(settings);
  if (cached === undefined || cached.key !== key) {
    cached = {
      key,
      client: new ApiClient(settings, { ...options, ...(onWarning && !options.onRetry ? { onRetry: onWarning } : {}) }),
    };
  }
  return cached.client;
}
