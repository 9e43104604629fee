import nock from "nock";
import { setAllConfig } from "@pulumi/pulumi/runtime/config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dnsZoneCore, type DnsZoneOutputs } from "../../provider/resources/dns-zone/core.js";
import { getBucket, getBucketCredentials, getBuckets, getDnsZone, getDnsZones } from "../../provider/functions.js";
import { base, ctx, thrown, useApi } from "./support.js";

const state: DnsZoneOutputs = {
  zoneId: "zone_1",
  name: "example.com",
  status: "active",
  nameservers: ["ns1.test"],
  adopt: false,
  adopted: false,
};

describe("DnsZone check and diff", () => {
  it("normalizes the name and reports invalid domains against name", () => {
    expect(dnsZoneCore.check(ctx(), undefined, { name: "Example.COM." })).toEqual({
      inputs: { name: "example.com", adopt: false },
      failures: [],
    });
    for (const bad of ["localhost", "a..b.com", "-a.com", "a_b.com", "1.2.3.4", `${"x".repeat(64)}.com`]) {
      const r = dnsZoneCore.check(ctx(), undefined, { name: bad });
      expect(r.failures, bad).toHaveLength(1);
      expect(r.failures[0]?.property).toBe("name");
    }
    expect(dnsZoneCore.check(ctx(), undefined, {}).failures[0]?.reason).toContain("required");
  });

  it("replaces on a new name, deleting first", () => {
    expect(dnsZoneCore.diff(ctx(), "zone_1", state, { name: "example.com", adopt: false }).changes).toBe(false);
    expect(dnsZoneCore.diff(ctx(), "zone_1", state, { name: "example.org", adopt: false })).toMatchObject({
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
  });
});

describe("DnsZone operations", () => {
  useApi();

  it("creates a zone", async () => {
    nock(base)
      .post("/dns/zones", { name: "example.com" })
      .reply(201, { id: "zone_1", name: "example.com", status: "active", nameservers: ["ns1.test"] });
    expect(await dnsZoneCore.create(ctx(), { name: "example.com", adopt: false })).toEqual({
      id: "zone_1",
      outs: state,
    });
  });

  it("explains a taken name", async () => {
    nock(base)
      .post("/dns/zones")
      .reply(409, { error: { code: "name_taken", message: "exists" } });
    const err = await thrown(() => dnsZoneCore.create(ctx(), { name: "example.com", adopt: false }));
    expect(err.code).toBe("CLOUDPLATFORM_CONFLICT");
    expect(err.message).toContain("already exists");
  });

  it("reads a zone, and a deleted one as gone", async () => {
    nock(base)
      .get("/dns/zones/zone_1")
      .reply(200, { data: { zone_id: "zone_1", name: "example.com", status: "active", nameservers: ["ns1.test"] } });
    expect(await dnsZoneCore.read(ctx(), "zone_1", state)).toEqual({
      id: "zone_1",
      outs: state,
      inputs: { name: "example.com", adopt: false },
    });
    nock(base).get("/dns/zones/zone_1").reply(404).get("/dns/zones").reply(200, { zones: [] });
    expect(await dnsZoneCore.read(ctx(), "zone_1", state)).toEqual({});
  });

  it("deletes, and treats 404 as done", async () => {
    nock(base).delete("/dns/zones/zone_1").reply(204).delete("/dns/zones/zone_1").reply(404);
    await dnsZoneCore.delete(ctx(), "zone_1", state);
    await dnsZoneCore.delete(ctx(), "zone_1", state);
  });
});

describe("lookup functions", () => {
  useApi();
  // Lookups run in the program: they read the program's stack config, not configure().
  beforeEach(() => {
    setAllConfig({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": "cp-programConfigKey01" });
  });
  afterEach(() => setAllConfig({}));

  it("looks zones up by name, failing clearly when absent", async () => {
    const zones = [
      { id: "zone_1", name: "example.com", nameservers: [] },
      { id: "zone_2", name: "example.org", nameservers: [] },
    ];
    nock(base).get("/dns/zones").reply(200, zones).get("/dns/zones").query({ name: "example.org" }).reply(200, zones);
    expect((await getDnsZones()).map((z) => z.zoneId)).toEqual(["zone_1", "zone_2"]);
    // The server ignored the filter here: the lookup filters again.
    expect((await getDnsZone({ name: "Example.org." })).zoneId).toBe("zone_2");
    nock(base).get("/dns/zones").query({ name: "nope.com" }).reply(200, []);
    expect((await thrown(() => getDnsZone({ name: "nope.com" }))).code).toBe("CLOUDPLATFORM_NOT_FOUND");
  });

  it("looks buckets and credentials up without secrets", async () => {
    nock(base)
      .get("/object-storage/buckets")
      .reply(200, [{ id: "b1", name: "logs", storage_class: "Standard" }])
      .get("/object-storage/buckets")
      .query({ name: "logs" })
      .reply(200, [{ id: "b1", name: "logs" }])
      .get("/object-storage/buckets/b1/credentials")
      .reply(200, [{ access_key_id: "AK", active: false, secret_access_key: "leak-should-not-pass" }]);
    expect(await getBuckets()).toEqual([{ bucketId: "b1", name: "logs", storageClass: "Standard" }]);
    expect((await getBucket({ name: "logs" })).bucketId).toBe("b1");
    const list = await getBucketCredentials({ bucketId: "b1" });
    expect(list).toEqual([{ accessKeyId: "AK", bucketId: "b1", active: false }]);
  });
});
