/** Shared setup of the unit tests: network disabled, a host whose settings point at fake hosts, instant retries. */
import nock from "nock";
import { afterEach, beforeEach } from "vitest";
import type { CallContext, Logger } from "../../provider/core.js";
import { Host, type HostOptions } from "../../provider/host.js";
import type { BucketOutputs } from "../../provider/resources/bucket.js";

export const base = "http://api.cloudplatform.test";
export const s3 = "http://s3.cloudplatform.test";
export const apiKey = "cp-unitTestKey_0123456789abcdef";
/** A bucket as the state holds it after create (the credential and plugin tests read it too). */
export const bucketState: BucketOutputs = {
  bucketId: "bkt_1",
  name: "logs",
  storageClass: "Standard",
  forceDestroy: false,
  adopt: false,
  adopted: false,
  s3Endpoint: s3,
  region: "us-east-1",
};

export const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlMTIzNDU2";

export interface Logged {
  readonly level: "info" | "warn" | "debug";
  readonly message: string;
}

export const quiet: Logger = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/** A logger that records what it is given. */
export function recorder(logs: Logged[]): Logger {
  return {
    info: (message) => void logs.push({ level: "info", message }),
    warn: (message) => void logs.push({ level: "warn", message }),
    debug: (message) => void logs.push({ level: "debug", message }),
  };
}

/** A host as the tests use it: nothing logged, instant retries, at most 4 attempts. */
export function testHost(options: Partial<HostOptions> = {}): Host {
  const instant = { now: Date.now, sleep: async () => undefined };
  return new Host({ logger: quiet, client: { clock: instant, retry: { maxAttempts: 4 } }, ...options });
}

let current: Host | undefined;

/** The host of the running test (`useApi` makes a fresh one for each test). */
export function host(): Host {
  return (current ??= testHost());
}

/** A call context of the test's host that records what it logs. */
export function ctx(name = "res", logs: Logged[] = [], type = "Test"): CallContext & { logs: Logged[] } {
  return Object.assign(host().context(type, name, recorder(logs)), { logs });
}

export function configureDefaults(extra: Record<string, string> = {}): void {
  host().configure({
    "cloudplatform:baseUrl": base,
    "cloudplatform:s3Url": s3,
    "cloudplatform:apiKey": apiKey,
    ...extra,
  });
}

/** Registers the hooks: every test starts with a fresh host with default settings, and no pending mocks. */
export function useApi(): void {
  beforeEach(() => {
    nock.disableNetConnect();
    current = testHost();
    configureDefaults();
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    if (pending.length > 0) throw new Error(`mocks not called: ${pending.join(", ")}`);
  });
}

/** Runs `fn` and returns what it threw (fails when it does not throw). */
export async function thrown(fn: () => Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await fn();
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error("expected a failure, got success");
}
