// Issue 15: a refresh reads every resource at once, and N objects of one parent collection cost one
// list, not N GETs; the list is short-lived and forgotten when this process changes the collection.
import nock from "nock";
import { describe, expect, it } from "vitest";
import { bucketCore } from "../../provider/resources/bucket/core.js";
import { dnsZoneCore, type DnsZoneOutputs } from "../../provider/resources/dns-zone/core.js";
import { apiKey, base, bucketState, ctx, testHost, useApi } from "./support.js";

const buckets = "/object-storage/buckets";
const zone = (i: number): DnsZoneOutputs => ({
  zoneId: `zone_${i}`,
  name: `z${i}.example.com`,
  nameservers: ["ns1.x"],
  adopt: false,
  adopted: false,
});

describe("shared lists per parent collection", () => {
  useApi();

  it("a refresh of many buckets makes one list and no GET", async () => {
    const ids = [1, 2, 3, 4, 5].map((i) => `bkt_${i}`);
    nock(base)
      .get(buckets)
      .once()
      .reply(
        200,
        ids.map((id) => ({ id, name: `logs-${id}` })),
      );
    const read = await Promise.all(ids.map((id) => bucketCore.read(ctx(), id, { ...bucketState, bucketId: id })));
    expect(read.map((r) => r.outs?.name)).toEqual(ids.map((id) => `logs-${id}`));
  });

  it("a bucket the list does not hold is read by its GET, which alone says it is gone", async () => {
    nock(base)
      .get(buckets)
      .once()
      .reply(200, [{ id: "bkt_1", name: "logs" }])
      .get(`${buckets}/bkt_new`)
      .reply(200, { id: "bkt_new", name: "made-after-the-list" })
      .get(`${buckets}/bkt_gone`)
      .reply(404, { error: { code: "not_found" } });
    expect((await bucketCore.read(ctx(), "bkt_1", bucketState)).outs?.name).toBe("logs");
    expect((await bucketCore.read(ctx(), "bkt_new", bucketState)).outs?.name).toBe("made-after-the-list");
    expect(await bucketCore.read(ctx(), "bkt_gone", bucketState)).toEqual({});
  });

  it("a bucket this process deleted is not read from a list taken before", async () => {
    nock(base)
      .get(buckets)
      .reply(200, [{ id: "bkt_1", name: "logs" }])
      .delete(`${buckets}/bkt_1`)
      .reply(204)
      .get(buckets)
      .reply(200, [])
      .get(`${buckets}/bkt_1`)
      .reply(404, { error: { code: "not_found" } });
    expect((await bucketCore.read(ctx(), "bkt_1", bucketState)).id).toBe("bkt_1");
    await bucketCore.delete(ctx(), "bkt_1", bucketState);
    expect(await bucketCore.read(ctx(), "bkt_1", bucketState)).toEqual({});
  });

  it("the list is short-lived: a read after it expired lists again", async () => {
    let now = 1_000_000;
    const h = testHost({ clock: { now: () => now, sleep: async () => undefined } });
    h.configure({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    const at = () => h.context("Bucket", "logs");
    nock(base)
      .get(buckets)
      .times(2)
      .reply(200, [{ id: "bkt_1", name: "logs" }]);
    await bucketCore.read(at(), "bkt_1", bucketState);
    now += 1_000;
    await bucketCore.read(at(), "bkt_1", bucketState);
    now += 5_000;
    await bucketCore.read(at(), "bkt_1", bucketState);
  });

  it("a refresh of many zones makes one list and no GET; a deleted zone is not read from it", async () => {
    const zones = [1, 2, 3].map(zone);
    const listed = zones.map((z) => ({ id: z.zoneId, name: z.name, nameservers: z.nameservers }));
    nock(base)
      .get("/dns/zones")
      .once()
      .reply(200, listed)
      .delete("/dns/zones/zone_1")
      .reply(204)
      .get("/dns/zones")
      .reply(200, listed.slice(1))
      .get("/dns/zones/zone_1")
      .reply(404, { error: { code: "not_found" } });
    const read = await Promise.all(zones.map((z) => dnsZoneCore.read(ctx(), z.zoneId, z)));
    expect(read.map((r) => r.outs)).toEqual(zones);
    await dnsZoneCore.delete(ctx(), "zone_1", zone(1));
    expect(await dnsZoneCore.read(ctx(), "zone_1", zone(1))).toEqual({});
  });
});
