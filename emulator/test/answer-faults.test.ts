import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { FaultInjector, faultConfigSchema } from "../src/faults.js";
import { call, withEmulator } from "./helpers.js";

// Lost and unreadable answers (docs/api-contract.md §9.1): the request is processed, then its answer spoiled.

/** A raw request that reports a destroyed connection instead of throwing. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; type: string | undefined; text: string } | "no answer"> {
  return new Promise((done) => {
    const req = request(url, { method: "POST", headers: { ...headers, "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => done({ status: res.statusCode ?? 0, type: res.headers["content-type"], text }));
    });
    req.on("error", () => done("no answer"));
    req.end(body);
  });
}

describe("answer faults", () => {
  it("loseRate: the bucket is created and stored, and its create gets no answer", async () => {
    await withEmulator(
      async (emu) => {
        const name = "lost-answer-bucket";
        const answer = await rawPost(
          `${emu.baseUrl}/object-storage/buckets`,
          { authorization: emu.apiKey },
          JSON.stringify({ name, storage_class: "Standard" }),
        );
        expect(answer).toBe("no answer");
        await call(emu, "PUT", "/_emulator/faults", { auth: null, body: {} });
        const found = await call(emu, "GET", `/object-storage/buckets?name=${name}`);
        expect(found.body).toHaveLength(1);
        expect((await call(emu, "GET", "/_emulator/stats", { auth: null })).body.injected).toEqual({ lose: 1 });
      },
      { faults: { loseRate: 1 } },
    );
  });

  it("garbleRate: the bucket is created, and its create is answered 200 with HTML", async () => {
    await withEmulator(
      async (emu) => {
        const answer = await rawPost(
          `${emu.baseUrl}/object-storage/buckets`,
          { authorization: emu.apiKey },
          JSON.stringify({ name: "garbled-answer-bucket", storage_class: "Standard" }),
        );
        if (answer === "no answer") throw new Error("expected an answer");
        expect(answer.status).toBe(200);
        expect(answer.type).toMatch(/^text\/html/);
        expect(() => JSON.parse(answer.text) as unknown).toThrow();
        await call(emu, "PUT", "/_emulator/faults", { auth: null, body: {} });
        expect((await call(emu, "GET", "/object-storage/buckets?name=garbled-answer-bucket")).body).toHaveLength(1);
        expect((await call(emu, "GET", "/_emulator/stats", { auth: null })).body.injected).toEqual({ garble: 1 });
      },
      { faults: { garbleRate: 1 } },
    );
  });

  it("applies to transcription, keeps to the routes filter, and leaves the S3 plane and /_emulator/ alone", async () => {
    await withEmulator(async (emu) => {
      await call(emu, "PUT", "/_emulator/faults", { auth: null, body: { loseRate: 1, routes: "/v1/" } });
      const upload = await rawPost(`${emu.baseUrl}/v1/transcripts/upload`, { authorization: emu.apiKey }, "{}");
      expect(upload).toBe("no answer");
      expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);

      await call(emu, "PUT", "/_emulator/faults", { auth: null, body: { loseRate: 0.5, garbleRate: 0.5 } });
      const s3 = await fetch(`${emu.s3Url}/any-bucket/key`);
      expect(s3.status).toBe(403);
      expect((await call(emu, "GET", "/_emulator/faults", { auth: null })).body).toMatchObject({
        loseRate: 0.5,
        garbleRate: 0.5,
      });
    });
  });

  it("refuses rates that add up to more than 1 across every kind", async () => {
    await withEmulator(async (emu) => {
      for (const body of [{ loseRate: 0.6, garbleRate: 0.5 }, { dropRate: 0.5, loseRate: 0.6 }, { loseRate: 2 }]) {
        const res = await call(emu, "PUT", "/_emulator/faults", { auth: null, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      const exact = await call(emu, "PUT", "/_emulator/faults", {
        auth: null,
        body: { dropRate: 0.1, statusRates: { "503": 0.7 }, loseRate: 0.1, garbleRate: 0.1 },
      });
      expect(exact.status).toBe(200);
    });
  });

  it("draws every kind from one roll: drop, statuses ascending, lose, garble", () => {
    const rolls = [0.05, 0.15, 0.35, 0.45, 0.55, 0.45];
    const faults = new FaultInjector(() => rolls.shift() ?? 0);
    faults.set(faultConfigSchema.parse({ dropRate: 0.1, statusRates: { "503": 0.2 }, loseRate: 0.1, garbleRate: 0.1 }));
    expect(faults.decide("POST", "/x")).toEqual({ kind: "drop" });
    expect(faults.decide("POST", "/x")).toEqual({ kind: "status", status: 503 });
    expect(faults.decide("POST", "/x")).toEqual({ kind: "lose" });
    expect(faults.decide("POST", "/x")).toEqual({ kind: "garble" });
    expect(faults.decide("POST", "/x")).toEqual({ kind: "none" });
    // An area that cannot spoil an answer after processing serves that share normally.
    expect(faults.decide("PUT", "/bucket/key", false)).toEqual({ kind: "none" });
  });

  it("replays the same faults for the same seed, from the start at every setting", () => {
    const config = faultConfigSchema.parse({ dropRate: 0.2, loseRate: 0.2, garbleRate: 0.2, seed: 7 });
    // The unseeded generator would be used without a seed: make it fail loudly if it is.
    const faults = new FaultInjector(() => {
      throw new Error("a seeded setting drew from the unseeded generator");
    });
    const draw = (n: number): string[] => Array.from({ length: n }, () => faults.decide("POST", "/x").kind);
    faults.set(config);
    const first = draw(200);
    faults.set(config);
    expect(draw(200)).toEqual(first);
    faults.set({ ...config, seed: 8 });
    expect(draw(200)).not.toEqual(first);
    // The rolls are spread: each kind takes about its share (200 draws, 40 expected of each).
    for (const kind of ["drop", "lose", "garble", "none"]) {
      const count = first.filter((k) => k === kind).length;
      expect(count, kind).toBeGreaterThan(kind === "none" ? 50 : 15);
    }
    faults.set(faultConfigSchema.parse({ loseRate: 0.5 }));
    expect(() => faults.decide("POST", "/x")).toThrow("unseeded");
  });

  it("refuses a seed that is not an integer from 0 to 2^32 - 1", async () => {
    await withEmulator(async (emu) => {
      for (const seed of [-1, 1.5, 2 ** 32, "7"]) {
        const res = await call(emu, "PUT", "/_emulator/faults", { auth: null, body: { loseRate: 0.1, seed } });
        expect(res.status, JSON.stringify(seed)).toBe(400);
      }
      const res = await call(emu, "PUT", "/_emulator/faults", {
        auth: null,
        body: { loseRate: 0.1, seed: 2 ** 32 - 1 },
      });
      expect(res.status).toBe(200);
    });
  });
});
