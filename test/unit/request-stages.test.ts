// Each stage of a request (provider/request/), on its own: the client's tests (client.test.ts) run
// them assembled against a fake API; these say what each one decides, with fakes for the others.
import { MockAgent } from "undici";
import { describe, expect, it } from "vitest";
import type { Settings } from "../../provider/config.js";
import {
  CloudPlatformError,
  ConflictError,
  NetworkError,
  OutcomeUnknownError,
  UnexpectedResponseError,
} from "../../provider/errors.js";
import { registerSecret } from "../../provider/redact.js";
import { authenticate } from "../../provider/request/authenticate.js";
import { classify } from "../../provider/request/classify.js";
import { prepare } from "../../provider/request/prepare.js";
import { isExpected, read } from "../../provider/request/read.js";
import { reconciling } from "../../provider/request/reconcile.js";
import { retrying } from "../../provider/request/retrying.js";
import { send } from "../../provider/request/send.js";
import type {
  Answer,
  Base,
  Failure,
  NoAnswer,
  Outcome,
  Prepared,
  Reply,
  RequestOptions,
} from "../../provider/request/types.js";
import { defaultRetryPolicy, type RetryPolicy } from "../../provider/retry.js";
import { bucketSchema } from "../../provider/platform/bucket/parse.js";
import { apiKey, base, thrown } from "./support.js";

const settings = { baseUrl: base, apiUrl: `${base}/tx` };

function prepared(opts: Partial<RequestOptions<unknown>> = {}): Prepared {
  return prepare({ method: "GET", path: "/x", ...opts }, settings, {});
}

const reply = (status: number, text = "", headers: Reply["headers"] = {}): Reply => ({
  kind: "reply",
  status,
  headers,
  text,
});

const socketError = (code: string) => Object.assign(new Error(`socket failed: ${code}`), { code });

describe("prepare", () => {
  it("makes the URL of the request's base, with its query encoded and unset parameters left out", () => {
    const req = prepared({
      path: "/v1/transcripts/tr_1",
      base: "transcription",
      query: { a: "b c", n: 2, skip: undefined },
    });
    expect(req.url.href).toBe(`${base}/tx/v1/transcripts/tr_1?a=b+c&n=2`);
    expect(req.endpoint).toBe("GET /v1/transcripts/tr_1");
    expect(prepared({ path: "/dns/zones" }).url.href).toBe(`${base}/dns/zones`);
  });

  it("sends JSON, and an empty JSON object with a body-less POST (spec §4.1)", () => {
    expect(prepared({ method: "PUT", body: { name: "n" } })).toMatchObject({
      body: '{"name":"n"}',
      headers: { "content-type": "application/json; charset=utf-8", accept: "application/json" },
    });
    expect(prepared({ method: "POST" })).toMatchObject({ body: "{}" });
    const get = prepared();
    expect(get.body).toBeUndefined();
    expect(get.headers).not.toHaveProperty("content-type");
  });

  it("leaves Authorization to the next stage and names itself as the client says", () => {
    expect(prepared().headers).toEqual({ accept: "application/json", "user-agent": "pulumi-cloudplatform" });
    expect(prepare({ method: "GET", path: "/x" }, settings, { userAgent: "ci/1" }).headers["user-agent"]).toBe("ci/1");
  });

  it("takes the request's deadline, else the client's, else 30 s", () => {
    expect(prepared({ timeoutMs: 50 }).timeoutMs).toBe(50);
    expect(prepare({ method: "GET", path: "/x" }, settings, { defaultTimeoutMs: 70 }).timeoutMs).toBe(70);
    expect(prepared().timeoutMs).toBe(30_000);
  });

  it("repeats GET, HEAD, PUT and DELETE freely, POST and PATCH only when the caller says so", () => {
    const idempotent = (opts: Partial<RequestOptions<unknown>>) => prepared(opts).idempotent;
    expect(["GET", "HEAD", "PUT", "DELETE"].map((method) => idempotent({ method } as never))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(idempotent({ method: "POST" })).toBe(false);
    expect(idempotent({ method: "PATCH" })).toBe(false);
    expect(idempotent({ method: "POST", idempotent: true })).toBe(true);
  });
});

describe("authenticate", () => {
  /** A transport that answers the statuses given, in order, and records the headers it was given. */
  function transport(...statuses: number[]): { sent: string[]; send: (authorization: string) => Promise<Answer> } {
    const sent: string[] = [];
    return {
      sent,
      send: async (authorization) => {
        sent.push(authorization);
        return reply(statuses.shift() ?? 200);
      },
    };
  }
  const key: Settings["auth"] = { kind: "apiKey", value: apiKey };

  it("sends the API key raw and a dashboard token as Bearer, on every base", async () => {
    for (const b of ["management", "transcription"] as Base[]) {
      const t = transport();
      await authenticate({ kind: "token", value: "jwt" }, b, new Set(), t.send);
      expect(t.sent).toEqual(["Bearer jwt"]);
    }
    const t = transport(401);
    expect(await authenticate(key, "management", new Set(), t.send)).toMatchObject({ status: 401 });
    expect(t.sent).toEqual([apiKey]);
  });

  it("tries `Bearer <key>` once where the transcription API refuses the raw key, and keeps the form that worked", async () => {
    const bearerBases = new Set<Base>();
    const first = transport(403, 200);
    expect(await authenticate(key, "transcription", bearerBases, first.send)).toMatchObject({ status: 200 });
    expect(first.sent).toEqual([apiKey, `Bearer ${apiKey}`]);
    expect([...bearerBases]).toEqual(["transcription"]);
    const next = transport(200);
    await authenticate(key, "transcription", bearerBases, next.send);
    expect(next.sent).toEqual([`Bearer ${apiKey}`]);
  });

  it("keeps the raw key when the Bearer form is refused too, and does not retry a lost answer", async () => {
    const bearerBases = new Set<Base>();
    const refused = transport(401, 401);
    expect(await authenticate(key, "transcription", bearerBases, refused.send)).toMatchObject({ status: 401 });
    expect(bearerBases.size).toBe(0);
    const none: NoAnswer = { kind: "none", reason: socketError("ECONNRESET"), timedOut: false };
    const sent: string[] = [];
    const lost = await authenticate(key, "transcription", bearerBases, async (authorization) => {
      sent.push(authorization);
      return none;
    });
    expect(lost).toBe(none);
    expect(sent).toEqual([apiKey]);
  });
});

describe("send", () => {
  function mockAgent(): { agent: MockAgent; pool: ReturnType<MockAgent["get"]> } {
    const agent = new MockAgent();
    agent.disableNetConnect();
    return { agent, pool: agent.get(base) };
  }

  it("sends the prepared request with its Authorization, and brings back any status as a reply", async () => {
    const { agent, pool } = mockAgent();
    pool
      .intercept({
        path: "/object-storage/buckets?name=logs",
        method: "POST",
        body: '{"a":1}',
        headers: { authorization: apiKey, "content-type": "application/json; charset=utf-8" },
      })
      .reply(500, "broken", { headers: { "retry-after": "3" } });
    const req = prepared({ method: "POST", path: "/object-storage/buckets", query: { name: "logs" }, body: { a: 1 } });
    expect(await send(req, apiKey, agent)).toMatchObject({
      kind: "reply",
      status: 500,
      text: "broken",
      headers: { "retry-after": "3" },
    });
  });

  it("says there was no answer, and whether the deadline passed, instead of throwing", async () => {
    const { agent, pool } = mockAgent();
    pool.intercept({ path: "/x", method: "GET" }).replyWithError(socketError("ECONNREFUSED"));
    const refused = await send(prepared(), apiKey, agent);
    expect(refused).toMatchObject({ kind: "none", timedOut: false });
    expect(classify(refused, prepared(), "apiKey", 0).error.message).toContain("ECONNREFUSED");
    pool.intercept({ path: "/x", method: "GET" }).reply(200, {}).delay(2_000);
    const started = Date.now();
    expect(await send(prepared({ timeoutMs: 50 }), apiKey, agent)).toMatchObject({ kind: "none", timedOut: true });
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe("read", () => {
  it("reads a success with the caller's reader, or returns its JSON as it is", () => {
    const ok = read(reply(200, '{"id":"bkt_1","name":"logs"}'), bucketSchema, "GET /b");
    expect(ok).toMatchObject({ ok: true, response: { status: 200, data: { id: "bkt_1", name: "logs" } } });
    expect(read(reply(200, '{"a":[1]}'), undefined, "GET /x")).toMatchObject({
      ok: true,
      response: { data: { a: [1] } },
    });
    expect(read(reply(204), undefined, "DELETE /x")).toMatchObject({ ok: true, response: { data: undefined } });
  });

  it("keeps integers past 2^53 as their digits", () => {
    const outcome = read(reply(200, '{"id":12345678901234567890,"n":3}'), undefined, "GET /x");
    expect(outcome).toMatchObject({ ok: true, response: { data: { id: "12345678901234567890", n: 3 } } });
  });

  it("takes any body but a proxy's HTML page for the answer of a request that reads nothing back", () => {
    expect(read(reply(200, "deleted", { "content-type": "text/plain" }), undefined, "DELETE /x").ok).toBe(true);
    const html = read(reply(200, "<html>ok</html>", { "content-type": "text/html" }), undefined, "DELETE /x");
    expect(html).toMatchObject({ ok: false, fate: "unreadable", spoiled: true });
  });

  it("calls a body that is not JSON spoiled, and JSON of another shape not, naming the keys but never the values", () => {
    const spoiled = read(reply(201, "<html>gateway</html>"), bucketSchema, "POST /b") as Failure;
    expect(spoiled).toMatchObject({ ok: false, fate: "unreadable", spoiled: true });
    expect(spoiled.error).toBeInstanceOf(UnexpectedResponseError);
    expect(spoiled.error).toMatchObject({ status: 201, endpoint: "POST /b", receivedKeys: [] });
    const shape = read(reply(200, '{"identifier":"very-private-value"}'), bucketSchema, "GET /b") as Failure;
    expect(shape).toMatchObject({ ok: false, fate: "unreadable", spoiled: false });
    expect(shape.error.message).toContain("received keys [identifier]");
    expect(shape.error.message).not.toContain("very-private-value");
  });

  it("takes any 2xx for a success, or the statuses the caller names", () => {
    expect([199, 200, 204, 299, 300].map((s) => isExpected(s, undefined))).toEqual([false, true, true, true, false]);
    expect(isExpected(202, 202)).toBe(true);
    expect(isExpected(200, [201, 202])).toBe(false);
    expect(isExpected(201, [201, 202])).toBe(true);
  });
});

describe("classify", () => {
  const req = prepared({ path: "/a" });
  const failure = (answer: Answer, auth: Settings["auth"]["kind"] = "apiKey") => classify(answer, req, auth, 0);

  it("ends at an error status a repeat would not change, with the class callers handle and what to do", () => {
    const notFound = failure(reply(404, '{"error":{"code":"not_found","message":"no such bucket"}}'));
    expect(notFound).toMatchObject({
      fate: "answered",
      error: { code: "CLOUDPLATFORM_NOT_FOUND", apiCode: "not_found" },
    });
    expect(notFound.error.message).toBe(
      "GET /a failed with 404 not_found: no such bucket (CLOUDPLATFORM_NOT_FOUND). " +
        "The object does not exist (it may have been deleted outside Pulumi).",
    );
    expect(failure(reply(410)).error).toMatchObject({ code: "CLOUDPLATFORM_NOT_FOUND", status: 410 });
    expect(failure(reply(409)).error).toBeInstanceOf(ConflictError);
    expect(failure(reply(422)).error.code).toBe("CLOUDPLATFORM_BAD_REQUEST");
    const broken = failure(reply(500, "oops"));
    expect(broken).toMatchObject({ fate: "answered", error: { code: "CLOUDPLATFORM_HTTP_500", retryable: false } });
    expect(broken.error.message).toContain("The platform failed; try again later.");
  });

  it("names the setting to check when the credential is refused, by 401 or 403", () => {
    expect(failure(reply(401)).error.message).toContain("check cloudplatform:apiKey (or CLOUDPLATFORM_API_KEY)");
    expect(failure(reply(403), "token").error).toMatchObject({ code: "CLOUDPLATFORM_UNAUTHORIZED" });
    expect(failure(reply(403), "token").error.message).toContain("check cloudplatform:token (or CLOUDPLATFORM_TOKEN)");
  });

  it("tells a refusal before any work (429, 503) from a gateway's answer (502, 504), with the wait asked for", () => {
    expect(failure(reply(429, "", { "retry-after": "3" }))).toMatchObject({
      fate: "notProcessed",
      retryAfterMs: 3000,
      error: { code: "CLOUDPLATFORM_RATE_LIMITED", retryable: true },
    });
    expect(failure(reply(503)).fate).toBe("notProcessed");
    expect(failure(reply(503))).not.toHaveProperty("retryAfterMs");
    expect(failure(reply(502)).fate).toBe("unknown");
    expect(failure(reply(504)).error).toMatchObject({ code: "CLOUDPLATFORM_HTTP_504", retryable: true });
  });

  it("waits out a refusal without Retry-After until the reset its rate-limit headers announce", () => {
    expect(failure(reply(429, "", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "4" }))).toMatchObject({
      fate: "notProcessed",
      retryAfterMs: 4000,
    });
    expect(failure(reply(429, "", { ratelimit: '"default";r=0;t=2' })).retryAfterMs).toBe(2000);
    expect(failure(reply(429, "", { "retry-after": "1", "ratelimit-reset": "30" })).retryAfterMs).toBe(1000);
    // A 503's reset says nothing of when the platform recovers.
    expect(failure(reply(503, "", { "x-ratelimit-reset": "4" }))).not.toHaveProperty("retryAfterMs");
  });

  it("shows the server's text redacted and cut, never a secret", () => {
    registerSecret("s3-secret-CLASSIFY1");
    const error = failure(reply(400, `bad secret s3-secret-CLASSIFY1 ${"x".repeat(400)}`)).error;
    expect(error.message).not.toContain("s3-secret-CLASSIFY1");
    expect(error.message).toContain("bad secret [redacted] xxx");
    expect(error.message).toContain("…");
  });

  it("tells a connection refused before sending from one lost after, and a deadline", () => {
    const none = (reason: unknown, timedOut = false): Answer => ({ kind: "none", reason, timedOut });
    const refused = failure(none(Object.assign(new Error("fetch failed"), { cause: socketError("ECONNREFUSED") })));
    expect(refused).toMatchObject({ fate: "notProcessed", error: { code: "CLOUDPLATFORM_NETWORK", retryable: true } });
    expect(refused.error.message).toBe(
      `GET /a failed: connection error ECONNREFUSED (CLOUDPLATFORM_NETWORK). Check that ${base} is reachable.`,
    );
    expect(failure(none(socketError("ECONNRESET"))).fate).toBe("unknown");
    expect(failure(none(new Error("no code"))).error.message).toContain("connection error UNKNOWN");
    const late = failure(none(new Error("aborted"), true));
    expect(late).toMatchObject({ fate: "unknown", error: { code: "CLOUDPLATFORM_TIMEOUT" } });
    expect(late.error.message).toContain("GET /a did not answer within 30000 ms");
    expect(failure(none(socketError("UND_ERR_HEADERS_TIMEOUT"))).error.code).toBe("CLOUDPLATFORM_TIMEOUT");
  });
});

/** An attempt that comes to the outcomes given, in order, and counts how often it was made. */
function attempts<T>(...outcomes: Outcome<T>[]): { made: () => number; attempt: () => Promise<Outcome<T>> } {
  let made = 0;
  return {
    made: () => made,
    attempt: async () => {
      const outcome = outcomes[made++];
      if (outcome === undefined) throw new Error(`attempt ${made} was not expected`);
      return outcome;
    },
  };
}

const success = <T>(data: T): Outcome<T> => ({ ok: true, response: { status: 201, headers: {}, data } });
const lost = (): Failure => ({
  ok: false,
  fate: "unknown",
  error: new NetworkError("POST /z failed: connection error ECONNRESET", "", { endpoint: "POST /z", retryable: true }),
});
const unreadable = (spoiled = false): Failure => ({
  ok: false,
  fate: "unreadable",
  spoiled,
  error: new UnexpectedResponseError("POST /z", ["unexpected"], "id: required", 201),
});
const statusFailure = (status: number, fate: Failure["fate"], retryAfterMs?: number): Failure => {
  const failure = classify(reply(status), prepared({ method: "POST", path: "/z" }), "apiKey", 0);
  return { ...failure, fate, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
};

describe("reconcile", () => {
  /** A reconcile that finds the values given, in order, and counts how often it was asked. */
  function finder<T>(...found: (T | undefined)[]): { asked: () => number; reconcile: () => Promise<T | undefined> } {
    let asked = 0;
    return { asked: () => asked, reconcile: async () => found[asked++] };
  }

  it("leaves answers and refusals before any work alone", async () => {
    const f = finder({ id: "z1" });
    const run = reconciling(attempts(statusFailure(503, "notProcessed"), success({ id: "z2" })).attempt, "POST /z", f);
    expect(await run()).toMatchObject({ fate: "notProcessed" });
    expect(await run()).toMatchObject({ ok: true, response: { data: { id: "z2" } } });
    expect(f.asked()).toBe(0);
  });

  it("answers with what reconcile found after a lost answer, or lets the create be sent again", async () => {
    const found = reconciling(attempts(lost()).attempt, "POST /z", finder({ id: "z1" }));
    expect(await found()).toEqual({
      ok: true,
      response: { status: 200, headers: {}, data: { id: "z1" }, reconciled: true },
    });
    const absent = reconciling(attempts(lost()).attempt, "POST /z", finder<{ id: string }>(undefined));
    expect(await absent()).toMatchObject({ ok: false, fate: "unknown" });
  });

  it("does not send a 2xx create again when what it made is not found: the error says so", async () => {
    const failure = unreadable();
    const err = await thrown(reconciling(attempts(failure).attempt, "POST /z", finder(undefined)));
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err).not.toBe(failure.error);
    expect(err).toMatchObject({
      receivedKeys: ["unexpected"],
      hints: ["It was processed, but what it made was not found: check the dashboard."],
    });
    expect(err.message).toMatch(/report it\. It was processed, but what it made was not found: check the dashboard\.$/);
  });

  it("without a way to look, ends with OUTCOME_UNKNOWN and what to check", async () => {
    const err = await thrown(reconciling(attempts(lost()).attempt, "POST /z", {}));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err.message).toBe(
      "POST /z may have reached the server but no answer arrived (CLOUDPLATFORM_NETWORK); it was not repeated because " +
        "repeating it could create a duplicate (CLOUDPLATFORM_OUTCOME_UNKNOWN). Check the object in the dashboard, then " +
        "run `pulumi up` again.",
    );
    const processed = await thrown(
      reconciling(attempts(unreadable()).attempt, "POST /z", { unknownOutcomeAdvice: "Look for the job." }),
    );
    expect(processed).toMatchObject({ code: "CLOUDPLATFORM_OUTCOME_UNKNOWN", status: 201 });
    expect(processed.message).toContain(
      "was processed (201) but its answer could not be read (received keys [unexpected])",
    );
    expect(processed.message).toMatch(/Look for the job\.$/);
  });

  it("takes a 409 to a repeat after a lost answer for the earlier attempt's, but not a 409 to a first attempt", async () => {
    const repeat = finder(undefined, { id: "z1" });
    const run = reconciling(attempts(lost(), statusFailure(409, "answered")).attempt, "POST /z", repeat);
    await run();
    expect(await run()).toMatchObject({ ok: true, response: { data: { id: "z1" }, reconciled: true } });
    expect(repeat.asked()).toBe(2);
    const first = finder({ id: "z1" });
    const conflict = await reconciling(attempts(statusFailure(409, "answered")).attempt, "POST /z", first)();
    expect(conflict).toMatchObject({ ok: false, error: { code: "CLOUDPLATFORM_CONFLICT" } });
    expect(first.asked()).toBe(0);
  });
});

describe("retry", () => {
  const policy: RetryPolicy = { ...defaultRetryPolicy, maxAttempts: 3, random: () => 0.5 };
  /** A clock whose sleeps pass at once and move its time on by what they waited. */
  function clock(): { waits: number[]; now: () => number; sleep: (ms: number) => Promise<void> } {
    let time = 1_000_000;
    const waits: number[] = [];
    return { waits, now: () => time, sleep: async (ms) => void (waits.push(ms), (time += ms)) };
  }

  it("makes the attempt again after a backoff, or the wait the server asked for, until it succeeds", async () => {
    const c = clock();
    const lines: string[] = [];
    const a = attempts(statusFailure(502, "unknown"), statusFailure(429, "notProcessed", 2_000), success("done"));
    const res = await retrying(a.attempt, "POST /z", policy, c, (line) => lines.push(line));
    expect(res.data).toBe("done");
    expect(c.waits).toEqual([150, 2_000]);
    expect(lines).toEqual([
      "POST /z: CLOUDPLATFORM_HTTP_502; retrying in 0.2s",
      "POST /z: CLOUDPLATFORM_RATE_LIMITED; retrying in 2s, as the platform asked",
    ]);
  });

  it("waits a refusal's Retry-After itself (the gate may hold the others too), within the budget", async () => {
    const c = clock();
    const refused = statusFailure(429, "notProcessed", 2_000);
    const res = await retrying(attempts(refused, success("done")).attempt, "POST /z", policy, c);
    expect(res.data).toBe("done");
    expect(c.waits).toEqual([2_000]);
    const long = statusFailure(429, "notProcessed", 100_000);
    const err = await thrown(() => retrying(attempts(long).attempt, "POST /z", { ...policy, maxTotalMs: 10_000 }, c));
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_RATE_LIMITED", attempts: 1 });
  });

  it("ends at once at an answer a repeat would not change, with its error as it was", async () => {
    const failure = statusFailure(404, "answered");
    const c = clock();
    const a = attempts(failure);
    expect(await thrown(() => retrying(a.attempt, "POST /z", policy, c))).toBe(failure.error);
    expect(c.waits).toEqual([]);
  });

  it("gives up after the last attempt, saying how many it made and how long they took", async () => {
    const c = clock();
    const a = attempts(lost(), lost(), statusFailure(504, "unknown", 1_700));
    const err = await thrown(() => retrying(a.attempt, "POST /z", policy, c));
    expect(a.made()).toBe(3);
    expect(c.waits).toEqual([150, 300]);
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_HTTP_504", attempts: 3, elapsedMs: 450 });
    expect(err.message).toMatch(
      /The platform failed; try again later\. Gave up after 3 attempts in 0s; try again later\.$/,
    );
  });

  it("repeats a refusal (429 or 503) up to maxRefusedAttempts, every other failure up to maxAttempts", async () => {
    const refusal = () => statusFailure(429, "notProcessed", 1_000);
    const bounded = { ...policy, maxAttempts: 3, maxRefusedAttempts: 5 };
    const four = attempts(refusal(), refusal(), refusal(), refusal(), success("served"));
    expect((await retrying(four.attempt, "POST /z", bounded, clock())).data).toBe("served");
    expect(four.made()).toBe(5);
    const five = attempts(refusal(), refusal(), refusal(), refusal(), refusal());
    const err = await thrown(() => retrying(five.attempt, "POST /z", bounded, clock()));
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_RATE_LIMITED", attempts: 5 });
    // A front may refuse with 503 and no Retry-After (nginx's limit_req as it comes): a refusal too.
    const busy = attempts(...[1, 2, 3, 4].map(() => statusFailure(503, "notProcessed")), success("served"));
    expect((await retrying(busy.attempt, "POST /z", bounded, clock())).data).toBe("served");
    expect(busy.made()).toBe(5);
    const gateway = attempts(...[1, 2, 3].map(() => statusFailure(504, "unknown")), success("never"));
    await thrown(() => retrying(gateway.attempt, "GET /z", bounded, clock()));
    expect(gateway.made()).toBe(3);
    expect(defaultRetryPolicy.maxRefusedAttempts).toBeGreaterThan(defaultRetryPolicy.maxAttempts);
  });

  it("gives up before a wait that would pass the time budget", async () => {
    const c = clock();
    const a = attempts(statusFailure(429, "notProcessed", 100_000));
    const err = await thrown(() => retrying(a.attempt, "POST /z", { ...policy, maxTotalMs: 10_000 }, c));
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_RATE_LIMITED", attempts: 1, elapsedMs: 0 });
    expect(err.message).toContain("Gave up after 1 attempt in 0s; try again later.");
    expect(c.waits).toEqual([]);
  });

  it("reads a spoiled answer again at most twice, and a shape it cannot use not at all", async () => {
    const spoiled = attempts(unreadable(true), unreadable(true), unreadable(true), success("late"));
    const err = await thrown(() => retrying(spoiled.attempt, "GET /z", { ...policy, maxAttempts: 6 }, clock()));
    expect(spoiled.made()).toBe(3);
    expect(err).toMatchObject({ code: "CLOUDPLATFORM_UNEXPECTED_RESPONSE", attempts: undefined });
    const shape = attempts(unreadable(false), success("never"));
    await thrown(() => retrying(shape.attempt, "GET /z", policy, clock()));
    expect(shape.made()).toBe(1);
    const recovers = attempts(unreadable(true), success("read"));
    expect((await retrying(recovers.attempt, "GET /z", policy, clock())).data).toBe("read");
  });

  it("keeps the error's class and fields when it gives up", async () => {
    const a = attempts(unreadable(true), lost());
    const err = await thrown(() => retrying(a.attempt, "POST /z", { ...policy, maxAttempts: 2 }, clock()));
    expect(err).toBeInstanceOf(NetworkError);
    expect(CloudPlatformError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ endpoint: "POST /z", retryable: true, attempts: 2 });
  });
});
