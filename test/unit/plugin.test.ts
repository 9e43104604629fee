// The executable-provider host (provider/plugin) driven as the gRPC server drives it: raw wire
// values in, raw wire values out, against a mocked API (network disabled).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { describe, expect, it } from "vitest";
import type * as plugin from "@pulumi/pulumi/provider";
import { journalKey } from "../../provider/contract.js";
import { unknownValue } from "../../provider/vocabulary.js";
import { FileJournal } from "../../provider/journal.js";
import { configValues, type ConfigureRequestLike } from "../../provider/plugin/configure.js";
import { parseUrn } from "../../provider/plugin/cores.js";
import { engineAddress, useEngineOf } from "../../provider/plugin/engine-address.js";
import { createProvider } from "../../provider/plugin/provider.js";
import { apiKey, base, bucketState, host, s3, testHost, thrown, useApi } from "./support.js";

const sigKey = "4dabf18193072939515e22adb298388d";
const secretSig = "1b47061264138c4ac30d75fd1eb44270";
const wrap = (value: unknown) => ({ [sigKey]: secretSig, value });

/** The provider on the host of the running test (useApi makes a fresh one for each). */
const provider = () => createProvider({ version: "1.2.3", host: host() });
const urn = (type: string, name: string) => `urn:pulumi:dev::proj::cloudplatform:index:${type}::${name}`;

/** Methods the Provider interface marks optional; this host implements them all. */
type Methods = Required<plugin.Provider>;
const check: Methods["check"] = (...a) => provider().check!(...a);
const diff: Methods["diff"] = (...a) => provider().diff!(...a);
const create: Methods["create"] = (...a) => provider().create!(...a);
const read: Methods["read"] = (...a) => provider().read!(...a);
const update: Methods["update"] = (...a) => provider().update!(...a);
const del: Methods["delete"] = (...a) => provider().delete!(...a);

describe("dispatch on the type token", () => {
  useApi();

  it("routes each token to its core, the logical name coming from the URN", async () => {
    const zone = await check(urn("DnsZone", "main"), {}, { name: "Example.COM." });
    expect(zone.inputs).toEqual({ name: "example.com", adopt: false });
    // Bucket auto-naming uses the URN's name, as the dynamic host uses __name.
    const bucket = await check(urn("Bucket", "logs"), {}, {});
    expect((bucket.inputs as { name: string }).name).toMatch(/^logs-[a-z0-9]{7}$/);
  });

  it("names the stack of a URN as <project>/<stack>, for its recovery journal", () => {
    expect(parseUrn("urn:pulumi:dev::proj::cloudplatform:index:Bucket::logs")).toEqual({
      token: "cloudplatform:index:Bucket",
      name: "logs",
      stack: "proj/dev",
    });
  });

  it("keeps the recovery journal of the URN's stack", async () => {
    const journal = new FileJournal(mkdtempSync(join(tmpdir(), "plugin-journal-")));
    const stacks: string[] = [];
    const h = testHost({ journal: (s) => (stacks.push(s), journal) });
    h.configure({ "cloudplatform:baseUrl": base, "cloudplatform:s3Url": s3, "cloudplatform:apiKey": apiKey });
    nock(base).post("/dns/zones").reply(201, { id: "zone_1", name: "example.com", nameservers: [] });
    await createProvider({ version: "1.2.3", host: h }).create!(urn("DnsZone", "main"), { name: "example.com" });
    expect(stacks).toEqual([journalKey("proj/dev")]);
    expect(journal.find("DnsZone", "main", base)).toMatchObject({ state: "created", id: "zone_1" });
    rmSync(journal.dir, { recursive: true, force: true });
  });

  it("finds the type in a URN whose type is qualified by a parent", async () => {
    const parented = "urn:pulumi:dev::proj::my:component:Thing$cloudplatform:index:DnsZone::z";
    expect((await check(parented, {}, { name: "a.example" })).failures).toEqual([]);
  });

  it("refuses an unknown type with a code and the list of known types", async () => {
    const err = await thrown(() => check(urn("Database", "db"), {}, {}));
    expect(err["code"]).toBe("CLOUDPLATFORM_UNKNOWN_TYPE");
    expect(err.message).toContain("cloudplatform:index:Bucket");
  });
});

describe("check", () => {
  useApi();

  it("returns the core's failures per property", async () => {
    const r = await check(urn("Bucket", "b"), {}, { name: "Bad_Name", storageClass: "Cold", colour: "red" });
    expect(r.failures?.map((f) => f.property).sort()).toEqual(["colour", "name", "storageClass"]);
  });

  it("keeps a generated bucket name across checks (old inputs reach the core)", async () => {
    const first = (await check(urn("Bucket", "logs"), {}, {})).inputs as Record<string, unknown>;
    const again = await check(urn("Bucket", "logs"), first, {});
    expect((again.inputs as Record<string, unknown>)["name"]).toBe(first["name"]);
  });

  it("lets unknown values of a preview through unvalidated", async () => {
    const r = await check(urn("BucketCredential", "c"), {}, { bucketId: unknownValue });
    expect(r.failures).toEqual([]);
  });

  it("unwraps secret inputs for the core and keeps them secret in the checked inputs", async () => {
    const r = await check(urn("ApiKey", "k"), {}, { rotateWhenChanged: wrap({ at: "2026" }) });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual({ rotateWhenChanged: wrap({ at: "2026" }) });
  });
});

describe("diff", () => {
  useApi();
  const news = { name: "logs", storageClass: "Standard", forceDestroy: false, adopt: false };

  it("reports no change, an in-place update, or a delete-first replacement as the core decides", async () => {
    expect(await diff("bkt_1", urn("Bucket", "b"), bucketState, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(await diff("bkt_1", urn("Bucket", "b"), bucketState, { ...news, forceDestroy: true })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(await diff("bkt_1", urn("Bucket", "b"), bucketState, { ...news, storageClass: "Archive" })).toEqual({
      changes: true,
      replaces: ["storageClass"],
      deleteBeforeReplace: true,
    });
  });

  it("compares secret-wrapped state by value: a wrapped secret equal to the input is no change", async () => {
    const credState = {
      bucketId: "bkt_1",
      accessKeyId: "CPAK1",
      secretAccessKey: wrap("s3cret-value-123456"),
      active: true,
      rotateWhenChanged: wrap({ v: "1" }),
    };
    const d = await diff("CPAK1", urn("BucketCredential", "c"), credState, {
      bucketId: "bkt_1",
      active: true,
      rotateWhenChanged: { v: "1" },
    });
    expect(d.changes).toBe(false);
  });
});

describe("create, read, update, delete", () => {
  useApi();
  const creds = "/object-storage/buckets/bkt_1/credentials";
  const secretKey = "SecretValue-abcdefghijklmnop";

  it("create marks the core's secret outputs secret and leaves the rest plain", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "CPAK1", secret_access_key: secretKey, active: true });
    const r = await create(urn("BucketCredential", "c"), { bucketId: "bkt_1", active: true });
    expect(r.id).toBe("CPAK1");
    expect(r.outs).toMatchObject({
      accessKeyId: "CPAK1",
      bucketName: "logs",
      s3Endpoint: s3,
      secretAccessKey: wrap(secretKey),
    });
  });

  it("an output whose input was secret stays secret", async () => {
    nock(base).post("/security/apikey").reply(200, { api_key: "cp-newKey_abcdefghijklmnop" });
    const r = await create(urn("ApiKey", "k"), { rotateWhenChanged: wrap({ v: "1" }) });
    expect(r.outs).toMatchObject({ key: wrap("cp-newKey_abcdefghijklmnop"), rotateWhenChanged: wrap({ v: "1" }) });
  });

  it("refresh returns the live state with secrets still marked", async () => {
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "CPAK1", active: false }]);
    const state = {
      bucketId: "bkt_1",
      accessKeyId: "CPAK1",
      secretAccessKey: wrap(secretKey),
      active: true,
      bucketName: "logs",
      s3Endpoint: s3,
      region: "us-east-1",
    };
    const r = await read("CPAK1", urn("BucketCredential", "c"), state);
    expect(r.id).toBe("CPAK1");
    expect(r.props).toMatchObject({ active: false, secretAccessKey: wrap(secretKey), secretKnown: true });
    expect(r.inputs).toEqual({ bucketId: "bkt_1", active: false });
  });

  it("a refresh of an object gone returns no id", async () => {
    nock(base)
      .get("/dns/zones/zone_1")
      .reply(404, { error: { code: "not_found" } })
      .get("/dns/zones")
      .reply(200, []);
    expect(await read("zone_1", urn("DnsZone", "z"), { zoneId: "zone_1", name: "a.example", nameservers: [] })).toEqual(
      { id: "", props: {} },
    );
  });

  it("update returns the complete outputs, the regenerated secret marked", async () => {
    nock(base)
      .post(`${creds}/CPAK1/regenerate`)
      .reply(200, { access_key_id: "CPAK1", secret_access_key: "NewSecret-qrstuvwxyz0123" });
    const olds = {
      bucketId: "bkt_1",
      accessKeyId: "CPAK1",
      secretAccessKey: wrap(secretKey),
      active: true,
      bucketName: "logs",
    };
    const r = await update("CPAK1", urn("BucketCredential", "c"), olds, {
      bucketId: "bkt_1",
      active: true,
      rotateWhenChanged: { v: "2" },
    });
    expect(r.outs).toMatchObject({
      accessKeyId: "CPAK1",
      bucketName: "logs",
      secretAccessKey: wrap("NewSecret-qrstuvwxyz0123"),
      rotateWhenChanged: { v: "2" },
    });
  });

  it("a failure after the secret was regenerated carries the partial state, secret marked, for the engine to keep", async () => {
    nock(base)
      .post(`${creds}/CPAK1/regenerate`)
      .reply(200, { access_key_id: "CPAK1", secret_access_key: "NewSecret-qrstuvwxyz0123" })
      .post(`${creds}/CPAK1/deactivate`)
      .reply(400, { error: { code: "bad_request", message: "no" } });
    const olds = { bucketId: "bkt_1", accessKeyId: "CPAK1", secretAccessKey: wrap(secretKey), active: true };
    const err = await thrown(() =>
      update("CPAK1", urn("BucketCredential", "c"), olds, {
        bucketId: "bkt_1",
        active: false,
        rotateWhenChanged: { v: "2" },
      }),
    );
    expect(err["id"]).toBe("CPAK1");
    expect(err["properties"]).toMatchObject({ secretAccessKey: wrap("NewSecret-qrstuvwxyz0123") });
    expect(err.message).toMatch(/^BucketCredential "c": /);
    expect(err.message).not.toContain("NewSecret-qrstuvwxyz0123");
  });

  it("delete reaches the core with the plain state", async () => {
    nock(base).delete("/object-storage/buckets/bkt_1").reply(204);
    await del("bkt_1", urn("Bucket", "b"), { bucketId: "bkt_1", name: "logs", forceDestroy: false });
  });

  it("errors are prefixed with the resource and never show a configured secret", async () => {
    nock(base)
      .delete("/dns/zones/zone_1")
      .reply(500, { error: { code: "internal", message: `key ${apiKey} broke` } });
    const err = await thrown(() => del("zone_1", urn("DnsZone", "z"), { zoneId: "zone_1", name: "a.example" }));
    expect(err.message).toMatch(/^DnsZone "z": /);
    expect(err.message).not.toContain(apiKey);
  });
});

describe("pulumi import (read with an id and no state)", () => {
  useApi();

  it("imports a bucket by id, with the inputs that reproduce it", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_9")
      .reply(200, { id: "bkt_9", name: "old-logs", storage_class: "Archive" });
    const r = await read("bkt_9", urn("Bucket", "imported"), {});
    expect(r.id).toBe("bkt_9");
    // Every output create would return is filled, not only those the API returns.
    expect(r.props).toEqual({
      bucketId: "bkt_9",
      name: "old-logs",
      storageClass: "Archive",
      forceDestroy: false,
      adopt: false,
      adopted: false,
      s3Endpoint: s3,
      region: "us-east-1",
    });
    expect(r.inputs).toEqual({ name: "old-logs", storageClass: "Archive", forceDestroy: false, adopt: false });
  });

  it("imports a zone by id", async () => {
    nock(base)
      .get("/dns/zones/zone_9")
      .reply(200, { id: "zone_9", name: "b.example", nameservers: ["ns1.example"] });
    const r = await read("zone_9", urn("DnsZone", "z"), {});
    expect(r).toMatchObject({ id: "zone_9", inputs: { name: "b.example" }, props: { zoneId: "zone_9" } });
  });

  it("imports a credential by <bucketId>/<accessKeyId>, its id becoming the access key id (secret unknown)", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1/credentials")
      .reply(200, [{ access_key_id: "CPAK7", active: true }]);
    nock(base).get("/object-storage/buckets/bkt_1").reply(200, { id: "bkt_1", name: "logs" });
    const r = await read("bkt_1/CPAK7", urn("BucketCredential", "c"), {});
    expect(r.id).toBe("CPAK7");
    // The derived outputs are filled, so an S3 client can be configured from an imported credential.
    expect(r.props).toEqual({
      bucketId: "bkt_1",
      accessKeyId: "CPAK7",
      // As a take-over (`accessKeyId`) leaves it: an empty secret, still marked secret, and said unknown.
      secretAccessKey: wrap(""),
      secretKnown: false,
      active: true,
      bucketName: "logs",
      s3Endpoint: s3,
      region: "us-east-1",
      secretFingerprint: "",
    });
    // The generated program takes the same credential over, and states whether it is active.
    expect(r.inputs).toEqual({ bucketId: "bkt_1", accessKeyId: "CPAK7", active: true });
  });

  it("a credential import id without the bucket is refused with the expected form", async () => {
    const err = await thrown(() => read("CPAK7", urn("BucketCredential", "c"), {}));
    expect(err["code"]).toBe("CLOUDPLATFORM_IMPORT_ID_INVALID");
    expect(err.message).toContain("<bucketId>/<accessKeyId>");
  });

  it("deletes a credential the engine still names by its import id, by its access key id", async () => {
    const creds = "/object-storage/buckets/bkt_1/credentials";
    nock(base).delete(`${creds}/CPAK7`).reply(204);
    await del("bkt_1/CPAK7", urn("BucketCredential", "c"), { bucketId: "bkt_1", accessKeyId: "CPAK7" });
  });

  it("refuses to import an API key or a transcript, saying why", async () => {
    const apiKeyErr = await thrown(() => read("x", urn("ApiKey", "r"), {}));
    expect(apiKeyErr["code"]).toBe("CLOUDPLATFORM_IMPORT_UNSUPPORTED");
    expect(apiKeyErr.message).toContain("reads an API key back");
    const transcriptErr = await thrown(() => read("x", urn("Transcript", "r"), {}));
    expect(transcriptErr["code"]).toBe("CLOUDPLATFORM_IMPORT_UNSUPPORTED");
    expect(transcriptErr.message).toContain("not kept by the platform");
  });
});

describe("configure", () => {
  useApi();

  function request(variables: Record<string, string>, args?: Record<string, unknown>): ConfigureRequestLike {
    return {
      getVariablesMap: () => ({ forEach: (cb) => Object.entries(variables).forEach(([k, v]) => cb(v, k)) }),
      getArgs: () => (args === undefined ? undefined : { toJavaScript: () => args }),
    };
  }

  it("reads cloudplatform:config:* variables and ignores other packages", () => {
    expect(configValues(request({ "cloudplatform:config:baseUrl": base, "aws:config:region": "eu-west-1" }))).toEqual({
      "cloudplatform:baseUrl": base,
    });
  });

  it("falls back to args, unwrapping secrets", () => {
    expect(configValues(request({}, { apiKey: wrap(apiKey), s3Url: s3 }))).toEqual({
      "cloudplatform:apiKey": apiKey,
      "cloudplatform:s3Url": s3,
    });
  });

  it("takes a number setting from args as text, as stack config gives it", () => {
    expect(configValues(request({}, { maxRequestsPerSecond: 10, maxConcurrentRequests: 4 }))).toEqual({
      "cloudplatform:maxRequestsPerSecond": "10",
      "cloudplatform:maxConcurrentRequests": "4",
    });
  });

  it("the configured values are what the cores' client uses", async () => {
    const configured = testHost();
    configured.configure(
      configValues(
        request({ "cloudplatform:config:baseUrl": "http://other.test", "cloudplatform:config:apiKey": apiKey }),
      ),
    );
    nock("http://other.test").get("/dns/zones/zone_1").reply(200, { id: "zone_1", name: "a.example", nameservers: [] });
    const provider = createProvider({ version: "1.2.3", host: configured });
    expect((await provider.read!("zone_1", urn("DnsZone", "z"), { zoneId: "zone_1" })).id).toBe("zone_1");
  });
});

describe("the engine's address, for the plugin's lines to reach the CLI's output", () => {
  it("is the first argument that is not one of the engine's logging or tracing flags", () => {
    expect(engineAddress(["127.0.0.1:4000"])).toBe("127.0.0.1:4000");
    expect(engineAddress(["--logtostderr", "-v=9", "--tracing", "file:/t", "127.0.0.1:4000"])).toBe("127.0.0.1:4000");
    expect(engineAddress([])).toBeUndefined();
  });

  it("is given to @pulumi/pulumi unless something named an engine already", () => {
    const env: NodeJS.ProcessEnv = {};
    useEngineOf(["127.0.0.1:4000"], env);
    expect(env["PULUMI_NODEJS_ENGINE"]).toBe("127.0.0.1:4000");
    useEngineOf(["127.0.0.1:5000"], env);
    expect(env["PULUMI_NODEJS_ENGINE"]).toBe("127.0.0.1:4000");
  });
});
