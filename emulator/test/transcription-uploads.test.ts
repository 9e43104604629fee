import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiError } from "../src/api-error.js";
import { UploadStore } from "../src/transcription/uploads.js";

/**
 * The receiving side of an upload PUT (docs/api-contract.md §8.1) on a real loopback connection:
 * what arrives in many socket reads is stored whole, and a body without a content-length is cut
 * off at the size limit (a small one here: the real 2 GB cannot be sent in a test).
 */
const limit = 3 * 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "emulator-uploads-"));
const store = new UploadStore(dir, false, limit);
/** What `receive` settled with, one per request, pushed as the request arrives. */
const outcomes: Promise<number | ApiError>[] = [];
let server: Server;
let origin = "";

beforeAll(async () => {
  await store.load();
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://emulator.invalid");
    const outcome = store.receive(url.pathname.slice(1), url.searchParams.get("token"), req).then(
      (size) => {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ size }));
        return size;
      },
      (error: ApiError) => {
        if (!res.headersSent && !res.destroyed) res.writeHead(error.status).end();
        return error;
      },
    );
    outcomes.push(outcome);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `chunks` as a chunked body (no content-length), each its own write; settles when the exchange ends. */
function put(key: string, token: string, chunks: readonly Buffer[]): Promise<number | "cut"> {
  return new Promise((resolve) => {
    const req = request(`${origin}/${key}?token=${token}`, { method: "PUT" }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve("cut"));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

it("stores a body of many socket reads byte for byte", async () => {
  const { key, token } = await store.create();
  const chunks = Array.from({ length: 40 }, (_, i) => randomBytes(64 * 1024 + i));
  expect(await put(key, token, chunks)).toBe(200);
  const sent = Buffer.concat(chunks);
  expect(await outcomes.pop()).toBe(sent.length);
  const dest = join(dir, "consumed.bin");
  await store.consume(key, dest);
  expect(createHash("sha256").update(readFileSync(dest)).digest("hex")).toBe(
    createHash("sha256").update(sent).digest("hex"),
  );
});

it("cuts off a body without a content-length once it passes the limit, and keeps nothing of it", async () => {
  const { key, token } = await store.create();
  const chunks = Array.from({ length: 8 }, () => randomBytes(1024 * 1024));
  const answer = await put(key, token, chunks);
  expect([413, "cut"]).toContain(answer);
  const outcome = await outcomes.pop();
  expect(outcome).toBeInstanceOf(ApiError);
  expect((outcome as ApiError).code).toBe("too_large");
  expect(readdirSync(dir).filter((name) => name.startsWith(key))).toEqual([]);
  await expect(store.consume(key, join(dir, "never.bin"))).rejects.toThrow(/no file yet/);
});
