import nock from "nock";
import { describe, expect, it } from "vitest";
import { bucketCore, type BucketOutputs } from "../../provider/resources/bucket/core.js";
import { autoName } from "../../provider/resources/bucket/auto-name.js";
import { unknownValue } from "../../provider/vocabulary.js";
import { base, bucketState, configureDefaults, ctx, host, s3, thrown, useApi } from "./support.js";

const state: BucketOutputs = { ...bucketState, name: "logs-abc" };

describe("Bucket check", () => {
  it("generates <resource name>-<7 chars> when name is omitted, and keeps it across checks", () => {
    const first = bucketCore.check(ctx("My_Logs"), undefined, {});
    expect(first.failures).toEqual([]);
    expect(first.inputs.name).toMatch(/^my-logs-[a-z0-9]{7}$/);
    expect(first.inputs).toMatchObject({ storageClass: "Standard", forceDestroy: false, adopt: false });
    const again = bucketCore.check(ctx("My_Logs"), first.inputs, {});
    expect(again.inputs.name).toBe(first.inputs.name);
    expect(autoName("x".repeat(80)).length).toBeLessThanOrEqual(63);
  });

  it("reports each S3 naming rule against the name property", () => {
    const bad = [
      "ab",
      "UPPER",
      "-start",
      "end-",
      "a..b",
      "192.168.1.1",
      "xn--abc",
      "sthree-x",
      "x-s3alias",
      "x--ol-s3",
      "a_b",
    ];
    for (const name of bad) {
      const r = bucketCore.check(ctx(), undefined, { name });
      expect(r.failures, name).toHaveLength(1);
      expect(r.failures[0]?.property).toBe("name");
      expect(r.failures[0]?.reason).toContain(name);
    }
    expect(bucketCore.check(ctx(), undefined, { name: "my.valid-bucket1" }).failures).toEqual([]);
  });

  it("refuses an unknown storage class, unknown properties and non-booleans, naming each property", () => {
    const r = bucketCore.check(ctx(), undefined, {
      name: "ok-name",
      storageClass: "Glacier",
      forceDestroy: "yes",
      colour: "red",
    });
    expect(r.failures.map((f) => f.property).sort()).toEqual(["colour", "forceDestroy", "storageClass"]);
    expect(r.failures.find((f) => f.property === "storageClass")?.reason).toContain(
      "Standard, InfrequentAccess, Archive",
    );
  });

  it("refuses an empty name, which would otherwise pass as no name at all", () => {
    const r = bucketCore.check(ctx("logs"), undefined, { name: "" });
    expect(r.failures).toEqual([{ property: "name", reason: expect.stringContaining("must not be empty") }]);
    expect(r.failures[0]?.reason).toContain("leave it out for a generated name");
  });

  it("refuses adopt: true without the name of the bucket to adopt", () => {
    const r = bucketCore.check(ctx("logs"), undefined, { adopt: true });
    expect(r.failures).toEqual([{ property: "adopt", reason: expect.stringContaining("needs the name") }]);
    expect(bucketCore.check(ctx("logs"), undefined, { adopt: true, name: "logs" }).failures).toEqual([]);
  });

  it("skips unknown values during preview", () => {
    const r = bucketCore.check(ctx(), undefined, { name: unknownValue, storageClass: unknownValue });
    expect(r.failures).toEqual([]);
  });
});

describe("Bucket diff", () => {
  it("replaces on name or storage class, deleting first when the name stays", () => {
    const same = { name: state.name, storageClass: "Standard", forceDestroy: false, adopt: false };
    expect(bucketCore.diff(ctx(), "bkt_1", state, same)).toMatchObject({ changes: false, replaces: [] });
    expect(bucketCore.diff(ctx(), "bkt_1", state, { ...same, storageClass: "Archive" })).toMatchObject({
      changes: true,
      replaces: ["storageClass"],
      deleteBeforeReplace: true,
    });
    expect(bucketCore.diff(ctx(), "bkt_1", state, { ...same, name: "other" })).toMatchObject({
      replaces: ["name"],
      deleteBeforeReplace: false,
    });
    expect(bucketCore.diff(ctx(), "bkt_1", state, { ...same, forceDestroy: true })).toMatchObject({
      changes: true,
      replaces: [],
      changed: ["forceDestroy"],
    });
  });
});

describe("Bucket operations", () => {
  useApi();
  const inputs = { name: "logs-abc", storageClass: "Standard", forceDestroy: false, adopt: false };

  it("creates with name and storage_class and returns complete outputs", async () => {
    nock(base)
      .post("/object-storage/buckets", { name: "logs-abc", storage_class: "Standard" })
      .reply(201, { id: "bkt_1", name: "logs-abc", storage_class: "Standard", created_at: "2026-01-01T00:00:00Z" });
    const r = await bucketCore.create(ctx("logs"), inputs);
    expect(r).toEqual({ id: "bkt_1", outs: { ...state, createdAt: "2026-01-01T00:00:00Z" } });
  });

  it("fails on name_taken with a message saying to pick a name or adopt", async () => {
    nock(base)
      .post("/object-storage/buckets")
      .reply(409, { error: { code: "name_taken", message: "exists" } });
    const err = await thrown(() => bucketCore.create(ctx("logs"), inputs));
    expect(err.code).toBe("CLOUDPLATFORM_CONFLICT");
    expect(err.message).toContain("adopt: true");
  });

  it("adopts an existing bucket of that name when adopt is set, looking it up first: no create is sent", async () => {
    // No POST is mocked: taking a bucket over writes nothing on the platform.
    nock(base)
      .get("/object-storage/buckets")
      .query({ name: "logs-abc" })
      .reply(200, [{ id: "bkt_7", name: "logs-abc", storage_class: "Standard" }]);
    const log = ctx("logs");
    const r = await bucketCore.create(log, { ...inputs, adopt: true });
    expect(r.id).toBe("bkt_7");
    expect(r.outs).toMatchObject({ adopted: true, adopt: true, bucketId: "bkt_7" });
    expect(log.logs.some((l) => l.message.includes("adopted"))).toBe(true);
  });

  it("refuses to adopt a bucket of another storage class", async () => {
    nock(base)
      .get("/object-storage/buckets")
      .query({ name: "logs-abc" })
      .reply(200, [{ id: "bkt_7", name: "logs-abc", storage_class: "Archive" }]);
    const err = await thrown(() => bucketCore.create(ctx("logs"), { ...inputs, adopt: true }));
    expect(err.message).toContain('storageClass: "Archive"');
  });

  it("reads drift of the live bucket and returns matching inputs", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs-abc", storage_class: "Archive" });
    const r = await bucketCore.read(ctx(), "bkt_1", state);
    expect(r.outs?.storageClass).toBe("Archive");
    expect(r.inputs).toEqual({ name: "logs-abc", storageClass: "Archive", forceDestroy: false, adopt: false });
  });

  it("fills the derived outputs when read starts from an import (no previous state)", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs", storage_class: "Standard", created_at: "2026-11-01T00:00:00Z" });
    const r = await bucketCore.read(ctx(), "bkt_1", {} as typeof state);
    expect(r.outs).toMatchObject({
      bucketId: "bkt_1",
      name: "logs",
      s3Endpoint: s3,
      region: "us-east-1",
      createdAt: "2026-11-01T00:00:00Z",
    });
  });

  it("leaves a refreshed state as it was, endpoint included, so the next preview plans no change", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs-abc", storage_class: "Standard" });
    // The endpoint in state is the one the bucket was created with, whatever the config says now.
    configureDefaults({ "cloudplatform:s3Url": "http://127.0.0.1:1/elsewhere" });
    const r = await bucketCore.read(ctx(), "bkt_1", state);
    expect(r.outs).toEqual(state);
    expect(bucketCore.diff(ctx(), "bkt_1", r.outs as BucketOutputs, r.inputs as typeof inputs).changes).toBe(false);
  });

  it("reads a deleted bucket as gone", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(404, { error: { code: "not_found" } })
      .get("/object-storage/buckets")
      .reply(200, []);
    const log = ctx();
    expect(await bucketCore.read(log, "bkt_1", state)).toEqual({});
    expect(log.logs[0]?.level).toBe("warn");
  });

  it("updates forceDestroy and adopt in place without calling the API", async () => {
    const outs = await bucketCore.update(ctx(), "bkt_1", state, { ...inputs, forceDestroy: true });
    expect(outs).toEqual({ ...state, forceDestroy: true });
  });

  it("deletes, and treats 404 as done", async () => {
    nock(base).delete("/object-storage/buckets/bkt_1").reply(204).delete("/object-storage/buckets/bkt_1").reply(404);
    await bucketCore.delete(ctx(), "bkt_1", state);
    await bucketCore.delete(ctx(), "bkt_1", state);
  });

  it("refuses to delete a non-empty bucket without forceDestroy, saying how", async () => {
    nock(base)
      .delete("/object-storage/buckets/bkt_1")
      .reply(409, { error: { code: "bucket_not_empty", message: "not empty" } });
    const err = await thrown(() => bucketCore.delete(ctx(), "bkt_1", state));
    expect(err.code).toBe("CLOUDPLATFORM_CONFLICT");
    // What happened, then what to do, each once; not the generic 409 advice about a taken name.
    expect(err.message).toBe(
      'DELETE /object-storage/buckets/bkt_1 failed with 409 bucket_not_empty: the bucket "logs-abc" still holds ' +
        "objects or unfinished multipart uploads (CLOUDPLATFORM_CONFLICT). Empty it, or set `forceDestroy: true` " +
        "on the resource and run `pulumi up` (so the state records it), then destroy again.",
    );
  });

  it("a 409 without a code on a bucket's delete says the same; a 409 with another code is the platform's", async () => {
    nock(base).delete("/object-storage/buckets/bkt_1").reply(409, "Conflict");
    const bare = await thrown(() => bucketCore.delete(ctx(), "bkt_1", state));
    expect(bare.message).toContain('failed with 409: the bucket "logs-abc" still holds objects');
    expect(bare.message).not.toContain("name is taken");
    nock(base)
      .delete("/object-storage/buckets/bkt_1")
      .reply(409, { error: { code: "bucket_locked", message: "the bucket is under legal hold" } });
    const other = await thrown(() => bucketCore.delete(ctx(), "bkt_1", state));
    expect(other.code).toBe("CLOUDPLATFORM_CONFLICT");
    expect(other.message).toContain("bucket_locked: the bucket is under legal hold");
    expect(other.message).not.toContain("still holds objects");
  });

  it("with forceDestroy empties the bucket through S3 with a temporary credential, then deletes it", async () => {
    const secret = "tempSecretValue0123456789";
    nock(base)
      .delete("/object-storage/buckets/bkt_1")
      .reply(409, { error: { code: "bucket_not_empty" } })
      .post("/object-storage/buckets/bkt_1/credentials")
      .reply(201, { access_key_id: "TMPKEY", secret_access_key: secret })
      .delete("/object-storage/buckets/bkt_1/credentials/TMPKEY")
      .reply(204)
      .delete("/object-storage/buckets/bkt_1")
      .reply(204);
    const xml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>${body}`;
    nock(s3)
      .get("/logs-abc/")
      .query((q) => q["list-type"] === "2")
      .reply(
        200,
        xml(
          "<ListBucketResult><Name>logs-abc</Name><KeyCount>2</KeyCount><IsTruncated>false</IsTruncated>" +
            "<Contents><Key>a.txt</Key></Contents><Contents><Key>dir/b.txt</Key></Contents></ListBucketResult>",
        ),
      )
      .post("/logs-abc/")
      .query((q) => "delete" in q)
      .reply(
        200,
        xml("<DeleteResult><Deleted><Key>a.txt</Key></Deleted><Deleted><Key>dir/b.txt</Key></Deleted></DeleteResult>"),
      )
      .get("/logs-abc/")
      .query((q) => q["list-type"] === "2")
      .reply(
        200,
        xml(
          "<ListBucketResult><Name>logs-abc</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>",
        ),
      )
      .get("/logs-abc/")
      .query((q) => "uploads" in q)
      .reply(
        200,
        xml(
          "<ListMultipartUploadsResult><Bucket>logs-abc</Bucket><IsTruncated>false</IsTruncated>" +
            "<Upload><Key>big.bin</Key><UploadId>up1</UploadId></Upload></ListMultipartUploadsResult>",
        ),
      )
      .delete("/logs-abc/big.bin")
      .query((q) => q["uploadId"] === "up1")
      .reply(204)
      .get("/logs-abc/")
      .query((q) => "uploads" in q)
      .reply(
        200,
        xml(
          "<ListMultipartUploadsResult><Bucket>logs-abc</Bucket><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>",
        ),
      );
    const log = ctx();
    await bucketCore.delete(log, "bkt_1", { ...state, forceDestroy: true });
    const info = log.logs.map((l) => l.message).join("\n");
    expect(info).toContain("deleted 2 objects and aborted 1 multipart uploads");
    expect(info).not.toContain(secret);
  });

  it("requires the S3 endpoint to create a bucket", async () => {
    host().configure({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": "cp-someKey123" });
    const err = await thrown(() => bucketCore.create(ctx(), inputs));
    expect(err.code).toBe("CLOUDPLATFORM_CONFIG_MISSING");
    expect(err.message).toContain("CLOUDPLATFORM_S3_URL");
  });
});
