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
    expect(r.outs?.secretAccessKey).toBeUndefined();
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

describe("a secret's fingerprint", () => {
  it("is the first 16 hex digits of the secret's SHA-256, and empty for an unknown secret", () => {
    // printf %s 'SecretValue-abcdefghijklmnop' | sha256sum
    expect(fingerprint(secret)).toBe("ff243ee1def458b2");
    expect(fingerprint("")).toBe("");
    expect(fingerprint(undefined)).toBe("");
  });
});
