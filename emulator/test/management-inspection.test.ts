import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FaultInjector, faultConfigSchema, parseStatusRates } from "../src/faults.js";
import { isLocalHostHeader } from "../src/inspection.js";
import { createLogger, isLoopbackAddress, startEmulator, type RunningEmulator } from "../src/index.js";
import { call, createBucket, testOptions, withEmulator } from "./helpers.js";

// Emulator-only endpoints (docs/api-contract.md §9), fault injection and the request log.

describe("isLoopbackAddress (guards /_emulator/)", () => {
  it.each(["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])("accepts %s", (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });
  it.each([
    undefined,
    "",
    "garbage",
    "10.0.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "0.0.0.0",
    "::",
    "::ffff:10.0.0.1",
    "fe80::1",
    "8.8.8.8",
  ])("refuses %s", (address) => {
    expect(isLoopbackAddress(address)).toBe(false);
  });
});

describe("isLocalHostHeader (guards /_emulator/ against DNS rebinding)", () => {
  it.each(["127.0.0.1:8080", "localhost:1", "localhost", "[::1]:9000", "10.1.2.3"])("accepts %s", (host) => {
    expect(isLocalHostHeader(host)).toBe(true);
  });
  it.each([undefined, "", "evil.example:8080", "evil.example", "localhost.evil.example"])("refuses %s", (host) => {
    expect(isLocalHostHeader(host)).toBe(false);
  });
});

describe("inspection endpoints", () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator(testOptions({ balanceUsd: 3 }));
  });
  afterAll(async () => {
    await emu.close();
  });

  it("counts requests per route template and writes, without authentication", async () => {
    await call(emu, "POST", "/_emulator/reset", { auth: null });
    const bucket = await createBucket(emu);
    await call(emu, "GET", `/object-storage/buckets/${bucket.id}`);
    await call(emu, "GET", `/object-storage/buckets/${bucket.id}`);
    await call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`);
    await call(emu, "GET", "/dns/zones", { auth: null });
    const stats = await call(emu, "GET", "/_emulator/stats", { auth: null });
    expect(stats.status).toBe(200);
    expect(stats.body.requests).toEqual({
      "POST /object-storage/buckets": 1,
      "GET /object-storage/buckets/{bucketId}": 2,
      "POST /object-storage/buckets/{bucketId}/credentials": 1,
      "GET /dns/zones": 1,
    });
    expect(stats.body.writes).toBe(2);
    expect(stats.body.areas.management).toBe(5);
  });

  it("reads and sets the balance", async () => {
    expect((await call(emu, "GET", "/_emulator/balance", { auth: null })).body).toEqual({ balance_usd: 3 });
    const put = await call(emu, "PUT", "/_emulator/balance", { auth: null, body: { balance_usd: 0.5 } });
    expect(put.status).toBe(200);
    expect((await call(emu, "GET", "/_emulator/balance", { auth: null })).body).toEqual({ balance_usd: 0.5 });
    for (const body of [{ balance_usd: -1 }, { balance_usd: "5" }, { usd: 5 }]) {
      expect((await call(emu, "PUT", "/_emulator/balance", { auth: null, body })).status).toBe(400);
    }
  });

  it("summarises and resets state; the API key and JWT stay valid", async () => {
    await createBucket(emu);
    await call(emu, "POST", "/dns/zones", { body: { name: "reset-me.example" } });
    const before = await call(emu, "GET", "/_emulator/state", { auth: null });
    expect(before.body.buckets).toBeGreaterThan(0);
    expect(before.body.zones).toBeGreaterThan(0);
    expect(typeof before.body.objects).toBe("number");
    expect(typeof before.body.transcripts).toBe("number");

    expect((await call(emu, "POST", "/_emulator/reset", { auth: null })).status).toBe(204);
    const after = await call(emu, "GET", "/_emulator/state", { auth: null });
    expect(after.body).toEqual({ buckets: 0, zones: 0, credentials: 0, objects: 0, transcripts: 0 });
    expect((await call(emu, "GET", "/_emulator/stats", { auth: null })).body.requests).toEqual({});
    expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);
    expect((await call(emu, "GET", "/dns/zones", { auth: `Bearer ${emu.token}` })).status).toBe(200);
  });

  it("lists every object by identity in GET /_emulator/inventory, in every shape, never faulted", async () => {
    await withEmulator(
      async (emu) => {
        const bucket = await call(emu, "POST", "/object-storage/buckets", {
          body: { name: "inventoried", storage_class: "Archive" },
        });
        const cred = await call(emu, "POST", "/object-storage/buckets/inventoried/credentials");
        await call(
          emu,
          "POST",
          `/object-storage/buckets/inventoried/credentials/${cred.body.credential.accessKeyId}/deactivate`,
        );
        await call(emu, "POST", "/dns/zones", { body: { name: "inventory.example" } });
        const transcript = await call(emu, "POST", "/v1/transcripts?wait=false", {
          auth: `Bearer ${emu.apiKey}`,
          body: { url: "http://127.0.0.1:9/a.wav" },
        });
        expect(transcript.status).toBe(202);
        await call(emu, "PUT", "/_emulator/faults", { auth: null, body: { statusRates: { "503": 1 } } });

        const inventory = await call(emu, "GET", "/_emulator/inventory", { auth: null });
        expect(inventory.status).toBe(200);
        const state = (await call(emu, "GET", "/_emulator/state", { auth: null })).body;
        expect(inventory.body.buckets).toEqual([
          { id: expect.stringMatching(/^bkt_/), name: "inventoried", storage_class: "Archive" },
        ]);
        expect(inventory.body.zones).toEqual([{ id: expect.stringMatching(/^zone_/), name: "inventory.example" }]);
        expect(inventory.body.credentials).toEqual([
          { bucket_id: inventory.body.buckets[0].id, access_key_id: cred.body.credential.accessKeyId, active: false },
        ]);
        expect(inventory.body.transcripts).toEqual([
          { id: transcript.body.transcript.id, status: expect.stringMatching(/^(queued|processing|error)$/) },
        ]);
        expect(state).toMatchObject({ buckets: 1, zones: 1, credentials: 1, transcripts: 1 });
        expect(bucket.status).toBe(201);
      },
      { shape: "by-name" },
    );
  });

  it("answers 403 forbidden to a request naming another host", async () => {
    const status = await new Promise<number | undefined>((done, fail) => {
      const req = request(`${emu.baseUrl}/_emulator/state`, { headers: { host: "rebound.example" } }, (res) => {
        res.resume();
        done(res.statusCode);
      });
      req.on("error", fail);
      req.end();
    });
    expect(status).toBe(403);
  });

  it("answers 404 for an unknown emulator endpoint", async () => {
    expect((await call(emu, "GET", "/_emulator/nothing", { auth: null })).status).toBe(404);
  });
});

describe("fault injection", () => {
  it("injects statuses with Retry-After, per route filter, on both ports, and clears with {}", async () => {
    await withEmulator(async (emu) => {
      const set = await call(emu, "PUT", "/_emulator/faults", {
        auth: null,
        body: { statusRates: { "503": 1 }, retryAfterSeconds: 0 },
      });
      expect(set.status).toBe(200);
      const refused = await call(emu, "GET", "/dns/zones");
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("0");
      expect(refused.body.error.code).toBe("unavailable");

      const s3 = await fetch(`${emu.s3Url}/any-bucket/key`);
      expect(s3.status).toBe(503);
      expect(s3.headers.get("content-type")).toBe("application/xml");
      expect(await s3.text()).toContain("<Code>ServiceUnavailable</Code>");

      await call(emu, "PUT", "/_emulator/faults", {
        auth: null,
        body: { statusRates: { "429": 1 }, routes: "/dns/zones" },
      });
      const limited = await call(emu, "GET", "/dns/zones");
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("1");
      expect(limited.body.error.code).toBe("rate_limited");
      expect((await call(emu, "GET", "/object-storage/buckets")).status).toBe(200);

      const stats = await call(emu, "GET", "/_emulator/stats", { auth: null });
      expect(stats.body.injected).toEqual({ "503": 2, "429": 1 });

      expect((await call(emu, "PUT", "/_emulator/faults", { auth: null, body: {} })).status).toBe(200);
      expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);
    });
  });

  it("drops connections without answering and adds latency", async () => {
    await withEmulator(
      async (emu) => {
        await expect(fetch(`${emu.baseUrl}/dns/zones`, { headers: { authorization: emu.apiKey } })).rejects.toThrow();
        await call(emu, "PUT", "/_emulator/faults", { auth: null, body: { latencyMs: 150 } });
        const started = performance.now();
        expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);
        expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      },
      { faults: { dropRate: 1 } },
    );
  });

  it("refuses invalid fault settings", async () => {
    await withEmulator(async (emu) => {
      for (const body of [
        { statusRates: { "503": 0.7, "429": 0.5 } },
        { statusRates: { "200": 0.1 } },
        { dropRate: 2 },
        { latency: 5 },
      ]) {
        const res = await call(emu, "PUT", "/_emulator/faults", { auth: null, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
    });
  });

  it("draws faults by rate", () => {
    // Statuses take consecutive slices of [0, 1) in ascending order: 429 → [0, 0.2), 503 → [0.2, 0.3).
    const rolls = [0.05, 0.5, 0.95, 0.25];
    const faults = new FaultInjector(() => rolls.shift() ?? 0);
    faults.set(faultConfigSchema.parse({ statusRates: { "503": 0.1, "429": 0.2 } }));
    expect(faults.decide("GET", "/x")).toEqual({ kind: "status", status: 429 });
    expect(faults.decide("GET", "/x")).toEqual({ kind: "none" });
    expect(faults.decide("GET", "/x")).toEqual({ kind: "none" });
    expect(faults.decide("GET", "/x")).toEqual({ kind: "status", status: 503 });
    expect(parseStatusRates("503=0.1, 429=.05")).toEqual({ "503": 0.1, "429": 0.05 });
    expect(() => parseStatusRates("503:0.1")).toThrow(/503:0.1/);
  });
});

describe("request log", () => {
  it("writes one line per request with the route template, never credentials or query strings", async () => {
    const lines: string[] = [];
    await withEmulator(
      async (emu) => {
        const bucket = await createBucket(emu);
        await call(emu, "GET", `/object-storage/buckets/${bucket.id}?token=sekrit-query-token`);
        await call(emu, "GET", "/dns/zones", { auth: `Bearer ${emu.token}` });
        await call(emu, "GET", "/dns/zones", { auth: "cp-wrong-key" });
        const requestLines = lines.filter((l) => l.includes(" request "));
        expect(requestLines).toHaveLength(4);
        expect(requestLines[1]).toMatch(
          /"method":"GET","route":"GET \/object-storage\/buckets\/\{bucketId\}","status":200,"ms":\d+/,
        );
        expect(requestLines[3]).toContain('"status":401');
        const all = lines.join("\n");
        for (const secret of [emu.apiKey, emu.token, "sekrit-query-token", "cp-wrong-key"])
          expect(all).not.toContain(secret);
      },
      { logger: createLogger((line) => lines.push(line)) },
    );
  });
});
