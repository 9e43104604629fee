import nock from "nock";
import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import { ApiClient, type ClientOptions } from "../../provider/client.js";
import type { Settings } from "../../provider/config.js";
import { CloudPlatformError } from "../../provider/errors.js";
import { registerSecret } from "../../provider/redact.js";
import { backoffDelay, defaultRetryPolicy, parseRetryAfter } from "../../provider/retry.js";
import { credentialWithSecretSchema } from "../../provider/platform/bucket-credential/parse.js";
import { bucketSchema } from "../../provider/platform/bucket/parse.js";
import { readErrorBody } from "../../provider/answers/error-body.js";
import { createCredential } from "../../provider/platform/bucket-credential/api.js";
import { createBucket, deleteBucket } from "../../provider/platform/bucket/api.js";
import { apiKey, base, thrown, useApi } from "./support.js";

const settings: Settings = {
  baseUrl: base,
  apiUrl: `${base}/tx`,
  s3Url: undefined,
  auth: { kind: "apiKey", value: apiKey },
};

/** A client whose waits are recorded in `delays` instead of taken, with jitter fixed at half the ceiling. */
function client(options: ClientOptions = {}, delays: number[] = [], now: () => number = Date.now): ApiClient {
  const clock = { now, sleep: async (ms: number) => void delays.push(ms) };
  return new ApiClient(settings, { clock, ...options, retry: { random: () => 0.5, ...options.retry } });
}

describe("ApiClient", () => {
  useApi();

  it("sends the raw API key, or a Bearer token, in Authorization", async () => {
    nock(base, { reqheaders: { authorization: apiKey } })
      .get("/dns/zones")
      .reply(200, []);
    await client().request({ method: "GET", path: "/dns/zones" });
    nock(base, { reqheaders: { authorization: "Bearer jwt-token-value" } })
      .get("/dns/zones")
      .reply(200, []);
    await new ApiClient({ ...settings, auth: { kind: "token", value: "jwt-token-value" } }).request({
      method: "GET",
      path: "/dns/zones",
    });
  });

  it("sends a request refused with a key this run rotated meanwhile again, once, with the new key", async () => {
    // An upload sent with the old key, answered after an ApiKey resource of the same run rotated it.
    let current: Settings["auth"] = { kind: "apiKey", value: apiKey };
    const refused = nock(base, { reqheaders: { authorization: apiKey } })
      .post("/object-storage/buckets")
      .reply(() => {
        current = { kind: "apiKey", value: "cp-rotated-key" };
        return [401, { error: { code: "unauthorized", message: "invalid API key" } }];
      });
    const resent = nock(base, { reqheaders: { authorization: "cp-rotated-key" } })
      .post("/object-storage/buckets")
      .reply(201, { id: "b1" });
    const res = await client({ currentAuth: () => current }).request({
      method: "POST",
      path: "/object-storage/buckets",
      body: { name: "media" },
    });
    expect(res).toMatchObject({ status: 201, data: { id: "b1" } });
    expect(refused.isDone() && resent.isDone()).toBe(true);
  });

  it("does not send a refused request again when the run's key did not change", async () => {
    nock(base, { reqheaders: { authorization: apiKey } })
      .get("/dns/zones")
      .reply(401, { error: { code: "unauthorized", message: "invalid API key" } });
    const error = await thrown(() =>
      client({ currentAuth: () => settings.auth }).request({ method: "GET", path: "/dns/zones" }),
    );
    expect(error).toMatchObject({ code: "CLOUDPLATFORM_UNAUTHORIZED" });
  });

  it("uses apiUrl for the transcription base and encodes the query", async () => {
    nock(base).get("/tx/v1/transcripts/tr_1").query({ a: "b c" }).reply(200, { id: "tr_1" });
    const res = await client().request({
      method: "GET",
      path: "/v1/transcripts/tr_1",
      base: "transcription",
      query: { a: "b c", skip: undefined },
    });
    expect(res).toMatchObject({ status: 200, data: { id: "tr_1" } });
  });

  it("retries 429/502/503/504 with backoff, then succeeds", async () => {
    const delays: number[] = [];
    nock(base)
      .get("/dns/zones")
      .reply(429)
      .get("/dns/zones")
      .reply(502)
      .get("/dns/zones")
      .reply(504)
      .get("/dns/zones")
      .reply(200, []);
    const res = await client({}, delays).request({ method: "GET", path: "/dns/zones" });
    expect(res.status).toBe(200);
    // Full jitter with random() = 0.5: half of base * 2^n.
    expect(delays).toEqual([150, 300, 600]);
  });

  it("honours Retry-After in seconds and as an HTTP date", async () => {
    const delays: number[] = [];
    const now = Date.parse("2026-01-01T00:00:00Z");
    nock(base)
      .get("/x")
      .reply(503, "", { "retry-after": "3" })
      .get("/x")
      .reply(503, "", { "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" })
      .get("/x")
      .reply(200, {});
    await client({}, delays, () => now).request({ method: "GET", path: "/x" });
    expect(delays).toEqual([3000, 7000]);
  });

  it("stops after maxAttempts and says it gave up", async () => {
    nock(base)
      .get("/x")
      .times(3)
      .reply(502, { error: { code: "bad_gateway", message: "upstream" } });
    const err = await thrown(() => client({ retry: { maxAttempts: 3 } }).request({ method: "GET", path: "/x" }));
    expect(err.code).toBe("CLOUDPLATFORM_HTTP_502");
    expect(err.status).toBe(502);
    expect(err.endpoint).toBe("GET /x");
    expect(err.message).toMatch(/Gave up after/);
  });

  it("stops when the next wait would exceed the total time budget", async () => {
    const delays: number[] = [];
    nock(base).get("/x").reply(429, "", { "retry-after": "100" });
    const err = await thrown(() =>
      client({ retry: { maxTotalMs: 10_000 } }, delays).request({ method: "GET", path: "/x" }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_RATE_LIMITED");
    expect(delays).toEqual([]);
  });

  it("does not retry other errors and maps them to typed errors", async () => {
    nock(base)
      .get("/a")
      .reply(404, { error: { code: "not_found", message: "no such bucket" } })
      .get("/b")
      .reply(401, { message: "bad key" })
      .post("/c")
      .reply(409, { code: "name_taken", message: "taken" })
      .get("/d")
      .reply(500, "oops")
      .get("/e")
      .reply(400, { detail: "name is invalid" });
    const c = client();
    const e404 = await thrown(() => c.request({ method: "GET", path: "/a" }));
    expect(e404).toMatchObject({ code: "CLOUDPLATFORM_NOT_FOUND", status: 404, apiCode: "not_found" });
    expect(e404.message).toContain("GET /a failed with 404 not_found: no such bucket (CLOUDPLATFORM_NOT_FOUND)");
    expect(await thrown(() => c.request({ method: "GET", path: "/b" }))).toMatchObject({
      code: "CLOUDPLATFORM_UNAUTHORIZED",
    });
    expect(await thrown(() => c.request({ method: "POST", path: "/c" }))).toMatchObject({
      code: "CLOUDPLATFORM_CONFLICT",
      apiCode: "name_taken",
    });
    expect(await thrown(() => c.request({ method: "GET", path: "/d" }))).toMatchObject({
      code: "CLOUDPLATFORM_HTTP_500",
    });
    const e400 = await thrown(() => c.request({ method: "GET", path: "/e" }));
    expect(e400.message).toContain("name is invalid");
    expect(CloudPlatformError.isInstance(e400)).toBe(true);
  });

  // nock cannot fail a socket under an undici pool (the request hangs), so connection faults and
  // slow answers go through undici's own MockAgent, injected as the client's dispatcher.
  function mockAgent(): { agent: MockAgent; pool: ReturnType<MockAgent["get"]> } {
    const agent = new MockAgent();
    agent.disableNetConnect();
    return { agent, pool: agent.get(base) };
  }
  const socketError = (code: string) => Object.assign(new Error(`socket failed: ${code}`), { code });

  it("retries connection errors of idempotent requests", async () => {
    const { agent, pool } = mockAgent();
    pool.intercept({ path: "/x", method: "GET" }).replyWithError(socketError("ECONNRESET"));
    pool.intercept({ path: "/x", method: "GET" }).reply(200, { ok: true });
    const res = await client({ dispatcher: agent }).request({ method: "GET", path: "/x" });
    expect(res.data).toEqual({ ok: true });
  });

  it("maps a connection error that persists to CLOUDPLATFORM_NETWORK", async () => {
    const { agent, pool } = mockAgent();
    pool.intercept({ path: "/x", method: "GET" }).replyWithError(socketError("ECONNREFUSED")).times(2);
    const err = await thrown(() =>
      client({ dispatcher: agent, retry: { maxAttempts: 2 } }).request({ method: "GET", path: "/x" }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_NETWORK");
    expect(err.message).toContain("ECONNREFUSED");
  });

  it("times out a request that does not answer, and retries it", async () => {
    const { agent, pool } = mockAgent();
    pool.intercept({ path: "/slow", method: "GET" }).reply(200, {}).delay(2_000);
    pool.intercept({ path: "/slow", method: "GET" }).reply(200, { second: true });
    const started = Date.now();
    const res = await client({ dispatcher: agent }).request({ method: "GET", path: "/slow", timeoutMs: 50 });
    expect(res.data).toEqual({ second: true });
    expect(Date.now() - started).toBeLessThan(1_500);
    pool.intercept({ path: "/slow", method: "GET" }).reply(200, {}).delay(2_000);
    const err = await thrown(() =>
      client({ dispatcher: agent, retry: { maxAttempts: 1 } }).request({ method: "GET", path: "/slow", timeoutMs: 50 }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_TIMEOUT");
  });

  it("does not repeat a create that timed out without a reconcile", async () => {
    const { agent, pool } = mockAgent();
    pool.intercept({ path: "/object-storage/buckets/b1/credentials", method: "POST" }).reply(201, {}).delay(2_000);
    const err = await thrown(() =>
      client({ dispatcher: agent }).request({
        method: "POST",
        path: "/object-storage/buckets/b1/credentials",
        timeoutMs: 50,
      }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_OUTCOME_UNKNOWN");
  });

  it("does not repeat a create blindly: without reconcile it fails with OUTCOME_UNKNOWN", async () => {
    nock(base).post("/object-storage/buckets/b1/credentials").reply(502);
    const err = await thrown(() =>
      client().request({ method: "POST", path: "/object-storage/buckets/b1/credentials" }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_OUTCOME_UNKNOWN");
    expect(err.message).toMatch(/not repeated/);
  });

  it("repeats a create when the connection failed before sending", async () => {
    const { agent, pool } = mockAgent();
    pool
      .intercept({ path: "/object-storage/buckets/b1/credentials", method: "POST" })
      .replyWithError(socketError("ECONNREFUSED"));
    pool
      .intercept({ path: "/object-storage/buckets/b1/credentials", method: "POST" })
      .reply(201, { access_key_id: "AK1", secret_access_key: "s3cr3t-value-1" });
    const cred = await createCredential(client({ dispatcher: agent }), "b1", async () => undefined);
    expect(cred.value.access_key_id).toBe("AK1");
  });

  it("repeats a create after 429/503 (not processed)", async () => {
    nock(base)
      .post("/object-storage/buckets")
      .reply(503, "", { "retry-after": "0" })
      .post("/object-storage/buckets")
      .reply(201, { id: "bkt_1", name: "logs", storage_class: "Standard" });
    expect((await createBucket(client(), "logs", "Standard")).value.id).toBe("bkt_1");
  });

  it("reconciles a bucket create whose answer was lost by finding it by name", async () => {
    const { agent, pool } = mockAgent();
    pool.intercept({ path: "/object-storage/buckets", method: "POST" }).replyWithError(socketError("ECONNRESET"));
    pool
      .intercept({ path: "/object-storage/buckets?name=logs", method: "GET" })
      .reply(200, [{ id: "bkt_9", name: "logs", storage_class: "Standard" }]);
    const bucket = await createBucket(client({ dispatcher: agent }), "logs", "Standard");
    expect(bucket).toMatchObject({ value: { id: "bkt_9" }, reconciled: true });
  });

  it("repeats the create when reconcile finds nothing", async () => {
    nock(base)
      .post("/object-storage/buckets")
      .reply(504)
      .get("/object-storage/buckets")
      .query({ name: "logs" })
      .reply(200, { data: [] })
      .post("/object-storage/buckets")
      .reply(201, { bucket_id: "bkt_2", name: "logs" });
    expect((await createBucket(client(), "logs", "Standard")).value.id).toBe("bkt_2");
  });

  it("treats a 2xx answer it cannot read as a lost answer: a create is reconciled, not repeated", async () => {
    nock(base)
      .post("/object-storage/buckets")
      .reply(200, "<html>gateway</html>", { "content-type": "text/html" })
      .get("/object-storage/buckets")
      .query({ name: "logs" })
      .reply(200, [{ id: "bkt_7", name: "logs" }]);
    expect(await createBucket(client(), "logs", "Standard")).toMatchObject({
      value: { id: "bkt_7" },
      reconciled: true,
    });
  });

  it("does not repeat a create answered 2xx whose object is not found: it was processed", async () => {
    nock(base)
      .post("/object-storage/buckets")
      .reply(201, { unexpected: true })
      .get("/object-storage/buckets")
      .query({ name: "logs" })
      .reply(200, []);
    const err = await thrown(() => createBucket(client(), "logs", "Standard"));
    expect(err.code).toBe("CLOUDPLATFORM_UNEXPECTED_RESPONSE");
    expect(err.message).toContain("[unexpected]");
    expect(err.message).toContain("what it made was not found");
  });

  it("repeats an idempotent request whose 2xx answer it cannot read", async () => {
    nock(base)
      .post("/object-storage/buckets/b1/credentials/AK1/regenerate")
      .reply(200, "<html>gateway</html>")
      .post("/object-storage/buckets/b1/credentials/AK1/regenerate")
      .reply(200, { access_key_id: "AK1", secret_access_key: "regenerated-secret-1" });
    const res = await client().request({
      method: "POST",
      path: "/object-storage/buckets/b1/credentials/AK1/regenerate",
      idempotent: true,
      schema: credentialWithSecretSchema,
    });
    expect(res.data.secret_access_key).toBe("regenerated-secret-1");
  });

  it("does not take a proxy's HTML page for a delete's answer: the repeat tells what happened", async () => {
    nock(base)
      .delete("/object-storage/buckets/b1")
      .reply(200, "<html>ok</html>", { "content-type": "text/html" })
      .delete("/object-storage/buckets/b1")
      .reply(409, { error: { code: "bucket_not_empty" } });
    expect((await thrown(() => deleteBucket(client(), "b1"))).code).toBe("CLOUDPLATFORM_CONFLICT");
    // Any other body of a delete is the platform's own way of saying it is done.
    nock(base).delete("/object-storage/buckets/b2").reply(200, "deleted", { "content-type": "text/plain" });
    expect(await deleteBucket(client(), "b2")).toBe(true);
  });

  it("takes a 409 on a repeated create as its own earlier attempt, found by reconcile", async () => {
    let asked = 0;
    nock(base)
      .post("/dns/zones")
      .reply(504)
      .post("/dns/zones")
      .reply(409, { error: { code: "name_taken" } });
    const res = await client().request({
      method: "POST",
      path: "/dns/zones",
      // The first look finds nothing (the earlier attempt was not stored yet), the second finds it.
      reconcile: async () => (++asked === 1 ? undefined : { id: "zone_1" }),
    });
    expect(res).toMatchObject({ data: { id: "zone_1" }, reconciled: true });
    expect(asked).toBe(2);
  });

  it("does not reconcile a 409 to a first attempt: the name is someone else's", async () => {
    nock(base)
      .post("/dns/zones")
      .reply(409, { error: { code: "name_taken" } });
    let asked = false;
    const err = await thrown(() =>
      client().request({
        method: "POST",
        path: "/dns/zones",
        reconcile: async () => {
          asked = true;
          return { id: "zone_1" };
        },
      }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_CONFLICT");
    expect(asked).toBe(false);
  });

  it("names the endpoint and the received keys, never the values, of an unexpected shape", async () => {
    // Read once: JSON of a shape it cannot use is the platform's answer, the same every time.
    nock(base).get("/object-storage/buckets/b1").reply(200, { identifier: "very-private-value", label: "x" });
    const err = await thrown(() =>
      client().request({ method: "GET", path: "/object-storage/buckets/b1", schema: bucketSchema }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_UNEXPECTED_RESPONSE");
    expect(err.message).toContain("GET /object-storage/buckets/b1");
    expect(err.message).toContain("identifier, label");
    expect(err.message).not.toContain("very-private-value");
  });

  it("never shows a secret, even when the server echoes one", async () => {
    registerSecret("s3-secret-ABCDEFGH");
    nock(base)
      .get("/x")
      .reply(401, { error: { code: "unauthorized", message: `key ${apiKey} is not valid` } })
      .get("/y")
      .reply(400, `bad secret s3-secret-ABCDEFGH and key ${apiKey}`)
      .get("/z")
      .reply(409, { message: `conflict for ${apiKey}` });
    const c = new ApiClient(settings, { clock: { now: Date.now, sleep: async () => undefined } });
    // The configured key is registered when settings are resolved; register it here as resolveSettings would.
    registerSecret(apiKey);
    for (const path of ["/x", "/y", "/z"]) {
      const err = await thrown(() => c.request({ method: "GET", path }));
      expect(err.message).not.toContain(apiKey);
      expect(err.message).not.toContain("s3-secret-ABCDEFGH");
      expect(JSON.stringify(err)).not.toContain(apiKey);
    }
  });
});

describe("retry timing", () => {
  it("keeps full-jitter backoff within [0, min(cap, base*2^n))", () => {
    for (let n = 0; n < 12; n++) {
      const high = backoffDelay(n, defaultRetryPolicy, () => 0.999999);
      expect(high).toBeLessThan(Math.min(defaultRetryPolicy.maxDelayMs, defaultRetryPolicy.baseDelayMs * 2 ** n));
      expect(backoffDelay(n, defaultRetryPolicy, () => 0)).toBe(0);
    }
  });

  it("parses Retry-After seconds, dates, past dates and garbage", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("5", now)).toBe(5000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    // A fraction is read as seconds, not as a date in 2000 (a wait of 0).
    expect(parseRetryAfter("0.5", now)).toBe(500);
    expect(parseRetryAfter(" 1.25 ", now)).toBe(1250);
    expect(parseRetryAfter("-1", now)).toBeUndefined();
    expect(parseRetryAfter("2,5", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it("reads every error body variant", () => {
    expect(readErrorBody('{"error":{"code":"not_found","message":"m"}}')).toEqual({
      apiCode: "not_found",
      message: "m",
    });
    expect(readErrorBody('{"error":"name_taken","message":"m"}')).toEqual({ apiCode: "name_taken", message: "m" });
    expect(readErrorBody('{"detail":"d"}')).toEqual({ apiCode: undefined, message: "d" });
    expect(readErrorBody("<html>")).toEqual({ apiCode: undefined, message: undefined });
  });
});
