// The import contract of the cores (ResourceCore.importing): an import id becomes where read starts,
// without an API call, and read from there yields every output create would have (secrets the API
// returns only at create excepted), while a read of that result changes nothing.
import nock from "nock";
import { describe, expect, it } from "vitest";
import type { ImportAccepted, ResourceCore } from "../../provider/contract.js";
import { apiKeyCore } from "../../provider/resources/api-key/core.js";
import { bucketCore } from "../../provider/resources/bucket/core.js";
import { bucketCredentialCore } from "../../provider/resources/bucket-credential/core.js";
import { dnsZoneCore } from "../../provider/resources/dns-zone/core.js";
import { apiKey, base, configureDefaults, ctx, host, s3, testHost, thrown, useApi } from "./support.js";

const createdAt = "2026-11-01T00:00:00Z";
const bucket = { id: "bkt_1", name: "logs", storage_class: "Archive", created_at: createdAt };
const zone = { id: "zone_1", name: "example.com", status: "active", nameservers: ["ns1.test"], created_at: createdAt };
const creds = "/object-storage/buckets/bkt_1/credentials";

function accepted<I, O>(core: ResourceCore<I, O>): ImportAccepted<O> {
  const importing = core.importing;
  if (importing?.supported !== true) throw new Error(`${core.table.type} is expected to be importable`);
  return importing;
}

/** Import then refresh the result: both reads' outputs and inputs, the second read's warnings. */
async function importThenRefresh<I, O>(core: ResourceCore<I, O>, importId: string) {
  const target = accepted(core).target(importId);
  const imported = await core.read(ctx(), target.id, target.state as O);
  expect(imported.id).toBeDefined();
  const refreshCtx = ctx();
  const refreshed = await core.read(refreshCtx, imported.id as string, imported.outs as O);
  return { imported, refreshed, refreshLogs: refreshCtx.logs };
}

describe("importable cores: read from an import target fills every output create returns", () => {
  useApi();

  it("Bucket, imported by its id", async () => {
    nock(base).post("/object-storage/buckets").reply(201, bucket);
    const created = await bucketCore.create(ctx("logs"), {
      name: "logs",
      storageClass: "Archive",
      forceDestroy: false,
      adopt: false,
    });
    nock(base).get("/object-storage/buckets/bkt_1").times(2).reply(200, bucket);
    const { imported, refreshed } = await importThenRefresh(bucketCore, "bkt_1");
    expect(imported.id).toBe(created.id);
    expect(imported.outs).toEqual(created.outs);
    expect(imported.outs).toMatchObject({ s3Endpoint: s3, region: "us-east-1", createdAt, adopted: false });
    expect(imported.inputs).toEqual({ name: "logs", storageClass: "Archive", forceDestroy: false, adopt: false });
    expect(refreshed).toEqual(imported);
  });

  it("DnsZone, imported by its id", async () => {
    nock(base).post("/dns/zones").reply(201, zone);
    const created = await dnsZoneCore.create(ctx(), { name: "example.com", adopt: false });
    nock(base).get("/dns/zones/zone_1").times(2).reply(200, zone);
    const { imported, refreshed } = await importThenRefresh(dnsZoneCore, "zone_1");
    expect(imported.id).toBe(created.id);
    expect(imported.outs).toEqual(created.outs);
    expect(refreshed).toEqual(imported);
  });

  it("BucketCredential, imported by <bucketId>/<accessKeyId>: all but the secret, its id the access key id", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, bucket)
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "CPAK1", secret_access_key: "SecretValue-abcdefghijklmnop", created_at: createdAt });
    // Created by another provider process: what this one learned of the bucket would spare the import a read.
    const creator = testHost();
    creator.configure({ "cloudplatform:baseUrl": base, "cloudplatform:s3Url": s3, "cloudplatform:apiKey": apiKey });
    const created = await bucketCredentialCore.create(creator.context("BucketCredential", "c"), {
      bucketId: "bkt_1",
      active: true,
    });
    // Both reads list the credentials (or share a cached list); only the import's reads the bucket.
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "CPAK1", active: true, created_at: createdAt }])
      .persist();
    nock(base).get("/object-storage/buckets/bkt_1").once().reply(200, bucket);
    const { imported, refreshed } = await importThenRefresh(bucketCredentialCore, "bkt_1/CPAK1");
    expect(imported.id).toBe(created.id);
    expect(imported.outs).toEqual({ ...created.outs, secretAccessKey: "", secretKnown: false, secretFingerprint: "" });
    expect(imported.inputs).toEqual({ bucketId: "bkt_1", accessKeyId: "CPAK1", active: true });
    // A refresh records the inputs without accessKeyId, which a program that creates leaves out (issue
    // 37); the next up records the program's own again.
    const { accessKeyId: _kept, ...refreshedInputs } = imported.inputs as Record<string, unknown>;
    expect(refreshed).toEqual({ ...imported, inputs: refreshedInputs });
  });

  it("an imported deactivated credential reads as inactive; the only warning says its secret is unknown", async () => {
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "CPAK1", active: false }]);
    nock(base).get("/object-storage/buckets/bkt_1").reply(200, bucket);
    const target = accepted(bucketCredentialCore).target("bkt_1/CPAK1");
    const log = ctx();
    const r = await bucketCredentialCore.read(log, target.id, target.state as never);
    expect(r.outs?.active).toBe(false);
    expect(r.inputs).toEqual({ bucketId: "bkt_1", accessKeyId: "CPAK1", active: false });
    expect(log.logs).toHaveLength(1);
    expect(log.logs[0]?.level).toBe("warn");
    expect(log.logs[0]?.message).toContain("the secret of credential CPAK1 is not known to Pulumi");
    expect(log.logs[0]?.message).toContain("rotateWhenChanged");
  });

  it("an import on a stack without cloudplatform:s3Url warns that s3Endpoint is empty, and how to fill it in", async () => {
    host().configure({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    // The credential's read takes the bucket's name from the bucket read just before.
    nock(base).get("/object-storage/buckets/bkt_1").reply(200, bucket);
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "CPAK1", active: true }]);
    const log = ctx();
    const b = await bucketCore.read(log, "bkt_1", accepted(bucketCore).target("bkt_1").state as never);
    const target = accepted(bucketCredentialCore).target("bkt_1/CPAK1");
    const c = await bucketCredentialCore.read(log, target.id, target.state as never);
    expect(b.outs?.s3Endpoint).toBe("");
    expect(c.outs?.s3Endpoint).toBe("");
    const endpointLines = log.logs.filter((l) => l.message.includes("s3Endpoint"));
    expect(endpointLines).toHaveLength(2);
    for (const entry of endpointLines) {
      expect(entry.level).toBe("warn");
      expect(entry.message).toContain("s3Endpoint is empty: the S3 endpoint is not set");
      expect(entry.message).toContain("pulumi config set cloudplatform:s3Url <value>");
      expect(entry.message).toContain("CLOUDPLATFORM_S3_URL");
      expect(entry.message).toContain("`pulumi refresh`");
    }
    // With the endpoint set, the refresh records it and says nothing.
    configureDefaults();
    nock(base).get("/object-storage/buckets/bkt_1").reply(200, bucket);
    const quiet = ctx();
    const refreshed = await bucketCore.read(quiet, "bkt_1", b.outs as never);
    expect(refreshed.outs?.s3Endpoint).toBe(s3);
    expect(quiet.logs).toEqual([]);
  });

  it("import targets are computed from the id alone (no API call: the network is disabled and unmocked)", () => {
    expect(accepted(bucketCore).target("bkt_1")).toEqual({ id: "bkt_1", state: {} });
    expect(accepted(dnsZoneCore).target("zone_1")).toEqual({ id: "zone_1", state: {} });
    expect(accepted(bucketCredentialCore).target("bkt_1/CPAK1")).toEqual({
      id: "CPAK1",
      state: { bucketId: "bkt_1", accessKeyId: "CPAK1" },
    });
  });

  it("a credential import id of the wrong shape is refused with the expected shape", async () => {
    for (const bad of ["CPAK1", "/CPAK1", "bkt_1/", ""]) {
      const err = await thrown(async () => accepted(bucketCredentialCore).target(bad));
      expect(err.code, bad).toBe("CLOUDPLATFORM_IMPORT_ID_INVALID");
      expect(err.message).toContain("<bucketId>/<accessKeyId>");
    }
  });

  it("a credential's other calls get its access key id, whether handed the import id or the state's id", () => {
    const coreId = accepted(bucketCredentialCore).coreId;
    expect(coreId?.("bkt_1/CPAK1")).toBe("CPAK1");
    expect(coreId?.("CPAK1")).toBe("CPAK1");
  });
});

describe("cores that cannot be imported", () => {
  it("ApiKey refuses, saying what to do instead", () => {
    expect(apiKeyCore.importing).toMatchObject({ supported: false });
    const reason = apiKeyCore.importing?.supported === false ? apiKeyCore.importing.reason : "";
    expect(reason).toContain("create an ApiKey resource instead");
  });
});
