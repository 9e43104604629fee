/** Shared setup of the unit tests: network disabled, settings pointing at fake hosts, instant retries. */
import nock from "nock";
import { afterEach, beforeEach } from "vitest";
import { resetConfigState, setConfiguredValues } from "../../provider/config.js";
import type { CallContext } from "../../provider/core.js";
import type { BucketOutputs } from "../../provider/resources/bucket.js";
import { setClientOptions } from "../../provider/runtime.js";
import { clearCredentialListCache } from "../../provider/resources/credentialList.js";

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

/** A call context that records what it logs. */
export function ctx(name = "res", logs: Logged[] = []): CallContext & { logs: Logged[] } {
  return {
    name,
    preview: false,
    logs,
    log: {
      info: (message) => logs.push({ level: "info", message }),
      warn: (message) => logs.push({ level: "warn", message }),
      debug: (message) => logs.push({ level: "debug", message }),
    },
  };
}

export function configureDefaults(extra: Record<string, string> = {}): void {
  setConfiguredValues({
    "cloudplatform:baseUrl": base,
    "cloudplatform:s3Url": s3,
    "cloudplatform:apiKey": apiKey,
    ...extra,
  });
}

/** Registers the hooks: every test starts with default settings and no pending mocks. */
export function useApi(): void {
  beforeEach(() => {
    nock.disableNetConnect();
    resetConfigState();
    clearCredentialListCache();
    configureDefaults();
    setClientOptions({ sleep: async () => undefined, retry: { maxAttempts: 4 } });
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
