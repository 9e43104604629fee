import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator, type ShapeName } from "../src/index.js";
import { testOptions } from "./helpers.js";

// The shapes the emulator can play (docs/api-contract.md §9.2), over real HTTP: every answer of the
// management lifecycle and of transcription, asserted to the letter of the table.

interface Wire {
  status: number;
  type: string | null;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test asserts the exact shape it reads
  json: any;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const isEpochSeconds = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v > 1.6e9 && v < 1e11;
const isEpochMillis = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v > 1.6e12;

async function send(emu: RunningEmulator, method: string, path: string, auth: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (auth !== null) headers["authorization"] = auth;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(emu.baseUrl + path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get("content-type"), headers: res.headers, text, json } as Wire;
}

function withShape(shape: ShapeName) {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator(testOptions({ shape, syncWaitMs: 0 }));
  });
  afterAll(async () => {
    await emu.close();
  });
  return {
    get emu() {
      return emu;
    },
    call: (method: string, path: string, body?: unknown, auth?: string | null) =>
      send(emu, method, path, auth === undefined ? emu.apiKey : auth, body),
  };
}

describe("shape canonical (§3–§8)", () => {
  const s = withShape("canonical");

  it("answers bare objects and arrays with ids, snake_case and RFC 3339 timestamps", async () => {
    expect(s.emu.shape).toBe("canonical");
    const bucket = await s.call("POST", "/object-storage/buckets", { name: "canon-bucket", storage_class: "Standard" });
    expect(bucket.status).toBe(201);
    expect(bucket.json).toEqual({
      id: expect.stringMatching(/^bkt_/),
      name: "canon-bucket",
      storage_class: "Standard",
      created_at: expect.stringMatching(RFC3339),
    });
    const cred = await s.call("POST", `/object-storage/buckets/${bucket.json.id}/credentials`);
    expect(Object.keys(cred.json).sort()).toEqual(
      ["access_key_id", "active", "bucket_id", "created_at", "secret_access_key"].sort(),
    );
    const off = await s.call(
      "POST",
      `/object-storage/buckets/${bucket.json.id}/credentials/${cred.json.access_key_id}/deactivate`,
    );
    expect([off.status, off.json.active, off.json.secret_access_key]).toEqual([200, false, undefined]);
    const del = await s.call(
      "DELETE",
      `/object-storage/buckets/${bucket.json.id}/credentials/${cred.json.access_key_id}`,
    );
    expect([del.status, del.text]).toEqual([204, ""]);
    const refused = await s.call("GET", "/dns/zones", undefined, "cp-wrong");
    expect([refused.status, refused.json.error.code]).toEqual([401, "unauthorized"]);
  });
});

describe("shape envelope", () => {
  const s = withShape("envelope");

  it("wraps every JSON answer in data, lists with meta.count, errors as errors[]", async () => {
    const key = await s.call("POST", "/security/apikey");
    expect(key.status).toBe(200);
    expect(key.json).toEqual({
      data: { api_key: expect.stringMatching(/^cp-/), created_at: expect.stringMatching(RFC3339) },
    });
    const apiKey = key.json.data.api_key as string;
    const call = (method: string, path: string, body?: unknown, auth: string | null = apiKey) =>
      s.call(method, path, body, auth);

    const zone = await call("POST", "/dns/zones", { name: "envelope.example" });
    expect(zone.status).toBe(201);
    expect(zone.json).toEqual({
      data: {
        id: expect.stringMatching(/^zone_/),
        name: "envelope.example",
        status: "active",
        nameservers: ["ns1.cloudplatform.test", "ns2.cloudplatform.test"],
        created_at: expect.stringMatching(RFC3339),
      },
    });
    const zoneId = zone.json.data.id as string;
    expect((await call("GET", "/dns/zones")).json).toEqual({ data: [zone.json.data], meta: { count: 1 } });
    expect((await call("GET", "/dns/zones?name=envelope.example")).json).toEqual({
      data: [zone.json.data],
      meta: { count: 1 },
    });
    expect((await call("GET", `/dns/zones/${zoneId}`)).json).toEqual(zone.json);
    const dupZone = await call("POST", "/dns/zones", { name: "envelope.example" });
    expect([dupZone.status, dupZone.json]).toEqual([
      409,
      { errors: [{ code: "name_taken", detail: "a zone named envelope.example already exists" }] },
    ]);
    expect((await call("DELETE", `/dns/zones/${zoneId}`)).status).toBe(204);

    const bucket = await call("POST", "/object-storage/buckets", {
      name: "envelope-bucket",
      storage_class: "Standard",
    });
    expect(bucket.json.data).toMatchObject({ id: expect.stringMatching(/^bkt_/), name: "envelope-bucket" });
    const bucketId = bucket.json.data.id as string;
    expect((await call("GET", "/object-storage/buckets")).json).toEqual({
      data: [bucket.json.data],
      meta: { count: 1 },
    });
    expect((await call("GET", `/object-storage/buckets/${bucketId}`)).json).toEqual(bucket.json);

    const base = `/object-storage/buckets/${bucketId}/credentials`;
    const cred = await call("POST", base);
    expect(cred.status).toBe(201);
    expect(cred.json.data).toEqual({
      access_key_id: expect.stringMatching(/^CPAK/),
      secret_access_key: expect.any(String),
      active: true,
      bucket_id: bucketId,
      created_at: expect.stringMatching(RFC3339),
    });
    const ak = cred.json.data.access_key_id as string;
    const listed = await call("GET", base);
    expect(listed.json).toEqual({ data: [{ ...cred.json.data, secret_access_key: undefined }], meta: { count: 1 } });
    expect(listed.text).not.toContain("secret_access_key");
    const off = await call("POST", `${base}/${ak}/deactivate`);
    expect([off.status, off.json.data.active]).toEqual([200, false]);
    const on = await call("POST", `${base}/${ak}/activate`);
    expect([on.status, on.json.data.active]).toEqual([200, true]);
    const regen = await call("POST", `${base}/${ak}/regenerate`);
    expect([regen.status, regen.json.data.access_key_id]).toEqual([200, ak]);
    expect(regen.json.data.secret_access_key).not.toBe(cred.json.data.secret_access_key);
    expect((await call("DELETE", `${base}/${ak}`)).status).toBe(204);
    expect((await call("DELETE", `/object-storage/buckets/${bucketId}`)).status).toBe(204);
    const gone = await call("GET", `/object-storage/buckets/${bucketId}`);
    expect([gone.status, gone.json.errors[0].code]).toEqual([404, "not_found"]);

    const refused = await call("GET", "/dns/zones", undefined, "cp-wrong");
    expect([refused.status, refused.json.errors[0].code]).toEqual([401, "unauthorized"]);
    expect(refused.json.errors[0].detail).toContain("credential");
  });

  it("wraps transcription answers too", async () => {
    const upload = await s.call("POST", "/v1/transcripts/upload", {});
    expect(upload.json).toEqual({
      data: {
        uploadKey: expect.stringMatching(/^upl_/),
        uploadUrl: expect.stringContaining("/v1/uploads/"),
        expires_at: expect.stringMatching(RFC3339),
      },
    });
    const created = await s.call("POST", "/v1/transcripts?wait=false", { url: "http://127.0.0.1:9/a.wav" });
    expect(created.status).toBe(202);
    expect(created.json.data).toMatchObject({
      id: expect.stringMatching(/^tr_/),
      status: "queued",
      audio_duration: null,
    });
    expect(created.headers.get("location")).toBe(`/v1/transcripts/${created.json.data.id}`);
    const read = await s.call("GET", `/v1/transcripts/${created.json.data.id}`);
    expect(read.json.data.id).toBe(created.json.data.id);
  });
});

describe("shape flat", () => {
  const s = withShape("flat");

  it("answers bare objects with numeric ids, epoch seconds, terse names and status strings", async () => {
    const key = await s.call("POST", "/security/apikey");
    expect(key.json).toEqual({ key: expect.stringMatching(/^cp-/), created_at: expect.any(Number) });
    expect(isEpochSeconds(key.json.created_at)).toBe(true);
    const apiKey = key.json.key as string;
    const call = (method: string, path: string, body?: unknown, auth: string | null = apiKey) =>
      s.call(method, path, body, auth);

    const zone = await call("POST", "/dns/zones", { name: "flat.example" });
    expect(zone.status).toBe(201);
    expect(zone.json).toEqual({
      id: expect.any(Number),
      name: "flat.example",
      status: "active",
      nameservers: ["ns1.cloudplatform.test", "ns2.cloudplatform.test"],
      created_at: expect.any(Number),
    });
    expect(Number.isSafeInteger(zone.json.id)).toBe(true);
    expect(isEpochSeconds(zone.json.created_at)).toBe(true);
    expect((await call("GET", "/dns/zones")).json).toEqual([zone.json]);
    expect((await call("GET", `/dns/zones/${zone.json.id}`)).json).toEqual(zone.json);
    const dupZone = await call("POST", "/dns/zones", { name: "flat.example" });
    expect([dupZone.status, dupZone.type, dupZone.text]).toEqual([
      409,
      "text/plain; charset=utf-8",
      "a zone named flat.example already exists\n",
    ]);
    const deletedZone = await call("DELETE", `/dns/zones/${zone.json.id}`);
    expect([deletedZone.status, deletedZone.json]).toEqual([200, { message: "deleted" }]);
    expect((await call("GET", `/dns/zones/${zone.json.id}`)).status).toBe(404);

    const bucket = await call("POST", "/object-storage/buckets", { name: "flat-bucket", storage_class: "Archive" });
    expect(bucket.json).toEqual({
      id: expect.any(Number),
      name: "flat-bucket",
      storage_class: "Archive",
      created_at: expect.any(Number),
    });
    const bucketId = bucket.json.id as number;
    expect((await call("GET", "/object-storage/buckets")).json).toEqual([bucket.json]);
    expect((await call("GET", `/object-storage/buckets/${bucketId}`)).json).toEqual(bucket.json);
    // Only the numbers name objects here.
    expect((await call("GET", "/object-storage/buckets/bkt_00000000000000000000")).status).toBe(404);

    const base = `/object-storage/buckets/${bucketId}/credentials`;
    const cred = await call("POST", base);
    expect(cred.status).toBe(201);
    expect(cred.json).toEqual({
      access_key: expect.stringMatching(/^CPAK/),
      secret: expect.any(String),
      status: "active",
      bucket_id: bucketId,
      created_at: expect.any(Number),
    });
    const ak = cred.json.access_key as string;
    expect((await call("GET", base)).json).toEqual({
      credentials: [{ access_key: ak, status: "active", bucket_id: bucketId, created_at: cred.json.created_at }],
    });
    const off = await call("POST", `${base}/${ak}/deactivate`);
    expect([off.status, off.text]).toEqual([204, ""]);
    expect((await call("GET", base)).json.credentials[0].status).toBe("inactive");
    const on = await call("POST", `${base}/${ak}/activate`);
    expect([on.status, on.text]).toEqual([204, ""]);
    const regen = await call("POST", `${base}/${ak}/regenerate`);
    expect(regen.json).toEqual({ ...cred.json, secret: expect.any(String) });
    expect(regen.json.secret).not.toBe(cred.json.secret);
    expect((await call("DELETE", `${base}/${ak}`)).json).toEqual({ message: "deleted" });
    expect((await call("DELETE", `/object-storage/buckets/${bucketId}`)).status).toBe(200);

    const refused = await call("GET", "/dns/zones", undefined, "cp-wrong");
    expect([refused.status, refused.type]).toEqual([403, "text/plain; charset=utf-8"]);
    expect(refused.headers.get("www-authenticate")).toBeNull();
  });

  it("shows transcripts with numeric ids, duration and epoch seconds, and reads them back by number", async () => {
    const upload = await s.call("POST", "/v1/transcripts/upload", {});
    expect(upload.json).toEqual({
      uploadKey: expect.stringMatching(/^upl_/),
      uploadUrl: expect.stringContaining("/v1/uploads/"),
      expires_at: expect.any(Number),
    });
    const created = await s.call("POST", "/v1/transcripts?wait=false", { url: "http://127.0.0.1:9/a.wav" });
    expect(created.status).toBe(202);
    expect(created.json).toMatchObject({ id: expect.any(Number), status: "queued", duration: null });
    expect(created.json).not.toHaveProperty("audio_duration");
    expect(isEpochSeconds(created.json.created_at)).toBe(true);
    expect(created.headers.get("location")).toBe(`/v1/transcripts/${created.json.id}`);
    const read = await s.call("GET", `/v1/transcripts/${created.json.id}`);
    expect([read.status, read.json.id]).toEqual([200, created.json.id]);
    const refused = await s.call("GET", `/v1/transcripts/${created.json.id}`, undefined, "cp-wrong");
    expect(refused.status).toBe(403);
  });
});

describe("shape by-name", () => {
  const s = withShape("by-name");

  it("keys everything by name: no ids, bodies under the kind, camelCase, epoch milliseconds", async () => {
    const key = await s.call("POST", "/security/apikey");
    expect(key.json).toEqual({ apiKey: expect.stringMatching(/^cp-/), createdAt: expect.any(Number) });
    expect(isEpochMillis(key.json.createdAt)).toBe(true);
    const apiKey = key.json.apiKey as string;
    const call = (method: string, path: string, body?: unknown, auth: string | null = apiKey) =>
      s.call(method, path, body, auth);

    const zone = await call("POST", "/dns/zones", { name: "by-name.example" });
    expect(zone.status).toBe(201);
    expect(zone.json).toEqual({
      zone: {
        name: "by-name.example",
        status: "active",
        nameservers: ["ns1.cloudplatform.test", "ns2.cloudplatform.test"],
        createdAt: expect.any(Number),
      },
    });
    expect(isEpochMillis(zone.json.zone.createdAt)).toBe(true);
    expect((await call("GET", "/dns/zones")).json).toEqual({ zones: [zone.json.zone] });
    const readZone = await call("GET", "/dns/zones/by-name.example");
    expect([readZone.status, readZone.headers.get("allow")]).toEqual([405, "DELETE"]);
    expect(readZone.json.error).toBe("method_not_allowed");
    const dupZone = await call("POST", "/dns/zones", { name: "by-name.example" });
    expect([dupZone.status, dupZone.json]).toEqual([
      409,
      { error: "name_taken", error_description: "a zone named by-name.example already exists" },
    ]);
    const deletedZone = await call("DELETE", "/dns/zones/by-name.example");
    expect([deletedZone.status, deletedZone.json]).toEqual([202, { message: "zone by-name.example deleted" }]);
    expect((await call("DELETE", "/dns/zones/by-name.example")).json).toEqual({
      error: "not_found",
      error_description: "zone by-name.example does not exist",
    });

    const bucket = await call("POST", "/object-storage/buckets", { name: "by-name-bucket", storage_class: "Standard" });
    expect(bucket.json).toEqual({
      bucket: { name: "by-name-bucket", storageClass: "Standard", createdAt: expect.any(Number) },
    });
    expect((await call("GET", "/object-storage/buckets?name=by-name-bucket")).json).toEqual({
      buckets: [bucket.json.bucket],
    });
    const readBucket = await call("GET", "/object-storage/buckets/by-name-bucket");
    expect([readBucket.status, readBucket.headers.get("allow")]).toEqual([405, "DELETE"]);

    const base = "/object-storage/buckets/by-name-bucket/credentials";
    const cred = await call("POST", base);
    expect(cred.status).toBe(201);
    expect(cred.json).toEqual({
      credential: {
        accessKeyId: expect.stringMatching(/^CPAK/),
        secretAccessKey: expect.any(String),
        enabled: true,
        bucketName: "by-name-bucket",
        createdAt: expect.any(Number),
      },
    });
    const ak = cred.json.credential.accessKeyId as string;
    const { secretAccessKey: _secret, ...listedView } = cred.json.credential;
    expect((await call("GET", base)).json).toEqual({ credentials: [listedView] });
    const off = await call("POST", `${base}/${ak}/deactivate`);
    expect([off.status, off.json]).toEqual([200, { message: `credential ${ak} deactivated` }]);
    expect((await call("GET", base)).json.credentials[0].enabled).toBe(false);
    const on = await call("POST", `${base}/${ak}/activate`);
    expect([on.status, on.json]).toEqual([200, { message: `credential ${ak} activated` }]);
    const regen = await call("POST", `${base}/${ak}/regenerate`);
    expect(regen.json).toEqual({ credential: { ...cred.json.credential, secretAccessKey: expect.any(String) } });
    expect(regen.json.credential.secretAccessKey).not.toBe(cred.json.credential.secretAccessKey);
    expect((await call("DELETE", `${base}/${ak}`)).json).toEqual({ message: `credential ${ak} deleted` });
    const deleted = await call("DELETE", "/object-storage/buckets/by-name-bucket");
    expect([deleted.status, deleted.json]).toEqual([202, { message: "bucket by-name-bucket deleted" }]);
    expect((await call("GET", "/object-storage/buckets")).json).toEqual({ buckets: [] });

    const refused = await call("GET", "/dns/zones", undefined, "cp-wrong");
    expect([refused.status, refused.json.error]).toEqual([401, "unauthorized"]);
    expect(refused.json.error_description).toContain("credential");
  });

  it("takes the API key only as Bearer on transcription, and keys transcription bodies by kind", async () => {
    const raw = await s.call("POST", "/v1/transcripts/upload", {});
    expect([raw.status, raw.json.error]).toEqual([401, "unauthorized"]);
    expect(raw.json.error_description).toContain("Bearer <api key>");
    const bearer = `Bearer ${s.emu.apiKey}`;
    expect((await s.call("GET", "/dns/zones", undefined, bearer)).status).toBe(401);
    expect((await s.call("GET", "/dns/zones", undefined, `Bearer ${s.emu.token}`)).status).toBe(200);

    const upload = await s.call("POST", "/v1/transcripts/upload", {}, bearer);
    expect(upload.json).toEqual({
      upload: {
        uploadKey: expect.stringMatching(/^upl_/),
        uploadUrl: expect.stringContaining("/v1/uploads/"),
        expiresAt: expect.any(Number),
      },
    });
    const put = await fetch(upload.json.upload.uploadUrl as string, { method: "PUT", body: "not audio" });
    expect(await put.json()).toEqual({ upload: { uploadKey: upload.json.upload.uploadKey, size: 9 } });

    const created = await s.call("POST", "/v1/transcripts?wait=false", { url: "http://127.0.0.1:9/a.wav" }, bearer);
    expect(created.status).toBe(202);
    expect(created.json.transcript).toMatchObject({
      id: expect.stringMatching(/^tr_/),
      status: "queued",
      audioDuration: null,
      priceUsd: null,
      webhookUrl: null,
      completedAt: null,
    });
    expect(isEpochMillis(created.json.transcript.createdAt)).toBe(true);
    const read = await s.call(
      "GET",
      `/v1/transcripts/${created.json.transcript.id}`,
      undefined,
      `Bearer ${s.emu.token}`,
    );
    expect(read.json.transcript.id).toBe(created.json.transcript.id);
  });
});

describe("what shapes leave alone", () => {
  const s = withShape("flat");

  it("keeps /_emulator/ canonical and the S3 plane in S3 XML", async () => {
    const state = await s.call("GET", "/_emulator/state", undefined, null);
    expect(state.json).toMatchObject({ buckets: 0, zones: 0 });
    const s3 = await fetch(`${s.emu.s3Url}/no-bucket/key`);
    expect([s3.status, s3.headers.get("content-type")]).toEqual([403, "application/xml"]);
  });
});
