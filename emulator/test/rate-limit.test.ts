import { describe, expect, it } from "vitest";
import { parseCliOptions, UsageError } from "../src/cli.js";
import {
  parseRateLimit,
  parseRefusalStatus,
  RateLimiter,
  rateLimitSettingsSchema,
  type RateLimitSettings,
} from "../src/rate-limit.js";
import { call, withEmulator } from "./helpers.js";

// The API's rate-limit mode (docs/api-contract.md §9.5): a token bucket per credential, 429 with
// Retry-After over it (or 503, with or without it, as nginx's limit_req), settings and counters at
// /_emulator/rate-limit; with `announce`, the RateLimit-Policy and RateLimit headers of
// draft-ietf-httpapi-ratelimit-headers.

function limiter(settings: RateLimitSettings) {
  let now = 0;
  const limit = new RateLimiter(() => now);
  limit.set(rateLimitSettingsSchema.parse(settings));
  return { limit, advance: (ms: number) => (now += ms) };
}

/** The settings a limit has unless told otherwise: not announced, refusing with 429 and Retry-After. */
const byDefault = { announce: false, status: 429, retryAfter: true } as const;

describe("RateLimiter", () => {
  it("lets a burst through, then one request per 1/rate seconds", () => {
    const { limit, advance } = limiter({ requestsPerSecond: 2, burst: 3 });
    expect([1, 2, 3].map(() => limit.admit("key"))).toEqual([{ headers: {} }, { headers: {} }, { headers: {} }]);
    expect(limit.admit("key").retryAfter).toBe(1);
    advance(499);
    expect(limit.admit("key").retryAfter).toBe(1);
    advance(1);
    expect(limit.admit("key").retryAfter).toBeUndefined();
    expect(limit.current).toEqual({
      requestsPerSecond: 2,
      burst: 3,
      ...byDefault,
      allowed: 4,
      refused: 2,
    });
  });

  it("keeps one bucket per credential", () => {
    const { limit } = limiter({ requestsPerSecond: 1 });
    expect(limit.admit("a").retryAfter).toBeUndefined();
    expect(limit.admit("a").retryAfter).toBe(1);
    expect(limit.admit("b").retryAfter).toBeUndefined();
    expect(limit.admit(undefined).retryAfter).toBeUndefined();
  });

  it("says in whole seconds, at least 1, when a token is back", () => {
    const { limit } = limiter({ requestsPerSecond: 0.25 });
    expect(limit.admit("k").retryAfter).toBeUndefined();
    expect(limit.admit("k").retryAfter).toBe(4);
    const fast = limiter({ requestsPerSecond: 1000, burst: 1 }).limit;
    expect(fast.admit("k").retryAfter).toBeUndefined();
    expect(fast.admit("k").retryAfter).toBe(1);
  });

  it("is off at rate 0, and by default", () => {
    const limit = new RateLimiter();
    for (let i = 0; i < 100; i++) expect(limit.admit("k")).toEqual({ headers: {} });
    expect(limit.current).toEqual({
      requestsPerSecond: 0,
      burst: 1,
      ...byDefault,
      allowed: 0,
      refused: 0,
    });
    const announcedButOff = limiter({ requestsPerSecond: 0, announce: true }).limit;
    expect(announcedButOff.admit("k")).toEqual({ headers: {} });
  });

  it("announces the policy in whole requests per whole seconds, never above the rate", () => {
    const policy = (requestsPerSecond: number) =>
      limiter({ requestsPerSecond, announce: true }).limit.admit("k").headers["ratelimit-policy"];
    expect(policy(10)).toBe('"default";q=10;w=1');
    expect(policy(2.5)).toBe('"default";q=2;w=1');
    expect(policy(1)).toBe('"default";q=1;w=1');
    expect(policy(0.5)).toBe('"default";q=1;w=2');
    expect(policy(0.3)).toBe('"default";q=1;w=4');
  });

  it("announces what is left of the bucket after each request, admitted or refused", () => {
    const { limit, advance } = limiter({ requestsPerSecond: 2, burst: 6, announce: true });
    const left = () => limit.admit("k");
    expect(left().headers.ratelimit).toBe('"default";r=5;t=1');
    expect(left().headers.ratelimit).toBe('"default";r=4;t=1');
    expect(left().headers.ratelimit).toBe('"default";r=3;t=2');
    for (let i = 0; i < 3; i++) left();
    const refused = left();
    expect(refused.retryAfter).toBe(1);
    expect(refused.headers).toEqual({ "ratelimit-policy": '"default";q=2;w=1', ratelimit: '"default";r=0;t=3' });
    advance(750);
    expect(left().headers.ratelimit).toBe('"default";r=0;t=3');
    expect(limiter({ requestsPerSecond: 10, burst: 5, announce: true }).limit.admit("k").headers.ratelimit).toBe(
      '"default";r=4;t=1',
    );
  });

  it("takes announce as a boolean, off by default", () => {
    expect(rateLimitSettingsSchema.parse({ requestsPerSecond: 1 }).announce).toBe(false);
    expect(rateLimitSettingsSchema.parse({ requestsPerSecond: 1, announce: true }).announce).toBe(true);
    expect(rateLimitSettingsSchema.safeParse({ requestsPerSecond: 1, announce: "yes" }).success).toBe(false);
  });

  it("takes status 429 or 503 and retryAfter as a boolean, 429 with Retry-After by default", () => {
    expect(rateLimitSettingsSchema.parse({ requestsPerSecond: 1 })).toMatchObject({ status: 429, retryAfter: true });
    expect(rateLimitSettingsSchema.parse({ requestsPerSecond: 1, status: 503, retryAfter: false })).toMatchObject({
      status: 503,
      retryAfter: false,
    });
    for (const bad of [{ status: 500 }, { status: "503" }, { retryAfter: "x" }, { retryAfter: 0 }])
      expect(rateLimitSettingsSchema.safeParse({ requestsPerSecond: 1, ...bad }).success).toBe(false);
    // The limiter still works out the wait, so a refusal counts the same whatever it is to say.
    const { limit } = limiter({ requestsPerSecond: 1, burst: 1, status: 503, retryAfter: false });
    expect(limit.admit("k").retryAfter).toBeUndefined();
    expect(limit.admit("k").retryAfter).toBe(1);
    expect(limit.current).toMatchObject({ allowed: 1, refused: 1 });
  });

  it("parses the command line form", () => {
    expect(parseRateLimit("10")).toEqual({ requestsPerSecond: 10 });
    expect(parseRateLimit("2.5/20")).toEqual({ requestsPerSecond: 2.5, burst: 20 });
    for (const bad of ["", "ten", "10/", "10/0", "-1", "10/2.5"])
      expect(() => parseRateLimit(bad)).toThrow(/--rate-limit/);
    const parsed = parseCliOptions(["--rate-limit", "20/5"]);
    expect(parsed.help === false && parsed.options.rateLimit).toEqual({ requestsPerSecond: 20, burst: 5 });
    const announced = parseCliOptions(["--rate-limit", "20", "--announce-rate-limit"]);
    expect(announced.help === false && announced.options.rateLimit).toEqual({ requestsPerSecond: 20, announce: true });
    expect(() => parseCliOptions(["--rate-limit", "x"])).toThrow(UsageError);
  });

  it("parses the command line form of the refusal: --rate-limit-status and --rate-limit-no-retry-after", () => {
    expect(parseRefusalStatus("503")).toBe(503);
    expect(parseRefusalStatus(" 429 ")).toBe(429);
    for (const bad of ["", "500", "5O3", "503.0"]) expect(() => parseRefusalStatus(bad)).toThrow(/--rate-limit-status/);
    const nginx = parseCliOptions(["--rate-limit", "5", "--rate-limit-status", "503", "--rate-limit-no-retry-after"]);
    expect(nginx.help === false && nginx.options.rateLimit).toEqual({
      requestsPerSecond: 5,
      status: 503,
      retryAfter: false,
    });
    expect(() => parseCliOptions(["--rate-limit", "5", "--rate-limit-status", "500"])).toThrow(UsageError);
    // Without a limit there is nothing to refuse by.
    expect(() => parseCliOptions(["--rate-limit-status", "503"])).toThrow(/--rate-limit-status/);
    expect(() => parseCliOptions(["--rate-limit-no-retry-after"])).toThrow(/--rate-limit-no-retry-after/);
  });
});

describe("the emulator's rate-limit mode", () => {
  it("refuses over the limit with 429, Retry-After and the error body, before anything is processed", async () => {
    await withEmulator(
      async (emu) => {
        const answers = [];
        for (let i = 0; i < 4; i++)
          answers.push(await call(emu, "POST", "/dns/zones", { body: { name: `z${i}.example` } }));
        expect(answers.map((a) => a.status)).toEqual([201, 201, 429, 429]);
        const refused = answers[2]!;
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        // Not announced unless asked.
        for (const answer of [answers[0]!, refused]) {
          expect([answer.headers.get("ratelimit-policy"), answer.headers.get("ratelimit")]).toEqual([null, null]);
        }
        expect(refused.body.error.code).toBe("rate_limited");
        expect(refused.body.error.message).toMatch(/2 per second.*Retry-After/);
        // Inspection is never limited, and shows the refused zones were not created.
        const state = await call(emu, "GET", "/_emulator/state", { auth: null });
        expect(state.body.zones).toBe(2);
        const limit = await call(emu, "GET", "/_emulator/rate-limit", { auth: null });
        expect(limit.body).toEqual({
          requestsPerSecond: 2,
          burst: 2,
          ...byDefault,
          allowed: 2,
          refused: 2,
        });
      },
      { rateLimit: { requestsPerSecond: 2 } },
    );
  });

  it("takes new settings at run time, and reset clears the counters", async () => {
    await withEmulator(async (emu) => {
      for (let i = 0; i < 5; i++) expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);
      const set = await call(emu, "PUT", "/_emulator/rate-limit", {
        auth: null,
        body: { requestsPerSecond: 1, burst: 1 },
      });
      expect(set.body).toEqual({
        requestsPerSecond: 1,
        burst: 1,
        ...byDefault,
        allowed: 0,
        refused: 0,
      });
      expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);
      expect((await call(emu, "GET", "/dns/zones")).status).toBe(429);
      const posted = await call(emu, "POST", "/_emulator/rate-limit", { auth: null, body: { requestsPerSecond: 0 } });
      expect(posted.body).toEqual({
        requestsPerSecond: 0,
        burst: 1,
        ...byDefault,
        allowed: 1,
        refused: 1,
      });
      expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);
      await call(emu, "POST", "/_emulator/reset", { auth: null });
      expect((await call(emu, "GET", "/_emulator/rate-limit", { auth: null })).body.refused).toBe(0);
      const bad = await call(emu, "PUT", "/_emulator/rate-limit", { auth: null, body: { requestsPerSecond: -1 } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^requestsPerSecond:/);
      const unknown = await call(emu, "PUT", "/_emulator/rate-limit", { auth: null, body: { rate: 1 } });
      expect(unknown.body.error.message).toMatch(/unknown field\(s\) rate/);
    });
  });

  it("announces the limit on admitted answers and on 429s when asked, in both API areas", async () => {
    await withEmulator(
      async (emu) => {
        const created = await call(emu, "POST", "/dns/zones", { body: { name: "announced.example" } });
        expect(created.status).toBe(201);
        expect(created.headers.get("ratelimit-policy")).toBe('"default";q=2;w=1');
        expect(created.headers.get("ratelimit")).toBe('"default";r=0;t=1');
        const refused = await call(emu, "GET", "/dns/zones");
        expect(refused.status).toBe(429);
        expect(refused.headers.get("retry-after")).toBe("1");
        expect(refused.headers.get("ratelimit-policy")).toBe('"default";q=2;w=1');
        expect(refused.headers.get("ratelimit")).toBe('"default";r=0;t=1');
        // Another credential has its own bucket; the transcription area answers through the same limit.
        const transcript = await call(emu, "GET", "/v1/transcripts/tr_missing", { auth: `Bearer ${emu.token}` });
        expect(transcript.status).toBe(404);
        expect(transcript.headers.get("ratelimit")).toBe('"default";r=0;t=1');
        // The inspection endpoints are not limited, so they announce nothing.
        const limit = await call(emu, "GET", "/_emulator/rate-limit", { auth: null });
        expect(limit.headers.get("ratelimit")).toBeNull();
        expect(limit.body).toEqual({
          requestsPerSecond: 2,
          burst: 1,
          announce: true,
          status: 429,
          retryAfter: true,
          allowed: 2,
          refused: 1,
        });
      },
      { rateLimit: { requestsPerSecond: 2, burst: 1, announce: true } },
    );
  });

  it("takes announce at run time, and refuses a value that is not a boolean", async () => {
    await withEmulator(async (emu) => {
      const set = await call(emu, "PUT", "/_emulator/rate-limit", {
        auth: null,
        body: { requestsPerSecond: 1, burst: 5, announce: true },
      });
      expect(set.body).toEqual({
        requestsPerSecond: 1,
        burst: 5,
        announce: true,
        status: 429,
        retryAfter: true,
        allowed: 0,
        refused: 0,
      });
      await call(emu, "GET", "/dns/zones");
      const second = await call(emu, "GET", "/dns/zones");
      expect(second.headers.get("ratelimit")).toBe('"default";r=3;t=2');
      const slow = await call(emu, "PUT", "/_emulator/rate-limit", {
        auth: null,
        body: { requestsPerSecond: 0.5, announce: true },
      });
      expect(slow.status).toBe(200);
      const first = await call(emu, "GET", "/dns/zones");
      expect(first.headers.get("ratelimit-policy")).toBe('"default";q=1;w=2');
      expect(first.headers.get("ratelimit")).toBe('"default";r=0;t=2');
      const bad = await call(emu, "PUT", "/_emulator/rate-limit", {
        auth: null,
        body: { requestsPerSecond: 10, announce: "yes" },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^announce:/);
      expect((await call(emu, "GET", "/_emulator/rate-limit", { auth: null })).body.announce).toBe(true);
    });
  });

  it("refuses with 503 and no Retry-After when set so, as nginx's limit_req, and counts it refused", async () => {
    await withEmulator(
      async (emu) => {
        const first = await call(emu, "POST", "/dns/zones", { body: { name: "nginx.example" } });
        expect(first.status).toBe(201);
        const refused = await call(emu, "POST", "/dns/zones", { body: { name: "refused.example" } });
        expect(refused.status).toBe(503);
        expect(refused.headers.get("retry-after")).toBeNull();
        // The §2.1 body, its code the one of any 503 the front writes (api-server.ts picks it by
        // status), its message the rate limit's, without pointing at a Retry-After that is not sent.
        expect(refused.body.error.code).toBe("unavailable");
        expect(refused.body.error.message).toMatch(/^too many requests: .*1 per second; wait and send/);
        expect(refused.body.error.message).not.toMatch(/Retry-After/);
        expect((await call(emu, "GET", "/_emulator/state", { auth: null })).body.zones).toBe(1);
        const limit = await call(emu, "GET", "/_emulator/rate-limit", { auth: null });
        expect(limit.body).toEqual({
          requestsPerSecond: 1,
          burst: 1,
          announce: false,
          status: 503,
          retryAfter: false,
          allowed: 1,
          refused: 1,
        });
      },
      { rateLimit: { requestsPerSecond: 1, burst: 1, status: 503, retryAfter: false } },
    );
  });

  it("takes status and retryAfter at run time, each on its own, and refuses values it cannot play", async () => {
    await withEmulator(async (emu) => {
      const set = await call(emu, "PUT", "/_emulator/rate-limit", {
        auth: null,
        body: { requestsPerSecond: 1, burst: 1, status: 503 },
      });
      expect(set.body).toMatchObject({ status: 503, retryAfter: true });
      await call(emu, "GET", "/dns/zones");
      const withRetryAfter = await call(emu, "GET", "/dns/zones");
      expect(withRetryAfter.status).toBe(503);
      expect(withRetryAfter.headers.get("retry-after")).toBe("1");
      expect(withRetryAfter.body.error.message).toMatch(/wait Retry-After seconds/);
      await call(emu, "PUT", "/_emulator/rate-limit", {
        auth: null,
        body: { requestsPerSecond: 1, burst: 1, retryAfter: false, announce: true },
      });
      await call(emu, "GET", "/dns/zones");
      const bare = await call(emu, "GET", "/dns/zones");
      expect(bare.status).toBe(429);
      expect(bare.headers.get("retry-after")).toBeNull();
      // The announced limit is sent whatever the refusal looks like.
      expect(bare.headers.get("ratelimit")).toBe('"default";r=0;t=1');
      const badStatus = await call(emu, "PUT", "/_emulator/rate-limit", {
        auth: null,
        body: { requestsPerSecond: 1, status: 500 },
      });
      expect(badStatus.status).toBe(400);
      expect(badStatus.body.error.message).toMatch(/^status: must be one of 429, 503/);
      const badRetryAfter = await call(emu, "PUT", "/_emulator/rate-limit", {
        auth: null,
        body: { requestsPerSecond: 1, retryAfter: "x" },
      });
      expect(badRetryAfter.status).toBe(400);
      expect(badRetryAfter.body.error.message).toMatch(/^retryAfter:/);
      const kept = await call(emu, "GET", "/_emulator/rate-limit", { auth: null });
      expect(kept.body).toMatchObject({ status: 429, retryAfter: false, allowed: 2, refused: 2 });
    });
  });
});
