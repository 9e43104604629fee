/** Shared setup of the unit tests: network disabled, a host whose settings point at fake hosts, instant retries. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterEach, beforeEach } from "vitest";
import { journalKey, type CallContext, type Logger } from "../../provider/contract.js";
import { Host, type HostOptions } from "../../provider/host.js";
import { FileJournal, noJournal } from "../../provider/journal.js";
import type { BucketOutputs } from "../../provider/resources/bucket/core.js";

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

/**
 * A host as the tests use it: nothing logged, instant retries, at most 4 attempts, and no recovery
 * journal (tests of the journal give one in a temporary directory).
 */
export function testHost(options: Partial<HostOptions> = {}): Host {
  const instant = { now: Date.now, sleep: async () => undefined };
  return new Host({
    logger: quiet,
    client: { clock: instant, retry: { maxAttempts: 4 } },
    journal: () => noJournal,
    ...options,
  });
}

let current: Host | undefined;
let currentJournal: FileJournal | undefined;

/** The host of the running test (`useApi` makes a fresh one for each test). */
export function host(): Host {
  return (current ??= testHost());
}

/** The recovery journal of the running test's stack `stack` (`useApi` gives each test an empty one). */
export function journal(): FileJournal {
  if (currentJournal === undefined) throw new Error("journal() needs useApi()");
  return currentJournal;
}

/** The stack a context of `ctx` belongs to when it uses the test's journal, and its journal key. */
export const stack = "organization/project/dev";
export const stackJournal = journalKey(stack);

/**
 * A call context of the test's host that records what it logs. With `withStack`, the call belongs
 * to `stack`, whose journal is the test's (`journal()`); without, it has none.
 */
export function ctx(
  name = "res",
  logs: Logged[] = [],
  type = "Test",
  withStack = false,
): CallContext & { logs: Logged[] } {
  return Object.assign(host().context(type, name, recorder(logs), withStack ? stackJournal : ""), { logs });
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
    const journalled = new FileJournal(mkdtempSync(join(tmpdir(), "cloudplatform-journal-")));
    currentJournal = journalled;
    current = testHost({ journal: (key) => (key === stackJournal ? journalled : noJournal) });
    configureDefaults();
  });
  afterEach(() => {
    if (currentJournal !== undefined) rmSync(currentJournal.dir, { recursive: true, force: true });
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
