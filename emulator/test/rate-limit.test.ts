import { describe, expect, it } from "vitest";
import { parseCliOptions, UsageError } from "../src/cli.js";
import { parseRateLimit, RateLimiter, rateLimitSettingsSchema } from "../src/rate-limit.js";
import { call, withEmulator } from "./helpers.js";

// The API's rate-limit mode (docs/api-contract.md §9.5): a token bucket per credential, 429 with
// Retry-After over it, settings and counters at /_emulator/rate-limit.

function limiter(settings: { requestsPerSecond: number; burst?: number }) {
  let now = 0;
  const limit = new RateLimiter(() => now);
  limit.set(rateLimitSettingsSchema.parse(settings));
  return { limit, advance: (ms: number) => (now += ms) };
}

describe("RateLimiter", () => {
  it("lets a burst through, then one request per 1/rate seconds", () => {
    const { limit, advance } = limiter({ requestsPerSecond: 2, burst: 3 });
    expect([1, 2, 3].map(() => limit.admit("key"))).toEqual([undefined, undefined, undefined]);
    expect(limit.admit("key")).toBe(1);
    advance(499);
    expect(limit.admit("key")).toBe(1);
    advance(1);
    expect(limit.admit("key")).toBeUndefined();
    expect(limit.current).toEqual({ requestsPerSecond: 2, burst: 3, allowed: 4, refused: 2 });
  });

  it("keeps one bucket per credential", () => {
    const { limit } = limiter({ requestsPerSecond: 1 });
    expect(limit.admit("a")).toBeUndefined();
    expect(limit.admit("a")).toBe(1);
    expect(limit.admit("b")).toBeUndefined();
    expect(limit.admit(undefined)).toBeUndefined();
  });

  it("says in whole seconds, at least 1, when a token is back", () => {
    const { limit } = limiter({ requestsPerSecond: 0.25 });
    expect(limit.admit("k")).toBeUndefined();
    expect(limit.admit("k")).toBe(4);
    const fast = limiter({ requestsPerSecond: 1000, burst: 1 }).limit;
    expect(fast.admit("k")).toBeUndefined();
    expect(fast.admit("k")).toBe(1);
  });

  it("is off at rate 0, and by default", () => {
    const limit = new RateLimiter();
    for (let i = 0; i < 100; i++) expect(limit.admit("k")).toBeUndefined();
    expect(limit.current).toEqual({ requestsPerSecond: 0, burst: 1, allowed: 0, refused: 0 });
  });

  it("parses the command line form", () => {
    expect(parseRateLimit("10")).toEqual({ requestsPerSecond: 10 });
    expect(parseRateLimit("2.5/20")).toEqual({ requestsPerSecond: 2.5, burst: 20 });
    for (const bad of ["", "ten", "10/", "10/0", "-1", "10/2.5"])
      expect(() => parseRateLimit(bad)).toThrow(/--rate-limit/);
    const parsed = parseCliOptions(["--rate-limit", "20/5"]);
    expect(parsed.help === false && parsed.options.rateLimit).toEqual({ requestsPerSecond: 20, burst: 5 });
    expect(() => parseCliOptions(["--rate-limit", "x"])).toThrow(UsageError);
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
        expect(refused.body.error.code).toBe("rate_limited");
        expect(refused.body.error.message).toMatch(/2 per second.*Retry-After/);
        // Inspection is never limited, and shows the refused zones were not created.
        const state = await call(emu, "GET", "/_emulator/state", { auth: null });
        expect(state.body.zones).toBe(2);
        const limit = await call(emu, "GET", "/_emulator/rate-limit", { auth: null });
        expect(limit.body).toEqual({ requestsPerSecond: 2, burst: 2, allowed: 2, refused: 2 });
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
      expect(set.body).toEqual({ requestsPerSecond: 1, burst: 1, allowed: 0, refused: 0 });
      expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);
      expect((await call(emu, "GET", "/dns/zones")).status).toBe(429);
      const posted = await call(emu, "POST", "/_emulator/rate-limit", { auth: null, body: { requestsPerSecond: 0 } });
      expect(posted.body).toEqual({ requestsPerSecond: 0, burst: 1, allowed: 1, refused: 1 });
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
});
