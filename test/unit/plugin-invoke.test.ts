// The lookups as the executable provider serves them (invokes `cloudplatform:index:get*`): the
// same functions the TypeScript SDK exports, run with the provider's configured client, against a
// mocked API (network disabled).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { lookups } from "../../provider/functions.js";
import { createProvider } from "../../provider/plugin/provider.js";
import { apiKey, base, host, thrown, useApi } from "./support.js";

const sigKey = "4dabf18193072939515e22adb298388d";
const secretSig = "1b47061264138c4ac30d75fd1eb44270";

const invoke = (name: string, args: Record<string, unknown> = {}) =>
  createProvider({ version: "1.2.3", host: host() }).invoke!(`cloudplatform:index:${name}`, args);

const zones = [
  { id: "zone_1", name: "example.com", nameservers: ["ns1.test"], status: "active" },
  { id: "zone_2", name: "example.org", nameservers: ["ns2.test"], created_at: "2026-11-01T00:00:00Z" },
];

describe("invokes", () => {
  useApi();

  it("serves every lookup of the TypeScript SDK", () => {
    expect(lookups.map((l) => l.name).sort()).toEqual([
      "getBucket",
      "getBucketCredentials",
      "getBuckets",
      "getDnsZone",
      "getDnsZones",
    ]);
  });

  it("describes each function in the schema with the TSDoc of the TypeScript SDK's function", () => {
    // TypeScript cannot derive TSDoc: this keeps the two texts equal.
    const file = join(__dirname, "../../provider/functions.ts");
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const tsdoc = new Map<string, string | undefined>();
    for (const statement of source.statements) {
      if (!ts.isFunctionDeclaration(statement) || !statement.name) continue;
      const doc = ts.getJSDocCommentsAndTags(statement).find((d): d is ts.JSDoc => ts.isJSDoc(d));
      tsdoc.set(statement.name.text, ts.getTextOfJSDocComment(doc?.comment)?.replace(/\s+/g, " ").trim());
    }
    for (const lookup of lookups) expect(tsdoc.get(lookup.name), lookup.name).toBe(lookup.description);
  });

  it("getDnsZone finds a zone by its normalized name, with the provider's configured credential", async () => {
    nock(base, { reqheaders: { authorization: apiKey } })
      .get("/dns/zones")
      .query({ name: "example.org" })
      .reply(200, zones);
    const result = await invoke("getDnsZone", { name: "Example.ORG." });
    expect(result).toEqual({
      outputs: { zoneId: "zone_2", name: "example.org", nameservers: ["ns2.test"], createdAt: "2026-11-01T00:00:00Z" },
    });
  });

  it("the list lookups answer an object holding the list", async () => {
    nock(base)
      .get("/dns/zones")
      .reply(200, zones)
      .get("/object-storage/buckets")
      .reply(200, [{ id: "b1", name: "logs", storage_class: "Standard" }])
      .get("/object-storage/buckets/b1/credentials")
      .reply(200, [{ access_key_id: "AK1", active: false, secret_access_key: "must-not-pass" }]);
    const listed = await invoke("getDnsZones");
    expect((listed.outputs?.["zones"] as Array<{ zoneId: string }>).map((z) => z.zoneId)).toEqual(["zone_1", "zone_2"]);
    expect(await invoke("getBuckets")).toEqual({
      outputs: { buckets: [{ bucketId: "b1", name: "logs", storageClass: "Standard" }] },
    });
    expect(await invoke("getBucketCredentials", { bucketId: "b1" })).toEqual({
      outputs: { credentials: [{ accessKeyId: "AK1", bucketId: "b1", active: false }] },
    });
  });

  it("takes a secret argument by its value", async () => {
    nock(base)
      .get("/object-storage/buckets")
      .query({ name: "logs" })
      .reply(200, [{ id: "b1", name: "logs" }]);
    const result = await invoke("getBucket", { name: { [sigKey]: secretSig, value: "logs" } });
    expect(result.outputs).toEqual({ bucketId: "b1", name: "logs" });
  });

  it("reports missing, mistyped and unknown arguments as failures, before any API call", async () => {
    expect((await invoke("getDnsZone", {})).failures).toEqual([
      { property: "name", reason: "getDnsZone needs name (a string)" },
    ]);
    expect((await invoke("getBucketCredentials", { bucketId: 7 })).failures).toEqual([
      { property: "bucketId", reason: "getBucketCredentials: bucketId must be a string" },
    ]);
    expect((await invoke("getBuckets", { name: "logs" })).failures).toEqual([
      { property: "name", reason: 'getBuckets has no argument "name"; it takes none' },
    ]);
  });

  it("a lookup that finds nothing fails with CLOUDPLATFORM_NOT_FOUND and what to do", async () => {
    nock(base).get("/object-storage/buckets").query({ name: "nope" }).reply(200, []);
    const err = await thrown(() => invoke("getBucket", { name: "nope" }));
    expect(err["code"]).toBe("CLOUDPLATFORM_NOT_FOUND");
    expect(err.message).toMatch(/^getBucket: no bucket named "nope" exists .*Check the name/);
  });

  it("an API failure leaves without the provider's credential in its message", async () => {
    nock(base)
      .get("/dns/zones")
      .reply(403, { error: { code: "forbidden", message: `key ${apiKey} is not allowed` } });
    const err = await thrown(() => invoke("getDnsZones"));
    expect(err["code"]).toBe("CLOUDPLATFORM_UNAUTHORIZED");
    expect(err.message).not.toContain(apiKey);
  });

  it("refuses an unknown function with a code and the list of known ones", async () => {
    const err = await thrown(() => invoke("getDatabase"));
    expect(err["code"]).toBe("CLOUDPLATFORM_UNKNOWN_TYPE");
    expect(err.message).toContain("cloudplatform:index:getDnsZone");
  });
});
