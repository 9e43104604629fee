import nock from "nock";
import { describe, expect, it } from "vitest";
import { bucketCore } from "../../provider/resources/bucket/core.js";
import { bucketCredentialCore, type BucketCredentialOutputs } from "../../provider/resources/bucket-credential/core.js";
import { fingerprint } from "../../provider/redact.js";
import { base, bucketState, ctx, s3, thrown, useApi } from "./support.js";

const secret = "SecretValue-abcdefghijklmnop";
const newSecret = "NewSecretValue-qrstuvwxyz0123";
const creds = "/object-storage/buckets/bkt_1/credentials";
const state: BucketCredentialOutputs = {
  bucketId: "bkt_1",
  accessKeyId: "CPAK1",
  secretAccessKey: secret,
  secretKnown: true,
  secretFingerprint: fingerprint(secret),
  active: true,
  bucketName: "logs",
  s3Endpoint: s3,
  region: "us-east-1",
};

describe("BucketCredential check and diff", () => {
  it("requires bucketId and defaults active to true", () => {
    expect(bucketCredentialCore.check(ctx(), undefined, {}).failures.map((f) => f.property)).toEqual(["bucketId"]);
    const r = bucketCredentialCore.check(ctx(), undefined, { bucketId: "bkt_1", rotateWhenChanged: { v: 1 } });
    expect(r).toEqual({ inputs: { bucketId: "bkt_1", active: true, rotateWhenChanged: { v: "1" } }, failures: [] });
    expect(
      bucketCredentialCore.check(ctx(), undefined, { bucketId: "b", rotateWhenChanged: "x" }).failures[0]?.property,
    ).toBe("rotateWhenChanged");
  });

  it("replaces on bucketId, updates in place on active and rotateWhenChanged", () => {
    const d = (news: object) =>
      bucketCredentialCore.diff(ctx(), "CPAK1", state, { bucketId: "bkt_1", active: true, ...news });
    expect(d({})).toMatchObject({ changes: false });
    expect(d({ bucketId: "bkt_2" })).toMatchObject({ changes: true, replaces: ["bucketId"] });
    expect(d({ active: false, rotateWhenChanged: { v: "2" } })).toMatchObject({
      changes: true,
      replaces: [],
      changed: ["active", "rotateWhenChanged"],
    });
  });
});

describe("BucketCredential operations", () => {
  useApi();

  it("creates a credential with every output an S3 client needs", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "CPAK1", secret_access_key: secret, active: true });
    const r = await bucketCredentialCore.create(ctx(), { bucketId: "bkt_1", active: true });
    expect(r).toEqual({ id: "CPAK1", outs: state });
  });

  it("creates then deactivates when active is false", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "CPAK1", secret_access_key: secret })
      .post(`${creds}/CPAK1/deactivate`)
      .reply(200, { access_key_id: "CPAK1", active: false });
    const r = await bucketCredentialCore.create(ctx(), { bucketId: "bkt_1", active: false });
    expect(r.outs.active).toBe(false);
  });

  it("keeps the created credential as partial state when deactivation fails", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "CPAK1", secret_access_key: secret })
      .post(`${creds}/CPAK1/deactivate`)
      .reply(500, { error: { code: "internal" } });
    const err = await thrown(() => bucketCredentialCore.create(ctx(), { bucketId: "bkt_1", active: false }));
    expect(err.code).toBe("CLOUDPLATFORM_PARTIAL");
    expect(err["id"]).toBe("CPAK1");
    expect(err["outs"]).toMatchObject({ secretAccessKey: secret, active: true });
    expect(err.message).not.toContain(secret);
  });

  it("fails clearly for an unknown bucket before creating anything", async () => {
    nock(base)
      .get("/object-storage/buckets/nope")
      .reply(404, { error: { code: "not_found" } })
      .get("/object-storage/buckets")
      .reply(200, []);
    const err = await thrown(() => bucketCredentialCore.create(ctx(), { bucketId: "nope", active: true }));
    expect(err.message).toContain("Check bucketId");
  });

  it("reads a credential deactivated outside Pulumi as active: false, keeping the secret", async () => {
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "CPAK1", status: "deactivated" }]);
    const log = ctx();
    const r = await bucketCredentialCore.read(log, "CPAK1", state);
    expect(r.outs).toEqual({ ...state, active: false });
    // The inputs as the program sets them: no accessKeyId, which would preview as removed (issue 37).
    expect(r.inputs).toEqual({ bucketId: "bkt_1", active: false });
    expect(log.logs[0]?.message).toContain("deactivated outside Pulumi");
  });

  it("fills the derived outputs when read starts from an import (no previous state)", async () => {
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "CPAK1", active: true }]);
    nock(base).get("/object-storage/buckets/bkt_1").reply(200, { id: "bkt_1", name: "logs" });
    const imported = { bucketId: "bkt_1" } as BucketCredentialOutputs;
    const r = await bucketCredentialCore.read(ctx(), "CPAK1", imported);
    expect(r.outs).toMatchObject({ accessKeyId: "CPAK1", bucketName: "logs", s3Endpoint: s3, region: "us-east-1" });
    // The platform shows no secret again: the state says so, as a take-over's does.
    expect(r.outs).toMatchObject({ secretAccessKey: "", secretKnown: false });
    // The program written from an import holds the credential by its access key id.
    expect(r.inputs).toMatchObject({ bucketId: "bkt_1", accessKeyId: "CPAK1" });
  });

  it("reads a deleted credential, or one of a deleted bucket, as gone", async () => {
    nock(base).get(creds).reply(200, []);
    expect(await bucketCredentialCore.read(ctx(), "CPAK1", state)).toEqual({});
    nock(base).get("/object-storage/buckets/bkt_2/credentials").reply(404);
    expect(await bucketCredentialCore.read(ctx(), "CPAK1", { ...state, bucketId: "bkt_2" })).toEqual({});
  });

  it("lists a bucket's credentials once for concurrent reads", async () => {
    nock(base)
      .get(creds)
      .once()
      .reply(200, [
        { access_key_id: "CPAK1", active: true },
        { access_key_id: "CPAK2", active: true },
      ]);
    const [a, b] = await Promise.all([
      bucketCredentialCore.read(ctx(), "CPAK1", state),
      bucketCredentialCore.read(ctx(), "CPAK2", { ...state, accessKeyId: "CPAK2" }),
    ]);
    expect(a.id).toBe("CPAK1");
    expect(b.id).toBe("CPAK2");
  });

  it("does not serve a cached list after the bucket (and so its credentials) was deleted", async () => {
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "CPAK1", active: true }])
      .delete("/object-storage/buckets/bkt_1")
      .reply(204)
      .get(creds)
      .reply(404);
    expect((await bucketCredentialCore.read(ctx(), "CPAK1", state)).id).toBe("CPAK1");
    await bucketCore.delete(ctx(), "bkt_1", { ...bucketState, bucketId: "bkt_1" });
    expect(await bucketCredentialCore.read(ctx(), "CPAK1", state)).toEqual({});
  });

  it("regenerates in place: same id, new secret", async () => {
    nock(base).post(`${creds}/CPAK1/regenerate`).reply(200, { access_key_id: "CPAK1", secret_access_key: newSecret });
    const outs = await bucketCredentialCore.update(ctx(), "CPAK1", state, {
      bucketId: "bkt_1",
      active: true,
      rotateWhenChanged: { v: "2" },
    });
    expect(outs).toEqual({
      ...state,
      secretAccessKey: newSecret,
      secretFingerprint: fingerprint(newSecret),
      rotateWhenChanged: { v: "2" },
    });
    expect(outs.secretFingerprint).not.toBe(state.secretFingerprint);
  });

  it("regenerates and deactivates in one update", async () => {
    nock(base)
      .post(`${creds}/CPAK1/regenerate`)
      .reply(200, { access_key_id: "CPAK1", secret_access_key: newSecret })
      .post(`${creds}/CPAK1/deactivate`)
      .reply(200, { access_key_id: "CPAK1", active: false });
    const outs = await bucketCredentialCore.update(ctx(), "CPAK1", state, {
      bucketId: "bkt_1",
      active: false,
      rotateWhenChanged: { v: "2" },
    });
    expect(outs).toMatchObject({ accessKeyId: "CPAK1", secretAccessKey: newSecret, active: false });
  });

  it("activates a deactivated credential", async () => {
    nock(base).post(`${creds}/CPAK1/activate`).reply(200, { access_key_id: "CPAK1", active: true });
    const outs = await bucketCredentialCore.update(
      ctx(),
      "CPAK1",
      { ...state, active: false },
      { bucketId: "bkt_1", active: true },
    );
    expect(outs.active).toBe(true);
  });

  it("keeps a regenerated secret as partial state when the activation change fails", async () => {
    nock(base)
      .post(`${creds}/CPAK1/regenerate`)
      .reply(200, { access_key_id: "CPAK1", secret_access_key: newSecret })
      .post(`${creds}/CPAK1/deactivate`)
      .reply(400, { error: { code: "validation_error", message: "no" } });
    const err = await thrown(() =>
      bucketCredentialCore.update(ctx(), "CPAK1", state, {
        bucketId: "bkt_1",
        active: false,
        rotateWhenChanged: { v: "2" },
      }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_PARTIAL");
    expect(err["outs"]).toMatchObject({ secretAccessKey: newSecret, active: true });
  });

  it("deletes, and treats 404 as done", async () => {
    nock(base).delete(`${creds}/CPAK1`).reply(204).delete(`${creds}/CPAK1`).reply(404);
    await bucketCredentialCore.delete(ctx(), "CPAK1", state);
    await bucketCredentialCore.delete(ctx(), "CPAK1", state);
  });
});

describe("BucketCredential taking over an existing credential (accessKeyId)", () => {
  useApi();

  const listed = [
    { access_key_id: "CPAK1", active: true },
    { access_key_id: "CPAK9", active: false, created_at: "2026-11-01T00:00:00Z" },
  ];
  /** What a take-over of CPAK9, deactivated on the platform, holds: its secret unknown. */
  const takenOver: BucketCredentialOutputs = {
    bucketId: "bkt_1",
    accessKeyId: "CPAK9",
    secretAccessKey: "",
    secretKnown: false,
    secretFingerprint: "",
    active: false,
    bucketName: "logs",
    s3Endpoint: s3,
    region: "us-east-1",
    createdAt: "2026-11-01T00:00:00Z",
  };

  it("check keeps accessKeyId and leaves active out unless the program sets it", () => {
    const r = bucketCredentialCore.check(ctx(), undefined, { bucketId: "bkt_1", accessKeyId: "CPAK9" });
    expect(r).toEqual({ inputs: { bucketId: "bkt_1", accessKeyId: "CPAK9" }, failures: [] });
    const set = bucketCredentialCore.check(ctx(), undefined, { bucketId: "bkt_1", accessKeyId: "CPAK9", active: true });
    expect(set.inputs).toEqual({ bucketId: "bkt_1", accessKeyId: "CPAK9", active: true });
    for (const bad of ["", " ", "bkt_1/CPAK9", 5]) {
      const failures = bucketCredentialCore.check(ctx(), undefined, { bucketId: "bkt_1", accessKeyId: bad }).failures;
      expect(
        failures.map((f) => f.property),
        JSON.stringify(bad),
      ).toEqual(["accessKeyId"]);
      expect(failures[0]?.reason).toContain("left out to create a new credential");
    }
  });

  it("diff: accessKeyId left out or equal changes nothing, another one replaces; active left out keeps it", () => {
    const d = (olds: BucketCredentialOutputs, news: object) =>
      bucketCredentialCore.diff(ctx(), olds.accessKeyId, olds, { bucketId: "bkt_1", ...news });
    expect(d(state, { active: true })).toMatchObject({ changes: false });
    expect(d(state, { active: true, accessKeyId: "CPAK1" })).toMatchObject({ changes: false });
    expect(d(state, { active: true, accessKeyId: "CPAK2" })).toMatchObject({
      changes: true,
      replaces: ["accessKeyId"],
    });
    expect(d(takenOver, { accessKeyId: "CPAK9" })).toMatchObject({ changes: false });
    expect(d(takenOver, { accessKeyId: "CPAK9", active: true })).toMatchObject({ changes: true, changed: ["active"] });
  });

  it("create takes it over as it is: no write, no secret, secretKnown false, and a warning that says what to do", async () => {
    // No POST is mocked: a create, regenerate or activate would fail the test (the network is disabled).
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, listed);
    const log = ctx();
    const r = await bucketCredentialCore.create(log, { bucketId: "bkt_1", accessKeyId: "CPAK9" });
    expect(r).toEqual({ id: "CPAK9", outs: takenOver });
    const warning = log.logs.find((l) => l.level === "warn")?.message ?? "";
    expect(warning).toContain("the secret of credential CPAK9 is not known to Pulumi");
    expect(warning).toContain("the platform shows a secret only when it creates or regenerates it");
    expect(warning).toContain("set or change rotateWhenChanged");
    expect(warning).toContain("the access key id CPAK9 stays");
  });

  it("a rotateWhenChanged given at the take-over is recorded, not applied: nothing is regenerated", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, listed);
    const r = await bucketCredentialCore.create(ctx(), {
      bucketId: "bkt_1",
      accessKeyId: "CPAK9",
      rotateWhenChanged: { v: "1" },
    });
    expect(r.outs).toEqual({ ...takenOver, rotateWhenChanged: { v: "1" } });
  });

  it("an active the program sets and the credential does not have is applied in place", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, listed)
      .post(`${creds}/CPAK9/activate`)
      .reply(200, { access_key_id: "CPAK9", active: true });
    const r = await bucketCredentialCore.create(ctx(), { bucketId: "bkt_1", accessKeyId: "CPAK9", active: true });
    expect(r.outs).toEqual({ ...takenOver, active: true });
  });

  it("a credential the bucket does not hold fails, naming both, after reading the list afresh", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .twice()
      .reply(200, listed);
    const err = await thrown(() => bucketCredentialCore.create(ctx(), { bucketId: "bkt_1", accessKeyId: "CPAK5" }));
    expect(err.code).toBe("CLOUDPLATFORM_NOT_FOUND");
    expect(err.message).toContain("no credential CPAK5 exists on bucket bkt_1");
    expect(err.message).toContain("leave the access key id out to create a new credential");
  });

  it("ends in the same state as `pulumi import` of the same credential", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, listed);
    const taken = await bucketCredentialCore.create(ctx(), { bucketId: "bkt_1", accessKeyId: "CPAK9" });
    const importing = bucketCredentialCore.importing;
    if (importing?.supported !== true) throw new Error("BucketCredential is importable");
    const target = importing.target("bkt_1/CPAK9");
    // The import's read shares the list the take-over just read (one provider process).
    const imported = await bucketCredentialCore.read(ctx(), target.id, target.state as BucketCredentialOutputs);
    expect(imported.outs).toEqual(taken.outs);
    expect(imported.inputs).toEqual({ bucketId: "bkt_1", accessKeyId: "CPAK9", active: false });
  });

  it("a later rotateWhenChanged change regenerates it in place: the secret is known from then on", async () => {
    nock(base).post(`${creds}/CPAK9/regenerate`).reply(200, { access_key_id: "CPAK9", secret_access_key: newSecret });
    const outs = await bucketCredentialCore.update(ctx(), "CPAK9", takenOver, {
      bucketId: "bkt_1",
      accessKeyId: "CPAK9",
      rotateWhenChanged: { v: "2" },
    });
    expect(outs).toEqual({
      ...takenOver,
      secretAccessKey: newSecret,
      secretKnown: true,
      secretFingerprint: fingerprint(newSecret),
      rotateWhenChanged: { v: "2" },
    });
  });

  it("refresh keeps secretKnown; a state written before it knew its secret reads as known", async () => {
    nock(base).get(creds).reply(200, listed);
    expect((await bucketCredentialCore.read(ctx(), "CPAK9", takenOver)).outs).toEqual(takenOver);
    const { secretKnown: _unset, ...older } = state;
    expect((await bucketCredentialCore.read(ctx(), "CPAK1", older as BucketCredentialOutputs)).outs).toMatchObject({
      secretKnown: true,
      secretAccessKey: secret,
    });
  });
});

describe("a secret's fingerprint", () => {
  it("is the first 16 hex digits of the secret's SHA-256, and empty for an unknown secret", () => {
    // printf %s 'SecretValue-abcdefghijklmnop' | sha256sum
    expect(fingerprint(secret)).toBe("ff243ee1def458b2");
    expect(fingerprint("")).toBe("");
    expect(fingerprint(undefined)).toBe("");
  });
});
