// RotatingBucketCredential's core: check, the schedule decided in diff with an injected clock, the
// slots' create, rotation, repair and refresh against a mocked API (and S3 plane), and its creates
// exactly once across an interrupted run (the recovery journal, one entry per slot).
import nock from "nock";
import { describe, expect, it } from "vitest";
import type { CallContext } from "../../provider/contract.js";
import { noJournal } from "../../provider/journal.js";
import { fingerprint } from "../../provider/redact.js";
import { bucketCredentialCore } from "../../provider/resources/bucket-credential/core.js";
import {
  rotatingBucketCredentialCore as core,
  type RotatingBucketCredentialInputs,
  type RotatingBucketCredentialOutputs,
} from "../../provider/resources/rotating-bucket-credential/core.js";
import { durationOf, planOf } from "../../provider/resources/rotating-bucket-credential/slots.js";
import { unknownValue } from "../../provider/vocabulary.js";
import { apiKey, base, journal, recorder, s3, stackJournal, testHost, thrown, useApi, type Logged } from "./support.js";

type Outputs = RotatingBucketCredentialOutputs;
type Inputs = RotatingBucketCredentialInputs;

const type = "RotatingBucketCredential";
const creds = "/object-storage/buckets/bkt_1/credentials";
const secret = (n: number) => `RotationSecret-${n}-0123456789abcdef`;
const day = 86_400_000;
const t0 = Date.parse("2026-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A call of a fresh provider process (its own host: nothing learned yet) at `now`, belonging to the
 * test's stack, whose journal is the test's.
 */
function at(now: number, logs: Logged[] = [], name = "app"): CallContext & { logs: Logged[] } {
  const host = testHost({
    clock: { now: () => now, sleep: async () => undefined },
    journal: (key) => (key === stackJournal ? journal() : noJournal),
  });
  host.configure({ "cloudplatform:baseUrl": base, "cloudplatform:s3Url": s3, "cloudplatform:apiKey": apiKey });
  return Object.assign(host.context(type, name, recorder(logs), stackJournal), { logs });
}

const inputs: Inputs = { bucketId: "bkt_1", rotateAfter: "30d" };

/** The state right after a create at t0: AKA current in slot a, AKB previous in slot b. */
const state: Outputs = {
  bucketId: "bkt_1",
  rotateAfter: "30d",
  currentSlot: "a",
  accessKeyId: "AKA",
  secretAccessKey: secret(1),
  secretFingerprint: fingerprint(secret(1)),
  secretKnown: true,
  status: "active",
  previousAccessKeyId: "AKB",
  previousSecretAccessKey: secret(2),
  previousSecretFingerprint: fingerprint(secret(2)),
  previousSecretKnown: true,
  previousStatus: "active",
  bucketName: "logs",
  s3Endpoint: s3,
  region: "us-east-1",
  rotations: 0,
  rotatedAt: iso(t0),
  nextRotationAt: iso(t0 + 30 * day),
};

/** `state` after its first rotation at `ms`: AKB current with secret 3, AKA previous. */
const firstRotatedAt = (ms: number): Outputs => ({
  ...state,
  currentSlot: "b",
  accessKeyId: "AKB",
  secretAccessKey: secret(3),
  secretFingerprint: fingerprint(secret(3)),
  previousAccessKeyId: "AKA",
  previousSecretAccessKey: secret(1),
  previousSecretFingerprint: fingerprint(secret(1)),
  rotations: 1,
  rotatedAt: iso(ms),
  nextRotationAt: iso(ms + 30 * day),
});

const messages = (logs: readonly Logged[]) => logs.map((l) => l.message).join("\n");

describe("RotatingBucketCredential check", () => {
  useApi();
  const check = (news: Record<string, unknown>) => core.check(at(t0), undefined, news as never);
  const problems = (news: Record<string, unknown>) => check(news).failures.map((f) => `${f.property}: ${f.reason}`);

  it("requires bucketId and keeps what the program set", () => {
    expect(problems({})).toEqual(["bucketId: bucketId is required: pass a Bucket's bucketId output"]);
    expect(check({ bucketId: "bkt_1", rotateAfter: "30d", rotateWhenChanged: { v: 1 } })).toEqual({
      inputs: { bucketId: "bkt_1", rotateAfter: "30d", rotateWhenChanged: { v: "1" } },
      failures: [],
    });
  });

  it("reads durations as a whole number and a unit, and refuses anything else at preview", () => {
    expect(durationOf("30d")).toBe(30 * day);
    expect(durationOf("12h")).toBe(12 * 3_600_000);
    expect(durationOf("1d12h")).toBe(36 * 3_600_000);
    expect(durationOf("2w")).toBe(14 * day);
    expect(durationOf("90m")).toBe(90 * 60_000);
    for (const bad of ["30", "1.5h", "30s", "-1d", "d", ""]) expect(durationOf(bad)).toHaveProperty("problem");
    expect(durationOf("0m")).toEqual({ problem: 'must be at least one minute (got "0m")' });
    expect(durationOf("3651d")).toHaveProperty("problem");
    expect(problems({ bucketId: "b", rotateAfter: "30 days" })).toEqual([
      'rotateAfter: rotateAfter must be a whole number and a unit, m (minutes), h, d or w, e.g. "30d" or "12h" (got "30 days")',
    ]);
    expect(problems({ bucketId: "b", deactivatePreviousAfter: 7 })[0]).toContain("must be a string");
  });

  it("refuses a grace period that is not shorter than the rotation period", () => {
    expect(problems({ bucketId: "b", rotateAfter: "7d", deactivatePreviousAfter: "1w" })[0]).toMatch(
      /^deactivatePreviousAfter: deactivatePreviousAfter \(1w\) must be shorter than rotateAfter \(7d\)/,
    );
    expect(problems({ bucketId: "b", rotateAfter: "7d", deactivatePreviousAfter: "6d" })).toEqual([]);
  });

  it("reads minimumOverlap as a duration that may be 0m, no longer than rotateAfter and deactivatePreviousAfter", () => {
    expect(durationOf("0m", true)).toBe(0);
    expect(durationOf("0h0m", true)).toBe(0);
    expect(check({ bucketId: "b", minimumOverlap: "0m" })).toEqual({
      inputs: { bucketId: "b", minimumOverlap: "0m" },
      failures: [],
    });
    expect(problems({ bucketId: "b", minimumOverlap: "1 hour" })).toEqual([
      'minimumOverlap: minimumOverlap must be a whole number and a unit, m (minutes), h, d or w, e.g. "30d" or "12h" (got "1 hour")',
    ]);
    expect(problems({ bucketId: "b", rotateAfter: "1h", minimumOverlap: "2h" })).toEqual([
      "minimumOverlap: minimumOverlap (2h) must not be longer than rotateAfter (1h): every scheduled rotation would " +
        "wait for it; shorten it or leave it out",
    ]);
    expect(
      problems({ bucketId: "b", rotateAfter: "30d", deactivatePreviousAfter: "30m", minimumOverlap: "1h" })[0],
    ).toMatch(
      /^minimumOverlap: minimumOverlap \(1h\) must not be longer than deactivatePreviousAfter \(30m\): the previous pair stops/,
    );
    expect(
      problems({ bucketId: "b", rotateAfter: "1h", deactivatePreviousAfter: "30m", minimumOverlap: "30m" }),
    ).toEqual([]);
    // Left out, the default (1h) is shortened to fit instead of refused.
    expect(problems({ bucketId: "b", rotateAfter: "2m", deactivatePreviousAfter: "1m" })).toEqual([]);
  });

  it("takes over one or two different access key ids, nothing else", () => {
    expect(check({ bucketId: "b", takeOver: ["AK1"] }).inputs.takeOver).toEqual(["AK1"]);
    expect(problems({ bucketId: "b", takeOver: ["AK1", "AK2"] })).toEqual([]);
    for (const bad of [[], ["AK1", "AK2", "AK3"], ["AK1", "AK1"], [""], "AK1", [7]]) {
      expect(problems({ bucketId: "b", takeOver: bad })[0], JSON.stringify(bad)).toMatch(/^takeOver: /);
    }
  });

  it("lets values unknown at preview through, unvalidated", () => {
    const r = check({ bucketId: unknownValue, rotateAfter: unknownValue, takeOver: [unknownValue] });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ bucketId: unknownValue, rotateAfter: unknownValue });
  });

  it("refuses a property it does not have", () => {
    expect(problems({ bucketId: "b", active: false })[0]).toMatch(/^active: RotatingBucketCredential has no property/);
  });
});

describe("RotatingBucketCredential diff: what is due, from the state and the clock", () => {
  useApi();
  const diff = (now: number, news: Inputs = inputs, olds: Outputs = state, logs: Logged[] = []) =>
    core.diff(at(now, logs), "id", olds, news);

  it("plans nothing before the rotation is due, and logs nothing", () => {
    const logs: Logged[] = [];
    expect(diff(t0 + 30 * day - 1, inputs, state, logs)).toMatchObject({ changes: false, changed: [] });
    expect(logs).toEqual([]);
  });

  it("plans the rotation once rotateAfter has passed, naming the slot whose secret changes by its fingerprint", () => {
    const logs: Logged[] = [];
    expect(diff(t0 + 30 * day, inputs, state, logs)).toMatchObject({
      changes: true,
      replaces: [],
      changed: ["currentSlot"],
    });
    const said = messages(logs);
    expect(said).toContain("rotation due (rotateAfter 30d");
    expect(said).toContain(
      `regenerates the secret of the previous credential AKB (slot b, secret fingerprint ${fingerprint(secret(2))}) and makes slot b current`,
    );
    expect(said).toContain(
      `the current credential AKA (slot a, secret fingerprint ${fingerprint(secret(1))}) stays valid as the previous credential`,
    );
    expect(said).not.toContain(secret(1));
    expect(said).not.toContain(secret(2));
  });

  it("plans a rotation for a changed rotateWhenChanged whatever the clock says", () => {
    const olds = { ...state, rotateWhenChanged: { v: "1" } };
    expect(diff(t0 + day, { ...inputs, rotateWhenChanged: { v: "1" } }, olds).changes).toBe(false);
    const logs: Logged[] = [];
    expect(diff(t0 + day, { ...inputs, rotateWhenChanged: { v: "2" } }, olds, logs).changed).toEqual([
      "rotateWhenChanged",
      "currentSlot",
    ]);
    expect(messages(logs)).toContain("rotation due (rotateWhenChanged changed)");
  });

  it("updates a changed schedule in place without rotating before it is due", () => {
    const logs: Logged[] = [];
    expect(diff(t0 + day, { ...inputs, rotateAfter: "60d" }, state, logs)).toMatchObject({
      changes: true,
      changed: ["rotateAfter"],
    });
    expect(logs).toEqual([]);
    // A shorter period already passed rotates now.
    expect(diff(t0 + 2 * day, { ...inputs, rotateAfter: "1d" }).changed).toEqual(["rotateAfter", "currentSlot"]);
  });

  it("plans the previous credential's deactivation once its grace period has passed, and then nothing", () => {
    const news = { ...inputs, deactivatePreviousAfter: "7d" };
    const olds = { ...state, deactivatePreviousAfter: "7d" };
    expect(diff(t0 + 7 * day - 1, news, olds).changes).toBe(false);
    const logs: Logged[] = [];
    expect(diff(t0 + 7 * day, news, olds, logs).changed).toEqual(["previousStatus"]);
    expect(messages(logs)).toContain("deactivatePreviousAfter 7d has passed since the last rotation");
    expect(diff(t0 + 8 * day, news, { ...olds, previousStatus: "inactive" }).changes).toBe(false);
  });

  it("plans a repair for a credential deleted, deactivated or regenerated outside Pulumi", () => {
    expect(diff(t0 + day, inputs, { ...state, previousStatus: "missing" }).changed).toEqual(["previousStatus"]);
    expect(diff(t0 + day, inputs, { ...state, status: "inactive" }).changed).toEqual(["status"]);
    expect(diff(t0 + day, inputs, { ...state, status: "secretLost", secretKnown: false }).changed).toEqual(["status"]);
  });

  it("takes takeOver at create only, and replaces both for another bucket", () => {
    expect(diff(t0 + day, { ...inputs, takeOver: ["AKX"] }).changes).toBe(false);
    expect(diff(t0 + day, { ...inputs, bucketId: "bkt_2" })).toMatchObject({ changes: true, replaces: ["bucketId"] });
  });

  it("orders the work: repairs first, the current credential's only when it does not work, then the rotation", () => {
    const olds: Outputs = { ...state, status: "inactive", previousStatus: "missing" };
    expect(planOf(olds, inputs, t0 + 31 * day).map((w) => `${w.kind} ${"role" in w ? w.role : ""}`.trim())).toEqual([
      "activate current",
      "create previous",
      "rotate",
    ]);
    // A rotation regenerates and activates the previous credential itself.
    expect(planOf({ ...state, previousStatus: "secretLost" }, inputs, t0 + 31 * day).map((w) => w.kind)).toEqual([
      "rotate",
    ]);
  });
});

describe("RotatingBucketCredential minimumOverlap: a pair made previous is not regenerated too soon", () => {
  useApi();
  const hour = 3_600_000;
  const t1 = t0 + day;
  /** The state right after the first rotation at t1, for rotateWhenChanged v=1. */
  const rotated: Outputs = { ...firstRotatedAt(t1), rotateWhenChanged: { v: "1" } };
  const asked: Inputs = { ...inputs, rotateWhenChanged: { v: "2" } };
  const kinds = (olds: Outputs, news: Inputs, now: number) => planOf(olds, news, now).map((w) => w.kind);

  it("holds a rotation asked for less than an hour after the last one: a warning, no change, nothing asked of the platform", async () => {
    expect(planOf(rotated, asked, t1 + hour - 1)).toEqual([
      { kind: "waitForOverlap", reason: "rotateWhenChanged changed", until: iso(t1 + hour), overlap: "1h" },
    ]);
    const logs: Logged[] = [];
    expect(core.diff(at(t1 + 60_000, logs), "id", rotated, asked)).toMatchObject({ changes: false, changed: [] });
    expect(logs).toEqual([
      {
        level: "warn",
        message:
          `RotatingBucketCredential "app": rotation due (rotateWhenChanged changed) waits until ${iso(t1 + hour)}: the previous credential AKA ` +
          `(slot a, secret fingerprint ${fingerprint(secret(1))}) became previous at ${iso(t1)}, less than ` +
          "minimumOverlap 1h ago, and applications may still use it (after an up that failed, the stack's outputs " +
          "still give it). The first up after that time rotates, with no change needed; a shorter minimumOverlap " +
          '("0m": no wait) lets it rotate sooner.',
      },
    ]);
    // An update for another change meanwhile (no mock: a call to the platform would fail the test)
    // keeps the rotateWhenChanged last rotated for, so the rotation stays due.
    const outs = await core.update(at(t1 + 60_000), "id", rotated, { ...asked, rotateAfter: "60d" });
    expect(outs).toEqual({ ...rotated, rotateAfter: "60d", nextRotationAt: iso(t1 + 60 * day) });
    expect(kinds(outs, asked, t1 + hour - 1)).toEqual(["waitForOverlap"]);
  });

  it("rotates at the first up once the overlap has passed, with no further change", async () => {
    const logs: Logged[] = [];
    expect(core.diff(at(t1 + hour, logs), "id", rotated, asked).changed).toEqual(["rotateWhenChanged", "currentSlot"]);
    expect(messages(logs)).toContain("rotation due (rotateWhenChanged changed): this update regenerates the secret of");
    nock(base)
      .post(`${creds}/AKA/regenerate`)
      .reply(200, { access_key_id: "AKA", secret_access_key: secret(4) })
      .post(`${creds}/AKA/activate`)
      .reply(200, { access_key_id: "AKA", active: true });
    const outs = await core.update(at(t1 + hour), "id", rotated, asked);
    expect(outs).toMatchObject({ accessKeyId: "AKA", rotateWhenChanged: { v: "2" }, rotations: 2 });
    expect(planOf(outs, asked, t1 + hour)).toEqual([]);
  });

  it('lets "0m" rotate at once, and a set duration decide the wait', () => {
    expect(kinds(rotated, { ...asked, minimumOverlap: "0m" }, t1)).toEqual(["rotate"]);
    expect(planOf(rotated, { ...asked, minimumOverlap: "10m" }, t1 + 60_000)).toEqual([
      { kind: "waitForOverlap", reason: "rotateWhenChanged changed", until: iso(t1 + 600_000), overlap: "10m" },
    ]);
    expect(kinds(rotated, { ...asked, minimumOverlap: "10m" }, t1 + 600_000)).toEqual(["rotate"]);
  });

  it("shortens the default to a shorter deactivatePreviousAfter or rotateAfter", () => {
    const news = { ...asked, deactivatePreviousAfter: "20m" };
    expect(planOf(rotated, news, t1)).toEqual([
      { kind: "waitForOverlap", reason: "rotateWhenChanged changed", until: iso(t1 + 1_200_000), overlap: "20m" },
    ]);
    // A scheduled rotation is never held by the default: it comes after it.
    expect(kinds(rotated, { ...inputs, rotateWhenChanged: { v: "1" }, rotateAfter: "2m" }, t1 + 120_000)).toEqual([
      "rotate",
    ]);
  });

  it("never holds the first rotation, nor one of a previous credential that works for no one", () => {
    expect(kinds({ ...state, rotateWhenChanged: { v: "1" } }, asked, t0)).toEqual(["rotate"]);
    for (const previousStatus of ["inactive", "missing", "secretLost"] as const) {
      expect(kinds({ ...rotated, previousStatus }, asked, t1).at(-1), previousStatus).toBe("rotate");
    }
  });
});

/** The bucket's name, read by a process that has not seen the bucket. */
const bucketRead = () => nock(base).get("/object-storage/buckets/bkt_1").reply(200, { id: "bkt_1", name: "logs" });

describe("RotatingBucketCredential create", () => {
  useApi();

  it("creates two credentials, the one in slot a current, with their fingerprints and the schedule", async () => {
    bucketRead();
    nock(base)
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "AKA", secret_access_key: secret(1), active: true })
      .post(creds)
      .reply(201, { access_key_id: "AKB", secret_access_key: secret(2), active: true });
    const r = await core.create(at(t0), inputs);
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.outs).toEqual(state);
    // One journal entry per slot, each with its credential's id.
    expect(journal().find(type, "app#a", base)).toMatchObject({ state: "created", id: "AKA" });
    expect(journal().find(type, "app#b", base)).toMatchObject({ state: "created", id: "AKB", before: ["AKA"] });
  });

  it("keeps the first credential as partial state when the second cannot be created; the next up creates it", async () => {
    bucketRead();
    nock(base)
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "AKA", secret_access_key: secret(1) })
      .post(creds)
      .reply(403, { error: { code: "forbidden", message: "quota" } });
    const err = await thrown(() => core.create(at(t0), inputs));
    expect(err.code).toBe("CLOUDPLATFORM_PARTIAL");
    const partial = err["outs"] as Outputs;
    expect(partial).toMatchObject({ accessKeyId: "AKA", status: "active", previousAccessKeyId: "" });
    expect(partial.previousStatus).toBe("missing");
    expect(planOf(partial, inputs, t0)).toEqual([{ kind: "create", role: "previous" }]);
  });

  it("fails plainly, keeping no state, when it made nothing", async () => {
    bucketRead();
    nock(base)
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(403, { error: { code: "forbidden", message: "no" } });
    const err = await thrown(() => core.create(at(t0), inputs));
    expect(err.code).toBe("CLOUDPLATFORM_UNAUTHORIZED");
  });

  it("takes over an existing credential as the current one, unchanged, its secret unknown", async () => {
    bucketRead();
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AKX", active: true }])
      .get(creds)
      .reply(200, [{ access_key_id: "AKX", active: true }])
      .post(creds)
      .reply(201, { access_key_id: "AKB", secret_access_key: secret(2) });
    const logs: Logged[] = [];
    const r = await core.create(at(t0, logs), { ...inputs, takeOver: ["AKX"] });
    expect(r.outs).toMatchObject({
      takeOver: ["AKX"],
      accessKeyId: "AKX",
      secretAccessKey: "",
      secretFingerprint: "",
      secretKnown: false,
      status: "active",
      previousAccessKeyId: "AKB",
      previousSecretKnown: true,
    });
    expect(messages(logs)).toContain("took over credential AKX unchanged");
    // Nothing was asked of AKX (no regenerate, no activate: nock refuses unmocked requests).
  });

  it("takes over two, and activates one that was deactivated: a current or previous credential must work", async () => {
    bucketRead();
    // One list for both: the second take-over finds its credential in the list the first one read.
    nock(base)
      .get(creds)
      .reply(200, [
        { access_key_id: "AKX", active: true },
        { access_key_id: "AKY", active: false },
      ])
      .post(`${creds}/AKY/activate`)
      .reply(200, { access_key_id: "AKY", active: true });
    const r = await core.create(at(t0), { ...inputs, takeOver: ["AKX", "AKY"] });
    expect(r.outs).toMatchObject({ accessKeyId: "AKX", previousAccessKeyId: "AKY", previousStatus: "active" });
  });

  it("refuses to take over a credential its bucket does not hold, naming it", async () => {
    bucketRead();
    // Not in the list read a moment ago: read afresh before refusing.
    nock(base)
      .get(creds)
      .times(2)
      .reply(200, [{ access_key_id: "AKX" }]);
    const err = await thrown(() => core.create(at(t0), { ...inputs, takeOver: ["AKNOPE"] }));
    expect(err.code).toBe("CLOUDPLATFORM_NOT_FOUND");
    expect(err.message).toContain("no credential AKNOPE exists on bucket bkt_1");
  });
});

describe("RotatingBucketCredential update: rotation and repair", () => {
  useApi();
  const due = t0 + 30 * day;

  it("rotates: regenerates and activates the previous credential, makes it current, and leaves the current one alone", async () => {
    // Only AKB is asked for anything: a request about AKA would find no mock and fail the test.
    nock(base)
      .post(`${creds}/AKB/regenerate`)
      .reply(200, { access_key_id: "AKB", secret_access_key: secret(3) })
      .post(`${creds}/AKB/activate`)
      .reply(200, { access_key_id: "AKB", active: true });
    const logs: Logged[] = [];
    const outs = await core.update(at(due, logs), "id", state, inputs);
    expect(outs).toEqual(firstRotatedAt(due));
    expect(messages(logs)).toContain(
      `rotated: AKB (slot b, secret fingerprint ${fingerprint(secret(3))}) is current now; AKA (slot a`,
    );
    // Right after, nothing is due.
    expect(core.diff(at(due), "id", outs, inputs).changes).toBe(false);
  });

  it("keeps the rotation due when the regeneration's answer is lost: the current credential untouched, the previous one's secret marked lost", async () => {
    nock(base).post(`${creds}/AKB/regenerate`).times(2).reply(200, "<html>proxy</html>");
    const olds = { ...state, rotateWhenChanged: { v: "1" } };
    const news = { ...inputs, rotateWhenChanged: { v: "2" } };
    const err = await thrown(() => core.update(at(t0 + day), "id", olds, news));
    expect(err.code).toBe("CLOUDPLATFORM_PARTIAL");
    const partial = err["outs"] as Outputs;
    expect(partial).toMatchObject({
      currentSlot: "a",
      accessKeyId: "AKA",
      secretAccessKey: secret(1),
      status: "active",
      previousAccessKeyId: "AKB",
      previousSecretAccessKey: "",
      previousSecretFingerprint: "",
      previousSecretKnown: false,
      previousStatus: "secretLost",
      // The rotation asked for is not done: the state keeps asking for it.
      rotateWhenChanged: { v: "1" },
      rotations: 0,
    });
    expect(planOf(partial, news, t0 + day)).toEqual([{ kind: "rotate", reason: "rotateWhenChanged changed" }]);

    // The next up finishes it.
    nock(base)
      .post(`${creds}/AKB/regenerate`)
      .reply(200, { access_key_id: "AKB", secret_access_key: secret(4) })
      .post(`${creds}/AKB/activate`)
      .reply(200, { access_key_id: "AKB", active: true });
    const finished = await core.update(at(t0 + day), "id", partial, news);
    expect(finished).toMatchObject({
      currentSlot: "b",
      accessKeyId: "AKB",
      secretAccessKey: secret(4),
      previousAccessKeyId: "AKA",
      previousSecretAccessKey: secret(1),
      rotateWhenChanged: { v: "2" },
      rotations: 1,
    });
  });

  it("keeps a regenerated secret when the activation after it fails, the rotation still due", async () => {
    nock(base)
      .post(`${creds}/AKB/regenerate`)
      .reply(200, { access_key_id: "AKB", secret_access_key: secret(3) })
      .post(`${creds}/AKB/activate`)
      .reply(403, { error: { code: "forbidden", message: "not now" } });
    const err = await thrown(() => core.update(at(due), "id", state, inputs));
    const partial = err["outs"] as Outputs;
    expect(partial).toMatchObject({ currentSlot: "a", previousSecretAccessKey: secret(3), rotatedAt: iso(t0) });
    expect(planOf(partial, inputs, due).map((w) => w.kind)).toEqual(["rotate"]);
  });

  it("deactivates the previous credential once its grace period has passed", async () => {
    nock(base).post(`${creds}/AKB/deactivate`).reply(200, { access_key_id: "AKB", active: false });
    const news = { ...inputs, deactivatePreviousAfter: "7d" };
    const outs = await core.update(at(t0 + 7 * day), "id", { ...state, deactivatePreviousAfter: "7d" }, news);
    expect(outs).toMatchObject({ previousStatus: "inactive", status: "active", currentSlot: "a", rotations: 0 });
  });

  it("activates a deactivated previous credential again at the next rotation, with a new secret", async () => {
    nock(base)
      .post(`${creds}/AKB/regenerate`)
      .reply(200, { access_key_id: "AKB", secret_access_key: secret(3), active: false })
      .post(`${creds}/AKB/activate`)
      .reply(200, { access_key_id: "AKB", active: true });
    const olds: Outputs = { ...state, deactivatePreviousAfter: "7d", previousStatus: "inactive" };
    const outs = await core.update(at(due), "id", olds, { ...inputs, deactivatePreviousAfter: "7d" });
    expect(outs).toMatchObject({ currentSlot: "b", accessKeyId: "AKB", status: "active", previousStatus: "active" });
  });

  it("repairs a previous credential deleted outside Pulumi by creating one in its place, the current one untouched", async () => {
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AKA", active: true }])
      .post(creds)
      .reply(201, { access_key_id: "AKC", secret_access_key: secret(5) });
    const olds: Outputs = {
      ...state,
      previousSecretAccessKey: "",
      previousSecretKnown: false,
      previousStatus: "missing",
    };
    const outs = await core.update(at(t0 + day), "id", olds, inputs);
    expect(outs).toMatchObject({
      accessKeyId: "AKA",
      secretAccessKey: secret(1),
      previousAccessKeyId: "AKC",
      previousSecretFingerprint: fingerprint(secret(5)),
      previousStatus: "active",
      rotations: 0,
    });
    expect(journal().find(type, "app#b", base)).toMatchObject({ id: "AKC" });
  });

  it("repairs a current credential deactivated outside Pulumi by activating it, nothing else", async () => {
    nock(base).post(`${creds}/AKA/activate`).reply(200, { access_key_id: "AKA", active: true });
    const outs = await core.update(at(t0 + day), "id", { ...state, status: "inactive" }, inputs);
    expect(outs).toEqual(state);
  });

  it("repairs a secret regenerated outside Pulumi by regenerating it again", async () => {
    nock(base)
      .post(`${creds}/AKB/regenerate`)
      .reply(200, { access_key_id: "AKB", secret_access_key: secret(6) })
      .post(`${creds}/AKB/activate`)
      .reply(200, { access_key_id: "AKB", active: true });
    const olds: Outputs = {
      ...state,
      previousSecretAccessKey: "",
      previousSecretFingerprint: "",
      previousSecretKnown: false,
      previousStatus: "secretLost",
    };
    const outs = await core.update(at(t0 + day), "id", olds, inputs);
    expect(outs).toMatchObject({ previousSecretAccessKey: secret(6), previousStatus: "active", currentSlot: "a" });
  });

  it("deletes both credentials", async () => {
    nock(base).delete(`${creds}/AKA`).reply(204).delete(`${creds}/AKB`).reply(404);
    await core.delete(at(t0), "id", state);
  });
});

/** The S3 plane's answer to the probe signed with `accessKeyId` (GET /logs/?location). */
function s3Answers(accessKeyId: string, status: number, code?: string): void {
  nock(s3)
    .get("/logs/")
    .query(true)
    .matchHeader("authorization", (v) => (v ?? "").includes(`Credential=${accessKeyId}/`))
    .reply(
      status,
      code === undefined
        ? '<?xml version="1.0" encoding="UTF-8"?><LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>'
        : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>refused</Message></Error>`,
      { "content-type": "application/xml" },
    );
}

describe("RotatingBucketCredential read (refresh)", () => {
  useApi();
  const listed = (...credentials: object[]) => nock(base).get(creds).reply(200, credentials);

  it("finds no change when both credentials are there, active, and S3 takes both secrets", async () => {
    listed({ access_key_id: "AKA", active: true }, { access_key_id: "AKB", active: true });
    s3Answers("AKA", 200);
    s3Answers("AKB", 200);
    const logs: Logged[] = [];
    const r = await core.read(at(t0, logs), "id", state);
    expect(r).toEqual({ id: "id", outs: state, inputs: { bucketId: "bkt_1", rotateAfter: "30d" } });
    expect(logs).toEqual([]);
  });

  it("sees a secret regenerated outside Pulumi: S3 refuses the stored one", async () => {
    listed({ access_key_id: "AKA", active: true }, { access_key_id: "AKB", active: true });
    s3Answers("AKA", 200);
    s3Answers("AKB", 403, "SignatureDoesNotMatch");
    const logs: Logged[] = [];
    const r = await core.read(at(t0, logs), "id", state);
    expect(r.outs).toEqual({
      ...state,
      previousSecretAccessKey: "",
      previousSecretFingerprint: "",
      previousSecretKnown: false,
      previousStatus: "secretLost",
    });
    expect(messages(logs)).toContain("AKB (slot b, secret fingerprint");
    expect(messages(logs)).toContain("was regenerated outside Pulumi");
  });

  it("sees a credential deleted or deactivated outside Pulumi, by its bucket's list", async () => {
    // No S3 request is mocked: a credential the list shows deactivated or gone is not probed.
    listed({ access_key_id: "AKA", active: false });
    const logs: Logged[] = [];
    const r = await core.read(at(t0, logs), "id", state);
    expect(r.outs).toMatchObject({ status: "inactive", previousAccessKeyId: "AKB", previousStatus: "missing" });
    expect(r.outs?.previousSecretAccessKey).toBe("");
    expect(messages(logs)).toContain("AKA (slot a, secret fingerprint");
    expect(messages(logs)).toContain("was deactivated outside Pulumi; the next up activates it");
    expect(messages(logs)).toContain("was deleted outside Pulumi; the next up creates a new one");
  });

  it("keeps the state when S3 cannot tell (a busy server, a dropped connection)", async () => {
    listed({ access_key_id: "AKA", active: true }, { access_key_id: "AKB", active: true });
    nock(s3).get("/logs/").query(true).times(6).reply(503, "<Error><Code>SlowDown</Code></Error>");
    const r = await core.read(at(t0), "id", state);
    expect(r.outs).toEqual(state);
  });

  it("removes the resource when its bucket is gone", async () => {
    nock(base)
      .get(creds)
      .reply(404, { error: { code: "not_found", message: "no bucket" } });
    expect(await core.read(at(t0), "id", state)).toEqual({});
  });
});

describe("RotatingBucketCredential after an interrupted create", () => {
  useApi();

  it("adopts both credentials a killed run made, regenerating their lost secrets, and creates none", async () => {
    // The killed run created AKA for slot a, and sent slot b's create (its answer lost with the run).
    journal().created(type, "app#a", base, "AKA", { bucketId: "bkt_1", before: [] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    journal().creating(type, "app#b", base, { bucketId: "bkt_1", before: ["AKA"] });
    bucketRead();
    const both = [
      { access_key_id: "AKA", active: true },
      { access_key_id: "AKB", active: true },
    ];
    nock(base)
      .get(creds)
      .times(2)
      .reply(200, both)
      .post(`${creds}/AKA/regenerate`)
      .reply(200, { access_key_id: "AKA", secret_access_key: secret(1), active: true })
      .post(`${creds}/AKB/regenerate`)
      .reply(200, { access_key_id: "AKB", secret_access_key: secret(2), active: true });
    // No POST of a credential is mocked: a third credential cannot be made.
    const r = await core.create(at(t0), inputs);
    expect(r.outs).toEqual(state);
  });

  it("tells its slots from a BucketCredential that bears the same journal name", async () => {
    // A BucketCredential named "app#a" sent its create first, then slot a sent its own, both on the
    // empty bucket; the first made AKZ, and the run was killed.
    journal().creating("BucketCredential", "app#a", base, { bucketId: "bkt_1", before: [] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    journal().creating(type, "app#a", base, { bucketId: "bkt_1", before: [] });
    journal().created("BucketCredential", "app#a", base, "AKZ", { bucketId: "bkt_1" });
    bucketRead();
    nock(base)
      .get(creds)
      .reply(200, [
        { access_key_id: "AKZ", active: true },
        { access_key_id: "AKA", active: true },
      ])
      .post(`${creds}/AKA/regenerate`)
      .reply(200, { access_key_id: "AKA", secret_access_key: secret(1) })
      .get(creds)
      .reply(200, [
        { access_key_id: "AKZ", active: true },
        { access_key_id: "AKA", active: true },
      ])
      .post(creds)
      .reply(201, { access_key_id: "AKB", secret_access_key: secret(2) });
    const r = await core.create(at(t0), inputs);
    expect(r.outs).toMatchObject({ accessKeyId: "AKA", previousAccessKeyId: "AKB" });
  });

  it("stops, naming the candidates, when another creator made credentials on the bucket meanwhile", async () => {
    bucketRead();
    nock(base)
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(504)
      .get(creds)
      .reply(200, [{ access_key_id: "AK1" }, { access_key_id: "AKOTHER" }]);
    const err = await thrown(() => core.create(at(t0), inputs));
    expect(err.code).toBe("CLOUDPLATFORM_OUTCOME_UNKNOWN");
    expect(err.message).toContain("(AK1, AKOTHER)");
    // Nothing was claimed: no state to keep.
    expect(err["outs"]).toBeUndefined();
  });

  it("does not take a slot's credential for a BucketCredential's lost create on the same bucket", async () => {
    journal().created(type, "app#a", base, "AKA", { bucketId: "bkt_1", before: [] });
    journal().created(type, "app#b", base, "AKB", { bucketId: "bkt_1", before: ["AKA"] });
    bucketRead();
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AKA" }, { access_key_id: "AKB" }])
      .post(creds)
      .reply(504)
      .get(creds)
      .reply(200, [{ access_key_id: "AKA" }, { access_key_id: "AKB" }, { access_key_id: "AKW" }])
      .post(`${creds}/AKW/regenerate`)
      .reply(200, { access_key_id: "AKW", secret_access_key: secret(7) });
    const r = await bucketCredentialCore.create(at(t0, [], "writer"), { bucketId: "bkt_1", active: true });
    expect(r.id).toBe("AKW");
  });
});
