// docs/api-contract.md §2.3: every accepted shape, through the provider's real calls against nock.
// Each describe is one row of the table; the last ones are platforms in REST styles the emulator
// does not play (JSON:API, Stripe-like, HAL/Spring), run through the resource cores.
import nock from "nock";
import { describe, expect, it } from "vitest";
import {
  createCredential,
  listCredentials,
  regenerateCredential,
  setCredentialActive,
} from "../../provider/platform/bucket-credential/api.js";
import { createBucket, deleteBucket, getBucket, listBuckets } from "../../provider/platform/bucket/api.js";
import { rotateApiKey } from "../../provider/platform/api-key/api.js";
import { getZone, listZones } from "../../provider/platform/dns-zone/api.js";
import { apiKeyCore } from "../../provider/resources/api-key/core.js";
import { bucketCore } from "../../provider/resources/bucket/core.js";
import { bucketCredentialCore, type BucketCredentialOutputs } from "../../provider/resources/bucket-credential/core.js";
import { dnsZoneCore } from "../../provider/resources/dns-zone/core.js";
import { transcriptionApi } from "../../provider/platform/transcript/api.js";
import { ApiClient } from "../../provider/client.js";
import { timestamp } from "../../provider/answers/values.js";
import { readErrorBody } from "../../provider/answers/error-body.js";
import { fingerprint } from "../../provider/redact.js";
import { apiKey, base, bucketState, ctx, s3, testHost, thrown, token, useApi, type Logged } from "./support.js";

const buckets = "/object-storage/buckets";
const creds = `${buckets}/bkt_1/credentials`;
const secret = "SecretValue-abcdefghijklmnop";
const client = () => ctx().client;
/** A credential create's answer as read (its earlier attempt is not looked for here: shapes are). */
const createdCredential = async (c: ApiClient) => (await createCredential(c, "bkt_1", async () => undefined)).value;

describe("§2.3 one object: bare, under an envelope or its kind, nested, JSON:API attributes", () => {
  useApi();
  const bucket = { id: "bkt_1", name: "logs", storage_class: "Standard" };

  it.each([
    ["bare", bucket],
    ["data", { data: bucket }],
    ["result", { result: bucket, success: true, errors: [] }],
    ["kind", { bucket }],
    ["data then kind", { data: { bucket } }],
    ["response.data", { response: { data: bucket } }],
    ["JSON:API", { data: { type: "buckets", id: "bkt_1", attributes: { name: "logs", "storage-class": "Standard" } } }],
  ])("%s", async (_, body) => {
    nock(base).get(`${buckets}/bkt_1`).reply(200, body);
    expect(await getBucket(client(), "bkt_1")).toMatchObject(bucket);
  });

  it("each kind under its own name: zone, credential, API key, transcript, upload", async () => {
    nock(base)
      .get("/dns/zones/z1")
      .reply(200, { dns_zone: { id: "z1", name: "a.example" } })
      .post(creds)
      .reply(201, { credential: { access_key_id: "AK1", secret_access_key: secret } })
      .post("/security/apikey")
      .reply(200, { api_key: { value: "cp-abc_1" } })
      .post("/security/apikey")
      .reply(200, { apiKey: "cp-abc_2" })
      .get("/v1/transcripts/tr_1")
      .reply(200, { transcript: { id: "tr_1", status: "done", text: "hi" } })
      .post("/v1/transcripts/upload")
      .reply(200, { upload: { uploadKey: "upl_1", uploadUrl: "https://up.example/x" } });
    expect((await getZone(client(), "z1")).name).toBe("a.example");
    expect((await createdCredential(client())).access_key_id).toBe("AK1");
    expect((await rotateApiKey(client())).api_key).toBe("cp-abc_1");
    expect((await rotateApiKey(client())).api_key).toBe("cp-abc_2");
    const tx = transcriptionApi(client());
    expect(await tx.getTranscript("tr_1")).toMatchObject({ id: "tr_1", status: "done", text: "hi" });
    expect(await tx.prepareUpload({ filename: "a.wav", size: 1 })).toEqual({
      uploadKey: "upl_1",
      uploadUrl: "https://up.example/x",
    });
  });

  it("takes the object, not its envelope's own id", async () => {
    nock(base)
      .post(creds)
      .reply(201, { id: 7, request_id: "r1", credential: { access_key: "AK1", secret: "s-1234567890" } });
    expect(await createdCredential(client())).toMatchObject({
      access_key_id: "AK1",
      secret_access_key: "s-1234567890",
    });
  });
});

describe("§2.3 a list: bare, under a list key or the plural, nested once, or the only array", () => {
  useApi();
  const items = [{ id: "bkt_1", name: "logs" }];

  it.each([
    ["bare", items],
    ["data", { data: items, meta: { count: 1 } }],
    ["items", { items, total: 1 }],
    ["results", { results: items }],
    ["plural", { buckets: items }],
    ["data.items", { data: { items } }],
    ["result.buckets", { result: { buckets: items } }],
    ["HAL _embedded", { _embedded: { buckets: items }, _links: { self: { href: "/x" } } }],
    ["OData value", { value: items, "@odata.context": "$metadata#buckets" }],
    ["the only array", { bucket_list: items, request_id: "r1" }],
    ["items under their kind", [{ bucket: items[0] }]],
  ])("%s", async (_, body) => {
    nock(base).get(buckets).reply(200, body);
    expect(await listBuckets(client())).toMatchObject(items);
  });

  it("fails on an item it cannot read, rather than drop it (a dropped credential would read as gone)", async () => {
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AK1" }, { label: "x" }]);
    const err = await thrown(() => listCredentials(client(), "bkt_1"));
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_UNEXPECTED_RESPONSE", status: 200 });
    expect(err.message).toContain("list item 1");
  });
});

describe("§2.3 field names in any spelling", () => {
  useApi();

  it.each([
    ["snake_case", { id: "b", name: "n", storage_class: "Archive", created_at: "2026-01-02T03:04:05Z" }],
    ["camelCase", { id: "b", name: "n", storageClass: "Archive", createdAt: "2026-01-02T03:04:05Z" }],
    ["PascalCase", { Id: "b", Name: "n", StorageClass: "Archive", CreatedAt: "2026-01-02T03:04:05Z" }],
    ["kebab-case", { id: "b", name: "n", "storage-class": "Archive", "created-at": "2026-01-02T03:04:05Z" }],
  ])("%s", async (_, body) => {
    nock(base).get(`${buckets}/b`).reply(200, body);
    expect(await getBucket(client(), "b")).toEqual({
      id: "b",
      name: "n",
      storage_class: "Archive",
      created_at: "2026-01-02T03:04:05Z",
    });
  });
});

describe("§2.3 identifiers", () => {
  useApi();

  it.each([
    ["id", { id: "bkt_1" }, "bkt_1"],
    ["<kind>_id", { bucket_id: "bkt_1" }, "bkt_1"],
    ["<kind>Id", { bucketId: "bkt_1" }, "bkt_1"],
    ["uuid", { uuid: "0b7e2c36-9d6e-4c7e-8f2a-1d2e3f4a5b6c" }, "0b7e2c36-9d6e-4c7e-8f2a-1d2e3f4a5b6c"],
    ["a number", { id: 42 }, "42"],
  ])("%s", async (_, ids, expected) => {
    nock(base)
      .get(buckets)
      .reply(200, [{ ...ids, name: "logs" }]);
    expect((await listBuckets(client()))[0]?.id).toBe(expected);
  });

  it("keeps a 64-bit numeric id exact, as its decimal string", async () => {
    nock(base).get(buckets).reply(200, '[{"id": 12345678901234567891, "name": "logs"}]', {
      "content-type": "application/json",
    });
    expect((await listBuckets(client()))[0]?.id).toBe("12345678901234567891");
  });

  it("without any identifier, the name is the id, and paths carry it", async () => {
    nock(base)
      .post(buckets)
      .reply(201, { bucket: { name: "logs", storageClass: "Standard" } })
      // A bucket this process created: its name and its (no) credentials are known without a read.
      .post(`${buckets}/logs/credentials`)
      .reply(201, { credential: { accessKeyId: "AK1", secretAccessKey: secret, enabled: true } });
    const created = await bucketCore.create(ctx(), {
      name: "logs",
      storageClass: "Standard",
      forceDestroy: false,
      adopt: false,
    });
    expect(created.id).toBe("logs");
    const cred = await bucketCredentialCore.create(ctx(), { bucketId: created.id, active: true });
    expect(cred.outs).toMatchObject({ bucketId: "logs", bucketName: "logs", accessKeyId: "AK1", active: true });
  });

  it("a create answer that leaves out the name sent is completed with it; one with neither id nor name is unusable", async () => {
    nock(base).post(buckets).reply(201, { id: 9 }).post(buckets).reply(201, { message: "created" });
    // An unusable answer is a lost one (§2.4): the bucket is looked for by name, here in vain.
    nock(base).get(buckets).query({ name: "logs" }).reply(200, []);
    expect((await createBucket(client(), "logs", "Standard")).value).toMatchObject({ id: "9", name: "logs" });
    const err = await thrown(() => createBucket(client(), "logs", "Standard"));
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_UNEXPECTED_RESPONSE", status: 201, endpoint: `POST ${buckets}` });
    expect(err.message).toContain("received keys [message]");
  });
});

describe("§2.3 timestamps, stored as RFC 3339 UTC", () => {
  it.each([
    ["2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z"],
    ["2026-01-02T03:04:05.678Z", "2026-01-02T03:04:05.678Z"],
    ["2026-01-02T05:04:05+02:00", "2026-01-02T03:04:05Z"],
    ["2026-01-02T05:04:05+0200", "2026-01-02T03:04:05Z"],
    ["2026-01-02 03:04:05", "2026-01-02T03:04:05Z"],
    ["Fri, 02 Jan 2026 03:04:05 GMT", "2026-01-02T03:04:05Z"],
    [1767323045, "2026-01-02T03:04:05Z"],
    [1767323045678, "2026-01-02T03:04:05.678Z"],
    ["1767323045", "2026-01-02T03:04:05Z"],
    ["1767323045678", "2026-01-02T03:04:05.678Z"],
    [1767323045.5, "2026-01-02T03:04:05.500Z"],
  ])("%s", (input, expected) => {
    expect(timestamp(input)).toBe(expected);
  });

  it.each([["yesterday"], [-5], [true], [{}], ["2026-13-45T99:99:99Z"]])("%s is no timestamp", (input) => {
    expect(timestamp(input)).toBeUndefined();
  });

  describe("under the names APIs give it", () => {
    useApi();
    it.each([["created_at"], ["created"], ["creation_date"], ["createdAt"], ["inserted_at"], ["timeCreated"]])(
      "%s",
      async (key) => {
        nock(base)
          .get(`${buckets}/b`)
          .reply(200, { id: "b", name: "n", [key]: 1767323045 });
        expect((await getBucket(client(), "b")).created_at).toBe("2026-01-02T03:04:05Z");
      },
    );
  });
});

describe("§2.3 optional fields that do not parse are dropped, unknown fields ignored", () => {
  useApi();

  it("keeps what it needs from an answer full of surprises", async () => {
    nock(base)
      .get("/dns/zones/z1")
      .reply(200, {
        id: "z1",
        name: "Example.COM.",
        status: 3,
        nameservers: "ns1.example",
        created_at: "last tuesday",
        owner: { id: 5, name: "alice" },
        tags: [1, 2],
      });
    expect(await getZone(client(), "z1")).toEqual({
      id: "z1",
      name: "example.com",
      status: undefined,
      nameservers: [],
      created_at: undefined,
    });
  });

  it("reads nameservers given as objects, and a storage class in another case without drift", async () => {
    nock(base)
      .get("/dns/zones/z1")
      .reply(200, { id: "z1", name: "a.example", nameservers: [{ name: "ns1.x" }, { host: "ns2.x" }] })
      .get(`${buckets}/bkt_1`)
      .reply(200, { id: "bkt_1", name: "logs", storage_class: "STANDARD" });
    expect((await getZone(client(), "z1")).nameservers).toEqual(["ns1.x", "ns2.x"]);
    const read = await bucketCore.read(ctx(), "bkt_1", bucketState);
    expect(read.outs?.storageClass).toBe("Standard");
  });
});

describe("§2.3 credential state", () => {
  useApi();

  it.each([
    [{ active: true }, true],
    [{ active: false }, false],
    [{ enabled: false }, false],
    [{ is_active: true }, true],
    [{ isEnabled: false }, false],
    [{ active: "false" }, false],
    [{ disabled: true }, false],
    [{ status: "active" }, true],
    [{ status: "Enabled" }, true],
    [{ status: "deactivated" }, false],
    [{ status: "inactive" }, false],
    [{ status: "disabled" }, false],
    [{ status: "SUSPENDED" }, false],
    [{ state: "revoked" }, false],
    [{ status: "pending" }, undefined],
    [{}, undefined],
  ])("%j", async (state, expected) => {
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AK1", ...state }]);
    expect((await listCredentials(client(), "bkt_1"))[0]?.active).toBe(expected);
  });
});

describe("§2.3 access key id and S3 secret", () => {
  useApi();

  it.each([
    [{ access_key_id: "AK1", secret_access_key: secret }],
    [{ access_key: "AK1", secret_key: secret }],
    [{ key_id: "AK1", secret }],
    [{ accessKeyId: "AK1", secretAccessKey: secret }],
    [{ AccessKeyId: "AK1", SecretAccessKey: secret }],
    [{ id: "AK1", secret }],
    [{ applicationKeyId: "AK1", applicationKey: secret }],
  ])("%j", async (body) => {
    nock(base).post(creds).reply(201, body);
    expect(await createdCredential(client())).toMatchObject({
      access_key_id: "AK1",
      secret_access_key: secret,
    });
  });

  it("never takes a bare `key` for the access key id (it may be the secret)", async () => {
    nock(base)
      .get(creds)
      .reply(200, [{ key: "looks-like-a-secret" }]);
    expect((await thrown(() => listCredentials(client(), "bkt_1"))).code).toBe("CLOUDPLATFORM_UNEXPECTED_RESPONSE");
  });

  it("a bucket id given as a number or a name is kept; one that does not parse is dropped", async () => {
    nock(base)
      .get(creds)
      .reply(200, [
        { access_key: "A", bucket_id: 17 },
        { access_key: "B", bucketName: "logs" },
        { access_key: "C", bucket_id: { nested: true } },
      ]);
    expect((await listCredentials(client(), "bkt_1")).map((c) => c.bucket_id)).toEqual(["17", "logs", undefined]);
  });
});

describe("§2.3 the API key", () => {
  useApi();

  it.each([
    [{ api_key: "cp-k_1" }],
    [{ key: "cp-k_1", created_at: 1767323045 }],
    [{ apikey: "cp-k_1" }],
    [{ token: "cp-k_1" }],
    [{ value: "cp-k_1" }],
    [{ secret: "cp-k_1" }],
    [{ data: { apiKey: "cp-k_1" } }],
    [{ id: "key_1", name: "default", value: "cp-k_1" }],
    [{ token: "tok_1", key: "cp-k_1" }],
  ])("%j", async (body) => {
    nock(base).post("/security/apikey").reply(200, body);
    expect((await rotateApiKey(client())).api_key).toBe("cp-k_1");
  });
});

describe("§2.3 action answers", () => {
  useApi();
  const state: BucketCredentialOutputs = {
    bucketId: "bkt_1",
    accessKeyId: "AK1",
    secretAccessKey: secret,
    secretKnown: true,
    secretFingerprint: fingerprint(secret),
    active: true,
    bucketName: "logs",
    s3Endpoint: s3,
    region: "us-east-1",
    rotateWhenChanged: { v: "1" },
  };

  it.each([
    ["204", 204, undefined],
    ["200 with the object", 200, { access_key_id: "AK1", active: false }],
    ["200 with the object in an envelope", 200, { data: { accessKeyId: "AK1", status: "inactive" } }],
    ["200 with only a message", 200, { message: "credential AK1 deactivated" }],
    ["202 with nothing", 202, undefined],
    ["200 with text", 200, "ok"],
  ])("activate / deactivate: %s", async (_, status, body) => {
    nock(base).post(`${creds}/AK1/deactivate`).reply(status, body);
    const outs = await bucketCredentialCore.update(ctx(), "AK1", state, {
      bucketId: "bkt_1",
      active: false,
      rotateWhenChanged: { v: "1" },
    });
    expect(outs).toEqual({ ...state, active: false });
  });

  it("regenerate without a secret in its answer: regenerated again once, the second secret kept", async () => {
    nock(base)
      .post(`${creds}/AK1/regenerate`)
      .reply(204)
      .post(`${creds}/AK1/regenerate`)
      .reply(200, { credential: { accessKeyId: "AK1", secretAccessKey: "Second-secret-0123456789" } });
    const regenerated = await regenerateCredential(client(), "bkt_1", "AK1");
    expect(regenerated.secret_access_key).toBe("Second-secret-0123456789");
  });

  it("regenerate answered twice without a secret: a typed error, and a state without the dead secret", async () => {
    nock(base)
      .post(`${creds}/AK1/regenerate`)
      .reply(200, { message: "regenerated" })
      .post(`${creds}/AK1/regenerate`)
      .reply(204);
    const err = await thrown(() =>
      bucketCredentialCore.update(ctx(), "AK1", state, {
        bucketId: "bkt_1",
        active: true,
        rotateWhenChanged: { v: "2" },
      }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_PARTIAL");
    expect(err.message).toContain("CLOUDPLATFORM_UNEXPECTED_RESPONSE");
    expect(err.message).toContain("no longer works");
    // The next up sees the old rotateWhenChanged, so it regenerates again; the dead secret is gone.
    expect(err["outs"]).toEqual({ ...state, secretAccessKey: "", secretKnown: false, secretFingerprint: "" });
  });

  it("other failures of regenerate are not taken for a regeneration", async () => {
    nock(base)
      .post(`${creds}/AK1/regenerate`)
      .reply(404, { error: { code: "not_found" } });
    const err = await thrown(() => regenerateCredential(client(), "bkt_1", "AK1"));
    expect(err.code).toBe("CLOUDPLATFORM_NOT_FOUND");
  });

  it("activate and deactivate need nothing from the answer, even one that is not JSON", async () => {
    nock(base).post(`${creds}/AK1/activate`).reply(200, "ok\n", { "content-type": "text/plain" });
    await setCredentialActive(client(), "bkt_1", "AK1", true);
  });

  it("an HTML page is a proxy's, not the platform's answer: the action (a state to set) is sent again", async () => {
    nock(base)
      .post(`${creds}/AK1/deactivate`)
      .reply(200, "<html>ok</html>", { "content-type": "text/html" })
      .post(`${creds}/AK1/deactivate`)
      .reply(204);
    await setCredentialActive(client(), "bkt_1", "AK1", false);
  });
});

describe("§2.3 delete answers", () => {
  useApi();

  it.each([
    [204, undefined],
    [200, { message: "deleted" }],
    [202, { message: "bucket b deleted" }],
    [200, { id: "bkt_1", object: "bucket", deleted: true }],
    [200, "deleted\n"],
    [200, undefined],
  ])("%s %j is done", async (status, body) => {
    nock(base).delete(`${buckets}/bkt_1`).reply(status, body);
    expect(await deleteBucket(client(), "bkt_1")).toBe(true);
  });

  it.each([[404], [410]])("%s is already gone", async (status) => {
    nock(base).delete(`${buckets}/bkt_1`).reply(status);
    expect(await deleteBucket(client(), "bkt_1")).toBe(false);
  });
});

describe("§2.3 read one by id on a platform without that route", () => {
  useApi();

  it.each([[405], [501]])(
    "%s: answered from the list, and the list answers for the rest of the run",
    async (status) => {
      nock(base)
        .get(`${buckets}/bkt_1`)
        .reply(status)
        .get(buckets)
        .times(2)
        .reply(200, [
          { id: "bkt_1", name: "logs" },
          { id: "bkt_2", name: "other" },
        ])
        // Asked only if the missing route were forgotten.
        .get(`${buckets}/bkt_2`)
        .optionally()
        .reply(200, { id: "bkt_2", name: "read-by-route" });
      const c = client();
      expect((await getBucket(c, "bkt_1")).name).toBe("logs");
      expect((await getBucket(c, "bkt_2")).name).toBe("other");
    },
  );

  it("404 while the list still has the object: a missing route, remembered", async () => {
    nock(base)
      .get("/dns/zones/z1")
      .reply(404)
      .get("/dns/zones")
      .times(2)
      .reply(200, { zones: [{ id: "z1", name: "a.example" }] })
      .get("/dns/zones/z1")
      .optionally()
      .reply(200, { id: "z1", name: "read-by-route.example" });
    const c = client();
    expect((await getZone(c, "z1")).name).toBe("a.example");
    expect((await getZone(c, "z1")).name).toBe("a.example");
  });

  it("404 of an object the list does not have either: gone, and the route is tried again next time", async () => {
    nock(base)
      .get("/dns/zones/z1")
      .reply(404)
      .get("/dns/zones")
      .reply(200, [])
      .get("/dns/zones/z1")
      .reply(200, { id: "z1", name: "a.example" });
    const c = client();
    expect((await thrown(() => getZone(c, "z1"))).code).toBe("CLOUDPLATFORM_NOT_FOUND");
    expect((await getZone(c, "z1")).name).toBe("a.example");
  });

  it("once remembered, an object missing from the list is gone (refresh drops it)", async () => {
    nock(base).get(`${buckets}/bkt_1`).reply(405).get(buckets).reply(200, []);
    const context = ctx();
    expect(await bucketCore.read(context, "bkt_1", bucketState)).toEqual({});
    expect(await bucketCore.read(context, "bkt_1", bucketState)).toEqual({});
  });

  it("is remembered per client: another client tries the route first", async () => {
    nock(base)
      .get(`${buckets}/bkt_1`)
      .reply(405)
      .get(buckets)
      .reply(200, [{ id: "bkt_1", name: "logs" }])
      .get(`${buckets}/bkt_1`)
      .reply(200, { id: "bkt_1", name: "logs" });
    await getBucket(client(), "bkt_1");
    const other = testHost();
    other.configure({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    await getBucket(other.context("Bucket", "b").client, "bkt_1");
  });

  it("other errors are errors", async () => {
    nock(base).get(`${buckets}/bkt_1`).reply(400, { message: "bad id" });
    expect((await thrown(() => getBucket(client(), "bkt_1"))).code).toBe("CLOUDPLATFORM_BAD_REQUEST");
  });
});

describe("§2.3 lists on several pages", () => {
  useApi();

  it("follows the Link header, absolute or relative", async () => {
    nock(base)
      .get(buckets)
      .reply(200, [{ id: "b1", name: "one" }], {
        link: `<${base}${buckets}?page=2>; rel="next", <${base}${buckets}?page=3>; rel="last"`,
      })
      .get(buckets)
      .query({ page: "2" })
      .reply(200, [{ id: "b2", name: "two" }], { link: `<${buckets}?page=3>; rel="next"` })
      .get(buckets)
      .query({ page: "3" })
      .reply(200, [{ id: "b3", name: "three" }], { link: `<${buckets}?page=1>; rel="first"` });
    expect((await listBuckets(client())).map((b) => b.id)).toEqual(["b1", "b2", "b3"]);
  });

  it.each([
    ["links.next", (next: string) => ({ links: { next } })],
    ["next", (next: string) => ({ next })],
    ["_links.next.href", (next: string) => ({ _links: { next: { href: next } } })],
    ["@odata.nextLink", (next: string) => ({ "@odata.nextLink": next })],
    ["meta.next_page_url", (next: string) => ({ meta: { next_page_url: next } })],
  ])("follows a next link in the body: %s", async (_, paging) => {
    nock(base)
      .get(creds)
      .reply(200, { credentials: [{ access_key_id: "A" }], ...paging(`${base}${creds}?cursor=c2`) })
      .get(creds)
      .query({ cursor: "c2" })
      .reply(200, { credentials: [{ access_key_id: "B", active: false }], ...paging("") });
    expect((await listCredentials(client(), "bkt_1")).map((c) => c.access_key_id)).toEqual(["A", "B"]);
  });

  it("reads a credential that is on the second page as present, not gone", async () => {
    nock(base)
      .get(creds)
      .reply(200, { data: [{ access_key_id: "A" }], links: { next: `${creds}?page=2` } })
      .get(creds)
      .query({ page: "2" })
      .reply(200, { data: [{ access_key_id: "AK1", active: false }], links: { next: null } })
      .get(`${buckets}/bkt_1`)
      .reply(200, { id: "bkt_1", name: "logs" });
    const read = await bucketCredentialCore.read(ctx(), "AK1", {
      bucketId: "bkt_1",
      accessKeyId: "AK1",
      secretAccessKey: secret,
      secretKnown: true,
      active: true,
      bucketName: "",
      s3Endpoint: s3,
      region: "us-east-1",
    });
    expect(read.outs?.active).toBe(false);
  });

  const one = { id: "b1", name: "x" };
  const two = { id: "b2", name: "y" };
  it.each([
    [
      "Stripe's has_more: starting_after the last id",
      { object: "list", data: [one], has_more: true },
      { starting_after: "b1" },
      { object: "list", data: [two], has_more: false },
    ],
    ["Google's nextPageToken", { buckets: [one], nextPageToken: "t2" }, { pageToken: "t2" }, { buckets: [two] }],
    [
      "Slack's response_metadata.next_cursor",
      { items: [one], response_metadata: { next_cursor: "c2" } },
      { cursor: "c2" },
      { items: [two], response_metadata: { next_cursor: "" } },
    ],
    ["AWS's NextToken", { Buckets: [one], NextToken: "n2" }, { NextToken: "n2" }, { Buckets: [two] }],
    [
      "a page number below the page count",
      { items: [one], page: 1, total_pages: 2 },
      { page: "2" },
      { items: [two], page: 2, total_pages: 2 },
    ],
    [
      "Laravel's meta.current_page and last_page",
      { data: [one], meta: { current_page: 1, last_page: 2 } },
      { page: "2" },
      { data: [two], meta: { current_page: 2, last_page: 2 } },
    ],
    [
      "a camelCase pageNumber",
      { items: [one], pageNumber: 1, totalPages: 2 },
      { pageNumber: "2" },
      { items: [two], pageNumber: 2, totalPages: 2 },
    ],
    [
      "Spring's 0-based page.number",
      { _embedded: { buckets: [one] }, page: { size: 1, totalElements: 2, totalPages: 2, number: 0 } },
      { page: "1" },
      { _embedded: { buckets: [two] }, page: { size: 1, totalElements: 2, totalPages: 2, number: 1 } },
    ],
    [
      "an offset below the total, with its limit",
      { items: [one], offset: 0, limit: 1, total: 2 },
      { offset: "1", limit: "1" },
      { items: [two], offset: 1, limit: 1, total: 2 },
    ],
    [
      "a cursor beside has_more: false is the last page",
      { items: [one], next_cursor: "c2", has_more: true },
      { cursor: "c2" },
      { items: [two], next_cursor: "c3", has_more: false },
    ],
  ])("follows a list without links: %s", async (_, first, nextQuery, second) => {
    nock(base).get(buckets).reply(200, first).get(buckets).query(nextQuery).reply(200, second);
    expect((await listBuckets(client())).map((b) => b.id)).toEqual(["b1", "b2"]);
  });

  it("keeps the lookup's own query on every page, and the base URL's path", async () => {
    const prefixed = new ApiClient({ ...client().settings, baseUrl: `${base}/v2` });
    nock(base)
      .get(`/v2${buckets}`)
      .query({ name: "x" })
      .reply(200, { buckets: [one], next_cursor: "c2" })
      .get(`/v2${buckets}`)
      .query({ name: "x", cursor: "c2" })
      .reply(200, { buckets: [{ ...two, name: "x" }] });
    expect((await listBuckets(prefixed, "x")).map((b) => b.id)).toEqual(["b1", "b2"]);
  });

  it.each([
    [
      "has_more, items without an id",
      { credentials: [{ access_key_id: "A" }], has_more: true },
      "it gives no link to them, nor a cursor, page number or offset",
    ],
    [
      "a total above the items, no offset",
      { credentials: [{ access_key_id: "A" }], total: 2 },
      "it gives no link to them, nor a cursor, page number or offset",
    ],
    [
      "has_more beside an offset that says it is the last page",
      { credentials: [{ access_key_id: "A" }], offset: 0, total: 1, has_more: true },
      "it gives no link to them, nor a cursor, page number or offset",
    ],
    [
      "a next page on another host",
      { credentials: [{ access_key_id: "A" }], next: "https://elsewhere.example/b?p=2" },
      "its next page is not under the base URL",
    ],
  ])("fails on a list it cannot finish, rather than hide objects: %s", async (_, body, why) => {
    nock(base).get(creds).reply(200, body);
    const err = await thrown(() => listCredentials(client(), "bkt_1"));
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_UNEXPECTED_RESPONSE", endpoint: `GET ${creds}` });
    expect(err.message).toContain(`the list continues on further pages, but ${why}`);
  });

  it("fails on a platform that ignores the page parameter, rather than read page 1 for ever", async () => {
    nock(base)
      .get(buckets)
      .reply(200, { items: [one], page: 1, total_pages: 3 })
      .get(buckets)
      .query({ page: "2" })
      .reply(200, { items: [one], page: 1, total_pages: 3 });
    expect((await thrown(() => listBuckets(client()))).message).toContain("its pages do not end");
  });

  it("fails on a link back to the first page", async () => {
    nock(base)
      .get(buckets)
      .reply(200, { items: [one], next: `${buckets}?p=2` })
      .get(buckets)
      .query({ p: "2" })
      .reply(200, { items: [two], next: buckets });
    expect((await thrown(() => listBuckets(client()))).message).toContain("its pages do not end");
  });

  it("stops a list whose pages link back", async () => {
    nock(base)
      .get(buckets)
      .reply(200, { items: [{ id: "b1", name: "x" }], next: `${buckets}?p=2` })
      .get(buckets)
      .query({ p: "2" })
      .reply(200, { items: [{ id: "b2", name: "y" }], next: `${buckets}?p=2` });
    expect((await thrown(() => listBuckets(client()))).message).toContain("its pages do not end");
  });
});

describe("§2.3 error bodies", () => {
  it.each([
    ['{"error": {"code": "not_found", "message": "m"}}', "not_found", "m"],
    ['{"code": "not_found", "message": "m"}', "not_found", "m"],
    ['{"error": "not_found", "message": "m"}', "not_found", "m"],
    ['{"error": "something broke here"}', undefined, "something broke here"],
    ['{"errors": [{"code": "not_found", "detail": "m"}]}', "not_found", "m"],
    ['{"errors": [{"status": "404", "title": "m"}]}', undefined, "m"],
    ['{"errors": ["m"]}', undefined, "m"],
    ['{"message": "m"}', undefined, "m"],
    ['{"detail": "m"}', undefined, "m"],
    ['{"type": "https://x/probs/nf", "title": "Not found", "status": 404, "detail": "m"}', undefined, "Not found: m"],
    ['{"error": "invalid_grant", "error_description": "m"}', "invalid_grant", "m"],
    [
      '{"error": {"type": "invalid_request_error", "code": "resource_missing", "message": "m"}}',
      "resource_missing",
      "m",
    ],
    ['{"error": {"code": 404, "message": "m", "status": "NOT_FOUND"}}', "NOT_FOUND", "m"],
    [
      '{"timestamp": "2026-01-01T00:00:00Z", "status": 404, "error": "Not Found", "message": "m", "path": "/x"}',
      undefined,
      "m",
    ],
    ['{"Error": {"Code": "NoSuchBucket", "Message": "m"}}', "NoSuchBucket", "m"],
    ['{"error_code": "not_found", "error_message": "m"}', "not_found", "m"],
    ["<Error><Code>NoSuchKey</Code><Message>m</Message></Error>", "NoSuchKey", "m"],
    ["m\nsecond line", undefined, "m"],
    ["<html><body>Bad gateway</body></html>", undefined, undefined],
    ["", undefined, undefined],
    ['"m"', undefined, "m"],
  ])("%s", (body, apiCode, message) => {
    expect(readErrorBody(body)).toEqual({ apiCode, message });
  });

  describe("through the client", () => {
    useApi();
    it("names the server's code and message, whatever the shape", async () => {
      nock(base)
        .get("/dns/zones/z1")
        .reply(409, "a zone named a.example already exists\n", { "content-type": "text/plain" })
        .get("/dns/zones/z2")
        .reply(409, { errors: [{ code: "name_taken", detail: "taken" }] });
      const plain = await thrown(() => getZone(client(), "z1"));
      expect(plain).toMatchObject({ code: "CLOUDPLATFORM_CONFLICT", status: 409 });
      expect(plain.message).toContain("failed with 409: a zone named a.example already exists");
      const listed = await thrown(() => getZone(client(), "z2"));
      expect(listed).toMatchObject({ apiCode: "name_taken" });
      expect(listed.message).toContain("409 name_taken: taken");
    });
  });
});

describe("§2.3 a refused credential: 401 or 403", () => {
  useApi();

  it.each([[401], [403]])("%s: one code, naming the setting to check", async (status) => {
    nock(base).get("/dns/zones").reply(status, { message: "nope" });
    const err = await thrown(() => listZones(client()));
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_UNAUTHORIZED", status });
    expect(err.message).toContain("check cloudplatform:apiKey (or CLOUDPLATFORM_API_KEY)");
  });

  it("names the token when the token is what was refused", async () => {
    const h = testHost();
    h.configure({ "cloudplatform:baseUrl": base, "cloudplatform:token": token });
    nock(base).get("/dns/zones").reply(403, "forbidden");
    const err = await thrown(() => listZones(h.context("DnsZone", "z").client));
    expect(err.code).toBe("CLOUDPLATFORM_UNAUTHORIZED");
    expect(err.message).toContain("check cloudplatform:token (or CLOUDPLATFORM_TOKEN)");
  });
});

describe("§2.3 transcription that wants Authorization: Bearer <api_key>", () => {
  useApi();
  const raw = { reqheaders: { authorization: apiKey } };
  const bearer = { reqheaders: { authorization: `Bearer ${apiKey}` } };
  const job = { id: "tr_1", status: "queued" };

  it("tries the contract's raw key, falls back once on 401, and keeps the Bearer form for the client", async () => {
    nock(base, raw).get("/v1/transcripts/tr_1").reply(401, { error: "unauthorized" });
    nock(base, bearer).get("/v1/transcripts/tr_1").times(2).reply(200, job);
    const tx = transcriptionApi(client());
    expect(await tx.getTranscript("tr_1")).toMatchObject(job);
    expect(await tx.getTranscript("tr_1")).toMatchObject(job);
  });

  it("repeats a create refused for its credential with the Bearer form (a refused request was not processed)", async () => {
    nock(base, raw).post("/v1/transcripts").query({ wait: "false" }).reply(403, "forbidden");
    nock(base, bearer).post("/v1/transcripts").query({ wait: "false" }).reply(202, job);
    const created = await transcriptionApi(client()).createTranscript({
      url: "https://m.example/a.mp3",
      language: "auto",
    });
    expect(created).toMatchObject(job);
  });

  it("fails with the refusal when the Bearer form is refused too, after exactly two requests", async () => {
    nock(base, raw).get("/v1/transcripts/tr_1").reply(401);
    nock(base, bearer).get("/v1/transcripts/tr_1").reply(401);
    expect((await thrown(() => transcriptionApi(client()).getTranscript("tr_1"))).code).toBe(
      "CLOUDPLATFORM_UNAUTHORIZED",
    );
  });

  it("does not fall back on the management API, nor with a JWT", async () => {
    nock(base, raw).get("/dns/zones").reply(401);
    expect((await thrown(() => listZones(client()))).code).toBe("CLOUDPLATFORM_UNAUTHORIZED");
    const h = testHost();
    h.configure({ "cloudplatform:baseUrl": base, "cloudplatform:token": token });
    nock(base, { reqheaders: { authorization: `Bearer ${token}` } })
      .get("/v1/transcripts/tr_1")
      .reply(401);
    const err = await thrown(() => transcriptionApi(h.context("Transcript", "t").client).getTranscript("tr_1"));
    expect(err.code).toBe("CLOUDPLATFORM_UNAUTHORIZED");
  });

  it("remembers per client: a new client starts with the contract's form", async () => {
    nock(base, raw).get("/v1/transcripts/tr_1").reply(401);
    nock(base, bearer).get("/v1/transcripts/tr_1").reply(200, job);
    await transcriptionApi(client()).getTranscript("tr_1");
    const fresh = testHost();
    fresh.configure({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    nock(base, raw).get("/v1/transcripts/tr_1").reply(200, job);
    await transcriptionApi(fresh.context("Transcript", "t").client).getTranscript("tr_1");
  });
});

describe("§2.3 transcripts as other platforms spell them", () => {
  useApi();

  it.each([
    [
      "numeric id, epoch seconds, duration",
      { id: 17, status: "done", text: "hi", duration: 61, completed_at: 1767323045 },
      "17",
    ],
    [
      "by kind, camelCase, epoch ms",
      { transcript: { id: "tr_1", status: "done", text: "hi", audioDuration: 61, completedAt: 1767323045000 } },
      "tr_1",
    ],
    [
      "other words for the state",
      { id: "tr_1", state: "completed", transcription: "hi", duration_ms: 61000, completed_at: "2026-01-02T03:04:05Z" },
      "tr_1",
    ],
  ])("%s", async (_, body, id) => {
    nock(base).get(`/v1/transcripts/${id}`).reply(200, body);
    expect(await transcriptionApi(client()).getTranscript(id)).toMatchObject({
      id,
      status: "done",
      text: "hi",
      audioDurationSeconds: 61,
      completedAt: "2026-01-02T03:04:05Z",
    });
  });

  it.each([
    ["pending", "queued"],
    ["waiting", "queued"],
    ["running", "processing"],
    ["in_progress", "processing"],
    ["SUCCEEDED", "done"],
    ["complete", "done"],
    ["failed", "error"],
  ])("the state %s is %s", async (word, status) => {
    nock(base).get("/v1/transcripts/tr_1").reply(200, { id: "tr_1", status: word });
    expect((await transcriptionApi(client()).getTranscript("tr_1"))?.status).toBe(status);
  });

  it("a state it does not know, or no id, is an unusable answer", async () => {
    nock(base)
      .get("/v1/transcripts/tr_1")
      .reply(200, { id: "tr_1", status: "exploded" })
      .get("/v1/transcripts/tr_1")
      .reply(200, { status: "done" });
    const tx = transcriptionApi(client());
    expect((await thrown(() => tx.getTranscript("tr_1"))).message).toContain("no usable status");
    expect((await thrown(() => tx.getTranscript("tr_1"))).message).toContain("no usable transcript id");
  });

  it("price, finish time and an upload slot under other names", async () => {
    nock(base)
      .get("/v1/transcripts/tr_1")
      .reply(200, { id: "tr_1", status: "done", cost: "0.01", finished_at: "2026-01-02T03:04:05Z", lang: "en" })
      .post("/v1/transcripts/upload")
      .reply(200, { key: "upl_1", url: "https://up.example/x", expires_in: 3600 });
    const tx = transcriptionApi(client());
    expect(await tx.getTranscript("tr_1")).toEqual({
      id: "tr_1",
      status: "done",
      priceUsd: 0.01,
      completedAt: "2026-01-02T03:04:05Z",
      language: "en",
    });
    expect(await tx.prepareUpload({ filename: "a.wav", size: 1 })).toEqual({
      uploadKey: "upl_1",
      uploadUrl: "https://up.example/x",
    });
  });

  it("reads a failed job's error from the string of the spec or an object", async () => {
    nock(base)
      .get("/v1/transcripts/a")
      .reply(200, { id: "a", status: "failed", error: { code: "insufficient_balance", message: "add funds" } })
      .get("/v1/transcripts/b")
      .reply(200, { id: "b", status: "error", error_message: "insufficient_balance: add funds" });
    for (const id of ["a", "b"]) {
      expect(await transcriptionApi(client()).getTranscript(id)).toMatchObject({
        status: "error",
        errorCode: "insufficient_balance",
        errorMessage: "add funds",
      });
    }
  });
});

describe("unreadable 2xx answers are told apart", () => {
  useApi();

  it("an answer that is not JSON, or lacks what the operation needs: UnexpectedResponseError with status and endpoint", async () => {
    nock(base)
      .post(creds)
      .reply(200, "<html>Welcome</html>", { "content-type": "text/html" })
      .post(creds)
      .reply(201, { access_key_id: "AK1", note: "secret shown once" });
    const html = await thrown(() => createdCredential(client()));
    expect(html).toMatchObject({ code: "CLOUDPLATFORM_UNEXPECTED_RESPONSE", status: 200, endpoint: `POST ${creds}` });
    const noSecret = await thrown(() => createdCredential(client()));
    expect(noSecret).toMatchObject({ code: "CLOUDPLATFORM_UNEXPECTED_RESPONSE", status: 201 });
    expect(noSecret.message).toContain("no usable secret");
    expect(noSecret.message).toContain("received keys [access_key_id, note]");
  });
});

// Platforms the emulator does not play, written from their own REST habits, run through the cores.

interface Facts {
  readonly id: string;
  readonly created: number;
  readonly [field: string]: unknown;
}

interface Platform {
  readonly style: string;
  /** One object of `kind` as the platform shows it, and the answer that carries it. */
  one(kind: string, facts: Facts): object;
  list(kind: string, items: Facts[]): object;
  /** The id as paths carry it (`facts.id` as the platform spells it). */
  path(facts: Facts): string;
  readonly deleted: [number, unknown?];
  error(status: number, code: string, message: string): object;
}

const seconds = 1767323045; // 2026-01-02T03:04:05Z
const iso = "2026-01-02T03:04:05Z";
const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const kebab = (k: string) => k.replace(/_/g, "-");
const renamed = (facts: Facts, spell: (k: string) => string, names: Record<string, string> = {}) =>
  Object.fromEntries(
    Object.entries(facts)
      .filter(([k]) => k !== "id" && k !== "created")
      .map(([k, v]) => [spell(names[k] ?? k), v]),
  );

/** JSON:API (jsonapi.org): `{"data": {"type", "id", "attributes"}}`, kebab-case members, `errors[]`. */
const jsonApi: Platform = {
  style: "JSON:API",
  one: (kind, f) => ({ data: jsonApiResource(kind, f), links: { self: `/${kind}s/${f.id}` } }),
  list: (kind, items) => ({
    data: items.map((f) => jsonApiResource(kind, f)),
    links: { next: null },
    meta: { total: items.length },
  }),
  path: (f) => f.id,
  deleted: [204],
  error: (status, code, detail) => ({ errors: [{ status: String(status), code, title: "Error", detail }] }),
};
function jsonApiResource(kind: string, f: Facts) {
  const attributes = { ...renamed(f, kebab, { active: "is_active" }), "created-at": iso };
  return { type: `${kind}s`, id: f.id, attributes, relationships: {} };
}

/** Stripe-like: bare objects with `object` and `created` (epoch seconds), lists `{"object": "list", "data", "has_more"}`. */
const stripeLike: Platform = {
  style: "Stripe-like",
  one: (kind, f) => stripeObject(kind, f),
  list: (kind, items) => ({
    object: "list",
    data: items.map((f) => stripeObject(kind, f)),
    has_more: false,
    url: `/${kind}s`,
  }),
  path: (f) => f.id,
  deleted: [200, { object: "deleted", deleted: true }],
  error: (_status, code, message) => ({ error: { type: "invalid_request_error", code, message } }),
};
function stripeObject(kind: string, f: Facts) {
  const { active, ...rest } = f;
  const status = active === undefined ? {} : { status: active ? "active" : "inactive" };
  return {
    id: f.id,
    object: kind,
    ...renamed(rest as Facts, (k) => k),
    ...status,
    created: f.created,
    livemode: false,
  };
}

/** HAL / Spring Data REST: numeric `<kind>Id`, camelCase, offsets in timestamps, `_embedded`, `page`. */
const halSpring: Platform = {
  style: "HAL / Spring",
  one: (kind, f) => halObject(kind, f),
  list: (kind, items) => ({
    _embedded: { [`${kind}s`]: items.map((f) => halObject(kind, f)) },
    _links: { self: { href: `/${kind}s` } },
    page: { size: 20, totalElements: items.length, totalPages: 1, number: 0 },
  }),
  path: (f) => String(100 + Number(f.id.replace(/\D/g, "") || 0)),
  deleted: [204],
  error: (status, _code, message) => ({
    timestamp: "2026-01-02T03:04:05.000+00:00",
    status,
    error: "Error",
    message,
    path: "/x",
  }),
};
function halObject(kind: string, f: Facts) {
  const fields = renamed(f, camel, { active: "enabled", storage_class: "storage_class", nameservers: "name_servers" });
  if (typeof fields.storageClass === "string") fields.storageClass = fields.storageClass.toUpperCase();
  if (typeof fields.name === "string" && kind === "zone") fields.name = `${fields.name}.`;
  return {
    [`${camel(kind)}Id`]: Number(halSpring.path(f)),
    ...fields,
    createdAt: "2026-01-02T05:04:05+02:00",
    _links: { self: { href: `/${kind}s/${halSpring.path(f)}` } },
  };
}

describe.each([jsonApi, stripeLike, halSpring])("a $style platform, through the resource cores", (p) => {
  useApi();
  const bucket: Facts = { id: "bkt_1", created: seconds, name: "media", storage_class: "Standard" };
  const zone: Facts = { id: "zone_1", created: seconds, name: "example.com", nameservers: ["ns1.x", "ns2.x"] };
  const credential = (over: Record<string, unknown> = {}): Facts => ({
    id: "cred_1",
    created: seconds,
    access_key_id: "CPAK1",
    active: true,
    ...over,
  });
  const bucketPath = `${buckets}/${p.path(bucket)}`;
  const credPath = `${bucketPath}/credentials`;

  it("Bucket: create, read with no drift, delete", async () => {
    nock(base)
      .post(buckets)
      .reply(201, p.one("bucket", bucket))
      .get(bucketPath)
      .reply(200, p.one("bucket", bucket))
      .delete(bucketPath)
      .reply(...p.deleted);
    const inputs = { name: "media", storageClass: "Standard", forceDestroy: false, adopt: false };
    const created = await bucketCore.create(ctx(), inputs);
    expect(created).toEqual({
      id: p.path(bucket),
      outs: {
        ...inputs,
        bucketId: p.path(bucket),
        adopted: false,
        s3Endpoint: s3,
        region: "us-east-1",
        createdAt: iso,
      },
    });
    const read = await bucketCore.read(ctx(), created.id, created.outs);
    expect(read).toEqual({ id: created.id, outs: created.outs, inputs });
    await bucketCore.delete(ctx(), created.id, created.outs);
  });

  it("Bucket: a taken name is a conflict with the platform's code and message", async () => {
    nock(base)
      .post(buckets)
      .reply(409, p.error(409, "name_taken", "a bucket named media already exists"));
    const err = await thrown(() =>
      bucketCore.create(ctx(), { name: "media", storageClass: "Standard", forceDestroy: false, adopt: false }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_CONFLICT");
    expect(err.message).toContain("a bucket named media already exists");
  });

  it("DnsZone: create, read with no drift, a deleted one read as gone, delete", async () => {
    const zonePath = `/dns/zones/${p.path(zone)}`;
    nock(base)
      .post("/dns/zones")
      .reply(201, p.one("zone", zone))
      .get(zonePath)
      .reply(200, p.one("zone", zone))
      .get(zonePath)
      .reply(404, p.error(404, "not_found", "no such zone"))
      .get("/dns/zones")
      .reply(200, p.list("zone", []))
      .delete(zonePath)
      .reply(...p.deleted);
    const created = await dnsZoneCore.create(ctx(), { name: "example.com", adopt: false });
    expect(created.outs).toMatchObject({ zoneId: p.path(zone), name: "example.com", nameservers: ["ns1.x", "ns2.x"] });
    expect(await dnsZoneCore.read(ctx(), created.id, created.outs)).toEqual({
      id: created.id,
      outs: created.outs,
      inputs: { name: "example.com", adopt: false },
    });
    expect(await dnsZoneCore.read(ctx(), created.id, created.outs)).toEqual({});
    await dnsZoneCore.delete(ctx(), created.id, created.outs);
  });

  it("BucketCredential: create, drift on read, activate, rotate, delete", async () => {
    nock(base)
      .get(bucketPath)
      .reply(200, p.one("bucket", bucket))
      // What the bucket holds before the create (§2.4), read since this process did not create it.
      .get(credPath)
      .reply(200, p.list("credential", []))
      .post(credPath)
      .reply(201, p.one("credential", credential({ secret_access_key: secret })))
      .get(credPath)
      .reply(
        200,
        p.list("credential", [credential({ active: false }), credential({ id: "cred_2", access_key_id: "CPAK2" })]),
      )
      .post(`${credPath}/CPAK1/activate`)
      .reply(200, p.one("credential", credential()))
      .post(`${credPath}/CPAK1/regenerate`)
      .reply(200, p.one("credential", credential({ secret_access_key: "Rotated-secret-0123456789" })))
      .delete(`${credPath}/CPAK1`)
      .reply(...p.deleted);
    const created = await bucketCredentialCore.create(ctx(), { bucketId: p.path(bucket), active: true });
    expect(created.outs).toMatchObject({
      accessKeyId: "CPAK1",
      secretAccessKey: secret,
      active: true,
      bucketName: "media",
    });

    const logs: Logged[] = [];
    const read = await bucketCredentialCore.read(ctx("c", logs), created.id, created.outs);
    expect(read.outs).toEqual({ ...created.outs, active: false, createdAt: iso });
    expect(logs.map((l) => l.message).join()).toContain("deactivated outside Pulumi");

    const rotated = await bucketCredentialCore.update(ctx(), created.id, read.outs!, {
      bucketId: p.path(bucket),
      active: true,
      rotateWhenChanged: { v: "2" },
    });
    expect(rotated).toMatchObject({ accessKeyId: "CPAK1", secretAccessKey: "Rotated-secret-0123456789", active: true });
    await bucketCredentialCore.delete(ctx(), created.id, rotated);
  });

  it("ApiKey: create", async () => {
    const key: Facts = { id: "key_1", created: seconds, token: "cp-rotated_key_1" };
    nock(base).post("/security/apikey").reply(201, p.one("api_key", key));
    const h = testHost();
    h.configure({ "cloudplatform:baseUrl": base, "cloudplatform:token": token });
    const created = await apiKeyCore.create(h.context("ApiKey", "k"), {});
    expect(created.outs).toEqual({
      key: "cp-rotated_key_1",
      secretFingerprint: fingerprint("cp-rotated_key_1"),
      createdAt: iso,
    });
  });

  it("Transcript: create and poll", async () => {
    const job = (status: string): Facts => ({
      id: "tr_1",
      created: seconds,
      status,
      text: status === "done" ? "hi" : null,
      audio_duration: 61,
    });
    nock(base)
      .post("/v1/transcripts")
      .query({ wait: "false" })
      .reply(202, p.one("transcript", job("queued")))
      .get(`/v1/transcripts/${p.path(job("done"))}`)
      .reply(200, p.one("transcript", job("done")));
    const tx = transcriptionApi(client());
    const queued = await tx.createTranscript({ url: "https://media.example/a.mp3", language: "en" });
    expect(queued).toMatchObject({ status: "queued", createdAt: iso });
    expect(await tx.getTranscript(queued.id)).toMatchObject({
      id: queued.id,
      status: "done",
      text: "hi",
      audioDurationSeconds: 61,
    });
  });
});
