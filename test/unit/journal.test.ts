import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { journalKey } from "../../provider/contract.js";
import { FileJournal, journalDir, writerAlive, type JournalEntry } from "../../provider/journal.js";

const platform = "http://api.cloudplatform.test";
let root: string;
let dir: string;
let clock: number;
const journal = (onProblem?: (m: string) => void) => new FileJournal(dir, onProblem, () => clock);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "journal-test-"));
  dir = join(root, "stack");
  clock = Date.parse("2026-11-23T10:00:00Z");
});
afterEach(() => {
  chmodSync(root, 0o700);
  rmSync(root, { recursive: true, force: true });
});

describe("the recovery journal", () => {
  it("lives under PULUMI_HOME, one directory per stack, where earlier versions kept it", () => {
    const a = journalDir(journalKey("org/proj/dev"), { PULUMI_HOME: "/home/u/.pulumi-x" });
    // The directory of earlier versions (the first 16 hex digits of the stack name's SHA-256): an
    // interrupted run's journal is found by the version that runs next.
    const before = createHash("sha256").update("org/proj/dev").digest("hex").slice(0, 16);
    expect(a).toBe(`/home/u/.pulumi-x/cloudplatform/journal/${before}`);
    expect(journalDir(journalKey("org/proj/prod"), { PULUMI_HOME: "/home/u/.pulumi-x" })).not.toBe(a);
    expect(journalDir(journalKey("org/proj/dev"), {})).toContain(join(".pulumi", "cloudplatform", "journal"));
  });

  it("records a create before it is sent, then its id, keeping when it started and what it recorded", () => {
    const j = journal();
    j.creating("BucketCredential", "writer", platform, { bucketId: "b1", before: ["AK0"] });
    expect(j.find("BucketCredential", "writer", platform)).toMatchObject({
      state: "creating",
      bucketId: "b1",
      before: ["AK0"],
      at: clock,
      pid: process.pid,
      host: hostname(),
    });
    const started = clock;
    clock += 5_000;
    j.created("BucketCredential", "writer", platform, "AK1");
    expect(j.find("BucketCredential", "writer", platform)).toMatchObject({
      state: "created",
      id: "AK1",
      bucketId: "b1",
      before: ["AK0"],
      at: started,
    });
    // Written whole: no temporary file stays behind, and nothing but names and ids is in it.
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it("finds an entry only for its platform, type and logical name", () => {
    const j = journal();
    j.creating("Bucket", "logs", platform, { objectName: "logs-abcdefg" });
    expect(j.find("Bucket", "logs", "http://other.test")).toBeUndefined();
    expect(j.find("DnsZone", "logs", platform)).toBeUndefined();
    expect(j.find("Bucket", "other", platform)).toBeUndefined();
    expect(j.entries("http://other.test")).toEqual([]);
    expect(j.entries(platform)).toHaveLength(1);
  });

  it("forgets a create that was refused", () => {
    const j = journal();
    j.creating("Bucket", "logs", platform, { objectName: "logs" });
    j.forget("Bucket", "logs");
    expect(j.find("Bucket", "logs", platform)).toBeUndefined();
  });

  it("drops an entry once the state is seen holding its id, and only that id", () => {
    const j = journal();
    j.created("Bucket", "logs", platform, "bkt_1");
    j.held("Bucket", "logs", "bkt_other");
    expect(j.find("Bucket", "logs", platform)?.state).toBe("created");
    j.held("Bucket", "logs", "bkt_1");
    expect(j.find("Bucket", "logs", platform)).toBeUndefined();
  });

  it("drops an earlier run's entry, and its own written after it first looked (it lists the journal once)", () => {
    journal().created("Bucket", "logs", platform, "bkt_1");
    const next = journal();
    next.held("Bucket", "other", "bkt_2");
    next.held("Bucket", "logs", "bkt_1");
    expect(next.find("Bucket", "logs", platform)).toBeUndefined();
    next.created("Bucket", "mine", platform, "bkt_3");
    next.held("Bucket", "mine", "bkt_3");
    expect(next.find("Bucket", "mine", platform)).toBeUndefined();
  });

  it("keeps a held credential while another create on its bucket may need it to tell its own apart", () => {
    const j = journal();
    j.creating("BucketCredential", "cred-0", platform, { bucketId: "b1", before: [] });
    j.creating("BucketCredential", "cred-1", platform, { bucketId: "b1", before: [] });
    j.created("BucketCredential", "cred-1", platform, "AK1");
    j.held("BucketCredential", "cred-1", "AK1");
    expect(j.find("BucketCredential", "cred-1", platform)?.state).toBe("held");
    // cred-0's create settled: the held entry has done its job and goes at the next collection.
    j.created("BucketCredential", "cred-0", platform, "AK0");
    expect(
      journal()
        .entries(platform)
        .map((e) => e.name),
    ).toEqual(["cred-0"]);
  });

  it("tells creates on a bucket from what it read once and from its own writes since", () => {
    // Another process (a killed CLI's provider) was creating on b1 before this one first looked.
    journal().creating("BucketCredential", "cred-x", platform, { bucketId: "b1", before: [] });
    const j = journal();
    j.created("BucketCredential", "cred-1", platform, "AK1", { bucketId: "b1" });
    j.created("BucketCredential", "cred-2", platform, "AK2", { bucketId: "b2" });
    j.held("BucketCredential", "cred-1", "AK1");
    j.held("BucketCredential", "cred-2", "AK2");
    expect(j.find("BucketCredential", "cred-1", platform)?.state).toBe("held");
    expect(j.find("BucketCredential", "cred-2", platform)).toBeUndefined();
    // This process's own create on b2 counts from the moment it is recorded, and stops when it settles.
    j.creating("BucketCredential", "cred-3", platform, { bucketId: "b2", before: [] });
    j.created("BucketCredential", "cred-4", platform, "AK4", { bucketId: "b2" });
    j.held("BucketCredential", "cred-4", "AK4");
    expect(j.find("BucketCredential", "cred-4", platform)?.state).toBe("held");
    j.created("BucketCredential", "cred-3", platform, "AK3");
    j.created("BucketCredential", "cred-5", platform, "AK5", { bucketId: "b2" });
    j.held("BucketCredential", "cred-5", "AK5");
    expect(j.find("BucketCredential", "cred-5", platform)).toBeUndefined();
  });

  it("drops entries older than 7 days", () => {
    journal().creating("Bucket", "old", platform, { objectName: "old-abcdefg" });
    clock += 8 * 24 * 3600 * 1000;
    journal().creating("Bucket", "new", platform, { objectName: "new-abcdefg" });
    expect(
      journal()
        .entries(platform)
        .map((e) => e.name),
    ).toEqual(["new"]);
  });

  it("ignores a file that is not an entry", () => {
    const j = journal();
    j.creating("Bucket", "logs", platform, { objectName: "logs" });
    for (const f of readdirSync(dir)) writeFileSync(join(dir, f), "{ not json");
    expect(j.find("Bucket", "logs", platform)).toBeUndefined();
    expect(j.entries(platform)).toEqual([]);
  });

  it("does not fail the deployment when it cannot be written, and says once what to do instead", () => {
    if (process.getuid?.() === 0) {
      // root writes anywhere: make the journal's place a file, which no directory can be made under.
      writeFileSync(join(root, "blocked"), "");
      dir = join(root, "blocked", "stack");
    } else {
      chmodSync(root, 0o500);
    }
    const problems: string[] = [];
    const j = journal((m) => problems.push(m));
    j.creating("Bucket", "a", platform, { objectName: "a" });
    j.creating("Bucket", "b", platform, { objectName: "b" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("cannot write the recovery journal");
    expect(problems[0]).toContain("cloudplatform-recover");
  });

  it("knows whether the process that wrote an entry still runs on this machine", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    const entry = (pid: number, host = hostname()): JournalEntry => ({
      state: "creating",
      type: "Bucket",
      name: "x",
      platform,
      at: clock,
      pid,
      host,
    });
    try {
      expect(writerAlive(entry(child.pid as number))).toBe(true);
      expect(writerAlive(entry(child.pid as number, "another-machine"))).toBe(false);
      expect(writerAlive(entry(process.pid))).toBe(false);
    } finally {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    expect(writerAlive(entry(child.pid as number))).toBe(false);
  });

  it("waits while a live process of an interrupted run is still creating, and goes on when it ends", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    const entry: JournalEntry = {
      state: "creating",
      type: "BucketCredential",
      name: "cred-0",
      platform,
      at: clock,
      pid: child.pid as number,
      host: hostname(),
      bucketId: "b1",
      before: [],
    };
    const j = journal();
    j.creating("Bucket", "unrelated", platform, {});
    const file = readdirSync(dir)[0] as string;
    writeFileSync(join(dir, `other-${file}`), JSON.stringify(entry));
    const waited: number[] = [];
    let sleeps = 0;
    const fake = {
      now: () => sleeps * 250,
      sleep: async () => {
        sleeps++;
        if (sleeps === 3) child.kill("SIGKILL");
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    };
    await j.quiet(
      platform,
      (e) => e.bucketId === "b1",
      fake,
      (pid) => waited.push(pid),
    );
    expect(waited).toEqual([child.pid]);
    expect(sleeps).toBeGreaterThanOrEqual(3);
    // Another bucket's create is none of its business.
    const before = sleeps;
    await j.quiet(
      platform,
      (e) => e.bucketId === "b2",
      fake,
      () => undefined,
    );
    expect(sleeps).toBe(before);
    expect(JSON.parse(readFileSync(join(dir, `other-${file}`), "utf8"))).toMatchObject({ name: "cred-0" });
  });
});
