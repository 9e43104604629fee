// One real emulator per test file, and the management API called directly, as someone outside Pulumi
// would. Its inspection endpoints (docs/api-contract.md §9): test/support/platform.mts.
import { silentLogger, startEmulator, type RunningEmulator } from "../../emulator/src/index.js";
import { Host } from "../../provider/host.js";
import type { Config } from "./runner.js";

export type Emulator = RunningEmulator;

export function launchEmulator(): Promise<Emulator> {
  return startEmulator({ logger: silentLogger });
}

/** Stack config pointing the provider at the emulator (credentials as secrets). */
export function providerConfig(emulator: Emulator, auth: "apiKey" | "token" = "apiKey"): Config {
  return {
    "cloudplatform:baseUrl": { value: emulator.baseUrl },
    "cloudplatform:s3Url": { value: emulator.s3Url },
    "cloudplatform:apiUrl": { value: emulator.apiUrl },
    ...(auth === "apiKey"
      ? { "cloudplatform:apiKey": { value: emulator.apiKey, secret: true } }
      : { "cloudplatform:token": { value: emulator.token, secret: true } }),
  };
}

/**
 * A provider host configured for the emulator as the engine would configure it, silent: for calls
 * through the resource cores and the API, outside the engine.
 */
export function hostFor(emulator: Emulator): Host {
  const host = new Host({ logger: { info: () => undefined, warn: () => undefined, debug: () => undefined } });
  host.configure({ "cloudplatform:baseUrl": emulator.baseUrl, "cloudplatform:apiKey": emulator.apiKey });
  return host;
}

/** The management API as a person with the dashboard token would use it (never the API key: a test may rotate it). */
export async function management(emulator: Emulator, method: string, path: string, body?: object): Promise<Response> {
  const authorization = `Bearer ${emulator.token}`;
  if (body === undefined) return fetch(`${emulator.baseUrl}${path}`, { method, headers: { authorization } });
  const headers = { authorization, "content-type": "application/json" };
  return fetch(`${emulator.baseUrl}${path}`, { method, headers, body: JSON.stringify(body) });
}

export async function bucketIdByName(emulator: Emulator, name: string): Promise<string> {
  const response = await management(emulator, "GET", `/object-storage/buckets?name=${encodeURIComponent(name)}`);
  const buckets = (await response.json()) as Array<{ id: string; name: string }>;
  const bucket = buckets.find((b) => b.name === name);
  if (!bucket) throw new Error(`no bucket named ${name} on the emulator`);
  return bucket.id;
}
