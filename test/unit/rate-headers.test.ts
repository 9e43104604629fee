import { describe, expect, it } from "vitest";
import { announcedRate, announcedResetMs, refusalWaitMs } from "../../provider/request/rate-headers.js";

// A platform's rate-limit headers, in the forms in use (provider/request/rate-headers.ts,
// docs/api-contract.md §2.3): the rate a policy allows paces the gate from the first answer; the
// reset is a refusal's wait when it has no Retry-After.

describe("announcedRate", () => {
  it("reads the IETF draft's policy: quota over window, named or not", () => {
    expect(announcedRate({ "ratelimit-policy": '"default";q=100;w=60' })).toBeCloseTo(100 / 60);
    expect(announcedRate({ "ratelimit-policy": "10;w=1" })).toBe(10);
    expect(announcedRate({ "ratelimit-policy": '"default";q=10;w=1;qu="requests"' })).toBe(10);
    expect(announcedRate({ "ratelimit-policy": '"default";q=1;w=2' })).toBe(0.5);
  });

  it("takes the smallest rate of several policies, but not a budget over more than a minute", () => {
    expect(announcedRate({ "ratelimit-policy": '"burst";q=10;w=1, "minute";q=300;w=60' })).toBe(5);
    expect(announcedRate({ "ratelimit-policy": '"burst";q=10;w=1, "hour";q=1000;w=3600' })).toBe(10);
    expect(announcedRate({ "ratelimit-policy": ['"burst";q=10;w=1', '"minute";q=120;w=60'] })).toBe(2);
    expect(announcedRate({ "x-ratelimit-limit": "5000;w=3600" })).toBeUndefined();
  });

  it("reads the policies of the earlier drafts' and the X- limit headers", () => {
    expect(announcedRate({ "ratelimit-limit": "100, 100;w=60" })).toBeCloseTo(100 / 60);
    expect(announcedRate({ "x-ratelimit-limit": "20;w=2" })).toBe(10);
    expect(announcedRate({ "x-rate-limit-limit": "30;w=1" })).toBe(30);
    expect(announcedRate({ "x-ratelimit-policy": "8;w=1" })).toBe(8);
  });

  it("finds no rate in a quota without a window, nor in what is not a number", () => {
    expect(announcedRate({ "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "4999" })).toBeUndefined();
    expect(announcedRate({ "ratelimit-limit": "100" })).toBeUndefined();
    expect(announcedRate({ ratelimit: "limit=100, remaining=50, reset=5" })).toBeUndefined();
    expect(announcedRate({ "ratelimit-policy": '"default";q=0;w=1' })).toBeUndefined();
    expect(announcedRate({ "ratelimit-policy": '"default";q=10;w=0' })).toBeUndefined();
    expect(announcedRate({ "ratelimit-policy": '"default";q=ten;w=1' })).toBeUndefined();
    expect(announcedRate({ "ratelimit-policy": '"default";q=-5;w=1' })).toBeUndefined();
    expect(announcedRate({})).toBeUndefined();
  });
});

describe("announcedResetMs", () => {
  const now = 1_764_400_000_000;

  it("reads the draft's t parameter and the earlier dictionary's reset", () => {
    expect(announcedResetMs({ ratelimit: '"default";r=0;t=3' }, now)).toBe(3_000);
    expect(announcedResetMs({ ratelimit: "limit=100, remaining=0, reset=5" }, now)).toBe(5_000);
  });

  it("reads *-Reset as seconds, or as a Unix time when it is one, and *-Reset-After", () => {
    expect(announcedResetMs({ "ratelimit-reset": "2" }, now)).toBe(2_000);
    expect(announcedResetMs({ "x-ratelimit-reset": String(now / 1000 + 7) }, now)).toBe(7_000);
    expect(announcedResetMs({ "x-ratelimit-reset": String(now / 1000 - 7) }, now)).toBe(0);
    expect(announcedResetMs({ "x-rate-limit-reset": "4" }, now)).toBe(4_000);
    expect(announcedResetMs({ "x-ratelimit-reset-after": "0.25" }, now)).toBe(250);
  });

  it("says nothing without a reset it can read", () => {
    expect(announcedResetMs({}, now)).toBeUndefined();
    expect(announcedResetMs({ "x-ratelimit-reset": "soon" }, now)).toBeUndefined();
    expect(announcedResetMs({ ratelimit: '"default";r=0' }, now)).toBeUndefined();
  });
});

describe("refusalWaitMs", () => {
  it("is the Retry-After when there is one, else the announced reset", () => {
    expect(refusalWaitMs({ "retry-after": "1", "x-ratelimit-reset": "9" }, 0)).toBe(1_000);
    expect(refusalWaitMs({ "x-ratelimit-reset": "9" }, 0)).toBe(9_000);
    expect(refusalWaitMs({}, 0)).toBeUndefined();
  });
});
