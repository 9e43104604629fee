// The console's addresses over real HTTP (docs/api-contract.md §9.4): what they show, that none of
// them holds a secret, and that no other web page can drive them through a browser.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATIC_DIR } from "../src/console/index.js";
import { maskPath, RequestLog } from "../src/console/request-log.js";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import {
  getPresigned,
  knownSecrets,
  newBucket,
  newCredential,
  newTranscript,
  putObject,
  secretsIn,
  type Credential,
  type Secrets,
} from "./console-fixtures.js";
import { call, testOptions } from "./helpers.js";
import { rawRequest, type RawResponse } from "./s3-helpers.js";

const CONSOLE = "/_emulator/console";
const ASSETS = ["console.css", "console.js", "icon.svg"];

/** A GET of a console address, as a program sends it (no browser headers). */
async function get(emu: RunningEmulator, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(`${emu.baseUrl}${path}`, { method: "GET", headers });
}

async function getJson(emu: RunningEmulator, path: string) {
  const res = await get(emu, path);
  expect(res.status, `${path}: ${res.body}`).toBe(200);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads the fields it asserts
  return JSON.parse(res.body) as any;
}

describe("RequestLog", () => {
  it("keeps the last requests in a ring and reads them by cursor", () => {
    const log = new RequestLog(3);
    const add = (route: string) =>
      log.add({ time: "2026-01-01T00:00:00.000Z", method: "GET", route, area: "management", status: 200, ms: 1 });
    for (const route of ["/a", "/b"]) add(route);
    expect(log.since(0).requests.map((r) => r.route)).toEqual(["/a", "/b"]);
    for (const route of ["/c", "/d", "/e"]) add(route);
    const all = log.since(0);
    expect(all.requests.map((r) => [r.seq, r.route])).toEqual([
      [3, "/c"],
      [4, "/d"],
      [5, "/e"],
    ]);
    expect(all).toMatchObject({ last: 5, total: 5 });
    expect(log.since(4).requests.map((r) => r.route)).toEqual(["/e"]);
    expect(log.since(5).requests).toEqual([]);
    log.clear();
    expect(log.since(0)).toMatchObject({ requests: [], last: 5, total: 0, epoch: all.epoch + 1 });
    add("/f");
    expect(log.since(5)).toMatchObject({ requests: [{ seq: 6, route: "/f" }], total: 1 });
  });

  it("hides path segments that could be credentials", () => {
    expect(maskPath("/security/apikey/cp-abcdef")).toBe("/security/apikey/{hidden}");
    expect(maskPath("/x/eyJhbGciOiJIUzI1NiJ9.e30.sig/y")).toBe("/x/{hidden}/y");
    expect(maskPath(`/b/${"k".repeat(40)}`)).toBe("/b/{hidden}");
    expect(maskPath("/object-storage/buckets/bkt_0123456789abcdefghij")).toBe(
      "/object-storage/buckets/bkt_0123456789abcdefghij",
    );
  });
});

describe("console", () => {
  let emu: RunningEmulator;
  let secrets: Secrets;
  let media: { id: string; name: string };
  let archive: { id: string; name: string };
  let writer: Credential;
  let retired: Credential;
  let zone: { id: string; name: string };
  let transcript: { id: string; status: string };
  const big = Buffer.alloc(40_000, "abcdefghij");
  const script = "<script>parent.postMessage(1, '*')</script>";

  beforeAll(async () => {
    emu = await startEmulator(testOptions({ balanceUsd: 4 }));
    secrets = knownSecrets(emu);
    media = await newBucket(emu, "media-assets");
    archive = await newBucket(emu, "cold-archive", "Archive");
    writer = await newCredential(emu, media.id, secrets);
    retired = await newCredential(emu, media.id, secrets);
    await call(emu, "POST", `/object-storage/buckets/${media.id}/credentials/${retired.access_key_id}/deactivate`);
    const regenerated = await call(
      emu,
      "POST",
      `/object-storage/buckets/${archive.id}/credentials/${(await newCredential(emu, archive.id, secrets)).access_key_id}/regenerate`,
    );
    secrets.set("regenerated S3 secret", regenerated.body.secret_access_key as string);
    zone = (await call(emu, "POST", "/dns/zones", { body: { name: "example.com" } })).body as typeof zone;
    await putObject(emu, media.name, writer, { key: "hello.txt", body: "hello, console", contentType: "text/plain" });
    // Over the size kept inline with its metadata: its bytes are in a data file of their own.
    await putObject(emu, media.name, writer, { key: "video/intro.bin", body: big, contentType: "video/mp4" });
    await putObject(emu, media.name, writer, {
      key: "page.html",
      body: script,
      contentType: "text/html",
    });
    transcript = await newTranscript(emu, secrets);
    // Rotated out: the old key must not show either.
    secrets.set("previous api key", emu.apiKey);
    await call(emu, "POST", "/security/apikey");
    secrets.set("api key", emu.apiKey);
    await call(emu, "PUT", "/_emulator/balance", { auth: null, body: { balance_usd: 7.5 } });
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
  });

  it("serves the page with its token, a strict content security policy and no framing", async () => {
    expect(emu.consoleUrl).toBe(`${emu.baseUrl}${CONSOLE}`);
    const page = await get(emu, CONSOLE);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    const policy = String(page.headers["content-security-policy"]);
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"])
      expect(policy).toContain(directive);
    expect(policy).not.toContain("unsafe");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["cross-origin-resource-policy"]).toBe("same-origin");
    const token = /<meta name="emulator-console-token" content="([\w-]{20,})"/.exec(page.body)?.[1];
    expect(token).toBeDefined();
    // No inline script or style for the policy to allow.
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(page.body).not.toMatch(/\sstyle=|<style/);
    expect((await get(emu, `${CONSOLE}/`)).status).toBe(200);
  });

  it("serves its static files, and only those", async () => {
    const types = { "console.css": "text/css", "console.js": "text/javascript", "icon.svg": "image/svg+xml" };
    for (const [name, type] of Object.entries(types)) {
      const res = await get(emu, `${CONSOLE}/static/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers["content-type"]).toContain(type);
      expect(res.body.length).toBeGreaterThan(100);
    }
    for (const path of ["static/index.html", "static/..%2F..%2Findex.ts", "static/../index.ts", "nothing", "api/x"]) {
      expect((await get(emu, `${CONSOLE}/${path}`)).status, path).toBe(404);
    }
    // The build does not copy them: the compiled module (dist/console/) finds them in src/ too.
    expect(STATIC_DIR).toBe(resolve(__dirname, "../src/console/static"));
    expect(resolve(__dirname, "../dist/console", "..", "..", "src", "console", "static")).toBe(STATIC_DIR);
    for (const name of ["index.html", ...ASSETS]) expect(existsSync(join(STATIC_DIR, name)), name).toBe(true);
  });

  it("shows the buckets, credentials, zones, transcripts, balance and faults, and no more of them", async () => {
    const overview = await getJson(emu, `${CONSOLE}/api/overview`);
    expect(overview.emulator).toEqual({ shape: "canonical", base_url: emu.baseUrl, s3_url: emu.s3Url });
    expect(overview.balance_usd).toBe(7.5);
    const byName = Object.fromEntries(overview.buckets.map((b: { name: string }) => [b.name, b]));
    expect(byName["media-assets"]).toEqual({
      id: media.id,
      name: "media-assets",
      storage_class: "Standard",
      created_at: expect.any(String),
      objects: 3,
      bytes: "hello, console".length + big.length + script.length,
    });
    expect(byName["cold-archive"]).toMatchObject({ storage_class: "Archive", objects: 0, bytes: 0 });
    expect(overview.credentials).toHaveLength(3);
    expect(overview.credentials).toContainEqual({
      access_key_id: retired.access_key_id,
      bucket_id: media.id,
      bucket_name: "media-assets",
      active: false,
      created_at: expect.any(String),
    });
    expect(overview.credentials).toContainEqual(
      expect.objectContaining({ access_key_id: writer.access_key_id, active: true }),
    );
    expect(overview.zones).toEqual([
      {
        id: zone.id,
        name: "example.com",
        status: "active",
        nameservers: expect.any(Array),
        created_at: expect.any(String),
      },
    ]);
    const api = await call(emu, "GET", `/v1/transcripts/${transcript.id}`);
    const { webhook_url: _hook, ...shown } = api.body;
    expect(overview.transcripts).toEqual([shown]);
    expect(overview.transcripts[0]).toMatchObject({ audio_duration: 2, price_usd: expect.any(Number) });
    expect(overview.faults).toEqual((await call(emu, "GET", "/_emulator/faults", { auth: null })).body);
    expect(overview.stats).toEqual({
      writes: expect.any(Number),
      areas: { management: expect.any(Number), s3: 3, transcription: expect.any(Number) },
      injected: {},
    });
  });

  it("lists a bucket's objects in key order and downloads them, never as a page", async () => {
    const listing = (await getJson(emu, `${CONSOLE}/api/overview?bucket=${media.id}`)).objects;
    expect(listing).toMatchObject({ bucket: { id: media.id, name: "media-assets" }, count: 3, truncated: false });
    expect(listing.objects.map((o: { key: string }) => o.key)).toEqual(["hello.txt", "page.html", "video/intro.bin"]);
    expect(listing.objects[0]).toEqual({
      key: "hello.txt",
      size: 14,
      content_type: "text/plain",
      last_modified: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
    });
    const download = (key: string) =>
      get(emu, `${CONSOLE}/api/buckets/${media.id}/object?${new URLSearchParams({ key })}`);
    const small = await download("hello.txt");
    expect(small.status).toBe(200);
    expect(small.body).toBe("hello, console");
    expect(small.headers["content-disposition"]).toBe(`attachment; filename="hello.txt"; filename*=UTF-8''hello.txt`);
    const large = await download("video/intro.bin");
    expect(large.body).toBe(big.toString("utf8"));
    expect(large.headers["content-disposition"]).toContain('filename="intro.bin"');
    // An HTML object served on the console's origin could drive it: always a sandboxed attachment.
    const html = await download("page.html");
    expect(html.headers["content-type"]).toBe("application/octet-stream");
    expect(html.headers["content-disposition"]).toMatch(/^attachment;/);
    expect(html.headers["content-security-policy"]).toContain("sandbox");
    expect((await download("missing.txt")).status).toBe(404);
    expect((await get(emu, `${CONSOLE}/api/buckets/${media.id}/object`)).status).toBe(400);
    expect((await get(emu, `${CONSOLE}/api/buckets/bkt_nope/object?key=hello.txt`)).status).toBe(404);
    expect((await getJson(emu, `${CONSOLE}/api/overview?bucket=${archive.id}`)).objects).toEqual({
      bucket: { id: archive.id, name: "cold-archive" },
      count: 0,
      bytes: 0,
      objects: [],
      truncated: false,
    });
    // A bucket that is gone (deleted meanwhile): the first one's objects instead.
    expect((await getJson(emu, `${CONSOLE}/api/overview?bucket=bkt_gone`)).objects.bucket.id).toBe(
      (await getJson(emu, `${CONSOLE}/api/overview`)).buckets[0].id,
    );
  });

  it("lists the last requests: method, route template, area, status, time, error code and fault", async () => {
    const { last } = await getJson(emu, `${CONSOLE}/api/requests`);
    await call(emu, "GET", `/object-storage/buckets/${media.id}`);
    await call(emu, "GET", "/object-storage/buckets/bkt_missing");
    await call(emu, "GET", "/dns/zones", { auth: null });
    await getPresigned(emu, `/${media.name}/hello.txt`, writer, secrets);
    await getPresigned(emu, `/${media.name}/absent.txt`, writer, secrets);
    await call(emu, "GET", `/security/apikey/${emu.apiKey}`);
    await call(emu, "PUT", "/_emulator/faults", { auth: null, body: { statusRates: { "503": 1 }, routes: "/dns/" } });
    await call(emu, "GET", "/dns/zones");
    await call(emu, "PUT", "/_emulator/faults", { auth: null, body: {} });
    const answer = await getJson(emu, `${CONSOLE}/api/requests?after=${last}`);
    expect(answer.capacity).toBe(1000);
    const rows = answer.requests.map(({ method, route, area, status, error, fault }: Record<string, unknown>) => ({
      method,
      route,
      area,
      status,
      ...(error !== undefined ? { error } : {}),
      ...(fault !== undefined ? { fault } : {}),
    }));
    expect(rows).toEqual([
      { method: "GET", route: "/object-storage/buckets/{bucketId}", area: "management", status: 200 },
      {
        method: "GET",
        route: "/object-storage/buckets/{bucketId}",
        area: "management",
        status: 404,
        error: "not_found",
      },
      { method: "GET", route: "/dns/zones", area: "management", status: 401, error: "unauthorized" },
      { method: "GET", route: "/{bucket}/{key}", area: "s3", status: 200 },
      { method: "GET", route: "/{bucket}/{key}", area: "s3", status: 404, error: "NoSuchKey" },
      { method: "GET", route: "/security/apikey/{hidden}", area: "management", status: 404, error: "not_found" },
      { method: "GET", route: "/dns/zones", area: "management", status: 503, error: "unavailable", fault: "503" },
    ]);
    for (const r of answer.requests) {
      expect(r.seq).toBeGreaterThan(last);
      expect(Date.parse(r.time)).toBeGreaterThan(Date.now() - 60_000);
      expect(r.ms).toBeGreaterThanOrEqual(0);
    }
    // The cursor: only what came after.
    const again = await getJson(emu, `${CONSOLE}/api/requests?after=${answer.last}`);
    expect(again).toMatchObject({ requests: [], last: answer.last, epoch: answer.epoch });
    expect((await get(emu, `${CONSOLE}/api/requests?after=-1`)).status).toBe(400);
  });

  it("holds no secret in any answer: page, files, overview, objects, downloads, requests", async () => {
    // Requests whose query, path or body carry secrets, for the request list to (not) show.
    await getPresigned(emu, `/${media.name}/hello.txt`, writer, secrets);
    await call(emu, "GET", `/object-storage/${encodeURIComponent(writer.secret_access_key)}`);
    await call(emu, "GET", `/dns/zones?api_key=${emu.apiKey}`, { auth: `Bearer ${emu.token}` });
    expect(secrets.size).toBeGreaterThanOrEqual(10);
    const overview = await getJson(emu, `${CONSOLE}/api/overview`);
    const addresses = [
      CONSOLE,
      ...ASSETS.map((name) => `${CONSOLE}/static/${name}`),
      `${CONSOLE}/api/overview`,
      `${CONSOLE}/api/requests`,
      ...overview.buckets.map((b: { id: string }) => `${CONSOLE}/api/overview?bucket=${b.id}`),
      ...["hello.txt", "video/intro.bin"].map(
        (key) => `${CONSOLE}/api/buckets/${media.id}/object?${new URLSearchParams({ key })}`,
      ),
    ];
    for (const address of addresses) {
      const res = await get(emu, address);
      expect(res.status, address).toBe(200);
      const seen = `${JSON.stringify(res.headers)}\n${res.body}`;
      expect(secretsIn(seen, secrets), address).toEqual([]);
    }
  });

  describe("refuses other web pages", () => {
    const faultsBody = JSON.stringify({ latencyMs: 7 });
    let token: string;
    let self: string;
    beforeAll(async () => {
      token = /content="([\w-]+)"/.exec((await get(emu, CONSOLE)).body.split("emulator-console-token")[1]!)![1]!;
      self = emu.baseUrl;
    });

    async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
      return rawRequest(`${emu.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    }
    const latency = async () => (await call(emu, "GET", "/_emulator/faults", { auth: null })).body.latencyMs as number;

    it("takes changes from the console page: its origin, JSON and its token", async () => {
      const res = await send(
        "PUT",
        "/_emulator/faults",
        {
          origin: self,
          "sec-fetch-site": "same-origin",
          "sec-fetch-mode": "cors",
          "content-type": "application/json",
          "x-emulator-console-token": token,
        },
        faultsBody,
      );
      expect(res.status, res.body).toBe(200);
      expect(await latency()).toBe(7);
      await call(emu, "PUT", "/_emulator/faults", { auth: null, body: {} });
    });

    it.each([
      ["another site", { origin: "http://evil.example", "sec-fetch-site": "cross-site" }],
      ["another local port", { origin: "http://127.0.0.1:1", "sec-fetch-site": "same-site" }],
      ["another origin without fetch metadata", { origin: "http://evil.example" }],
      ["a null origin (sandboxed frame)", { origin: "null", "sec-fetch-site": "cross-site" }],
      ["the page's origin without the token", { origin: "", "sec-fetch-site": "same-origin", token: "" }],
      ["the page's origin with a wrong token", { origin: "", "sec-fetch-site": "same-origin", token: "x" }],
    ])("refuses a fault change from %s", async (_what, headers: Record<string, string>) => {
      const res = await send(
        "PUT",
        "/_emulator/faults",
        {
          origin: headers.origin || self,
          ...(headers["sec-fetch-site"] ? { "sec-fetch-site": headers["sec-fetch-site"] } : {}),
          "content-type": "application/json",
          "x-emulator-console-token": headers.token ?? token,
        },
        faultsBody,
      );
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe("forbidden");
      expect(await latency()).toBe(0);
    });

    it("refuses a reset posted by a form of another site, or as a simple request from its own origin", async () => {
      const form = { "content-type": "application/x-www-form-urlencoded" };
      const cases: Record<string, string>[] = [
        { origin: "http://evil.example", "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", ...form },
        { origin: "http://evil.example", "sec-fetch-site": "cross-site", "content-type": "text/plain" },
        {
          origin: self,
          "sec-fetch-site": "same-origin",
          "content-type": "text/plain",
          "x-emulator-console-token": token,
        },
      ];
      for (const headers of cases) {
        const res = await send("POST", "/_emulator/reset", headers, "a=1");
        expect(res.status, JSON.stringify(headers)).toBe(403);
      }
      expect((await call(emu, "GET", "/_emulator/state", { auth: null })).body.buckets).toBe(2);
    });

    it("refuses reads asked by another site, but lets a link open the page", async () => {
      for (const path of [`${CONSOLE}/api/overview`, `${CONSOLE}/static/console.js`, "/_emulator/inventory"]) {
        const res = await get(emu, path, { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" });
        expect(res.status, path).toBe(403);
      }
      const fromLink = await get(emu, CONSOLE, { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" });
      expect(fromLink.status).toBe(200);
      const ownFetch = await get(emu, `${CONSOLE}/api/overview`, {
        "sec-fetch-site": "same-origin",
        "sec-fetch-mode": "cors",
      });
      expect(ownFetch.status).toBe(200);
    });

    it("refuses a Host that is not localhost or an address (DNS rebinding)", async () => {
      const port = new URL(emu.baseUrl).port;
      for (const path of [CONSOLE, `${CONSOLE}/api/overview`, `${CONSOLE}/api/requests`]) {
        const res = await get(emu, path, { host: `rebind.evil.example:${port}` });
        expect(res.status, path).toBe(403);
        expect(secretsIn(res.body, secrets)).toEqual([]);
      }
      expect((await get(emu, CONSOLE, { host: `localhost:${port}` })).status).toBe(200);
    });

    it("only reads on its own addresses", async () => {
      for (const method of ["POST", "PUT", "DELETE"]) {
        const res = await send(method, `${CONSOLE}/api/overview`, {});
        expect(res.status, method).toBe(405);
      }
    });
  });

  it("reset forgets the requests; the cursor keeps counting", async () => {
    const before = await getJson(emu, `${CONSOLE}/api/requests`);
    expect(before.requests.length).toBeGreaterThan(0);
    expect((await call(emu, "POST", "/_emulator/reset", { auth: null })).status).toBe(204);
    const after = await getJson(emu, `${CONSOLE}/api/requests`);
    expect(after).toMatchObject({ requests: [], last: before.last, total: 0, epoch: before.epoch + 1 });
    await call(emu, "GET", "/dns/zones");
    const next = await getJson(emu, `${CONSOLE}/api/requests?after=${after.last}`);
    expect(next.requests.map((r: { seq: number; route: string }) => [r.seq, r.route])).toEqual([
      [before.last + 1, "/dns/zones"],
    ]);
    const overview = await getJson(emu, `${CONSOLE}/api/overview`);
    expect([overview.buckets, overview.credentials, overview.zones, overview.transcripts]).toEqual([[], [], [], []]);
  });
});
