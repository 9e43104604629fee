// A multipart upload's parts go through the process's part buffers (provider/part-buffers.ts): at most
// `count` lent at once however many uploads run, waiting uploads served in the order they asked,
// every buffer given back (also when an upload fails) and dropped when idle. Against a fake S3 on
// loopback in this process, which keeps every part, assembles the object at Complete and records
// the order of the requests, so the tests read the bytes stored and what arrived after an abort.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openStore, partBuffers, putObject, type ObjectStore, type PutTuning } from "../../provider/s3/objects.js";
import { PartBuffers } from "../../provider/part-buffers.js";

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const MiB = 1024 * 1024;

describe("PartBuffers", () => {
  it("lends at most `count` buffers, then serves the waiting in the order they asked", async () => {
    const pool = new PartBuffers(2, 16);
    const a = await pool.take();
    const b = await pool.take();
    const served: [string, Buffer][] = [];
    for (const name of ["c", "d", "e"]) void pool.take().then((buffer) => served.push([name, buffer]));
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    expect(served).toEqual([]);
    expect(pool.waiting).toBe(3);
    pool.give(a);
    await settle();
    expect(served).toEqual([["c", a]]);
    pool.give(b);
    pool.give(a);
    await settle();
    expect(served).toEqual([
      ["c", a],
      ["d", b],
      ["e", a],
    ]);
    expect(pool.held).toBe(2);
    expect(pool.waiting).toBe(0);
  });

  it("keeps a buffer given back for the next part while others are lent, drops them all once every one is back", async () => {
    const pool = new PartBuffers(2, 16);
    const a = await pool.take();
    const b = await pool.take();
    pool.give(a);
    expect(pool.held).toBe(2);
    expect(await pool.take()).toBe(a);
    pool.give(a);
    pool.give(b);
    expect(pool.held).toBe(0);
    const fresh = await pool.take();
    expect(fresh).not.toBe(a);
    expect(fresh).not.toBe(b);
    expect(fresh.length).toBe(16);
  });

  it("refuses a buffer given back twice, which would be lent to two parts at once", async () => {
    const pool = new PartBuffers(2, 16);
    const a = await pool.take();
    await pool.take();
    pool.give(a);
    expect(() => pool.give(a)).toThrow("not lent");
    expect(() => pool.give(Buffer.alloc(16))).toThrow("not lent");
  });
});

/** What the fake S3 saw: requests in order of arrival, parts in flight, buffers lent during a part. */
interface Seen {
  events: string[];
  partsInFlight: number;
  maxPartsInFlight: number;
  maxBuffersHeld: number;
}

/** How the fake S3 answers one UploadPart: undefined, normally. */
type PartAnswer = (key: string, part: number, attempt: number) => { status: number; code: string } | undefined;

const xml = (res: ServerResponse, body: string, status = 200) => {
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
};
const s3Error = (res: ServerResponse, status: number, code: string) =>
  xml(res, `<Error><Code>${code}</Code><Message>${code}</Message></Error>`, status);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: Server;
let store: ObjectStore;
let dir: string;
let seen: Seen;
let answerPart: PartAnswer;
/** How long the fake S3 takes to answer a part (after reading it). */
let partDelayMs: (key: string, part: number) => number;
/** Uploads by id: their key and parts. */
const uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
const objects = new Map<string, Buffer>();
const storedSha = (key: string) => sha(objects.get(key) ?? Buffer.alloc(0));
const attempts = new Map<string, number>();

/** The payload of an aws-chunked body (a streamed part): `<hex size>[;…]\r\n<bytes>\r\n`, up to a size 0. */
function unchunk(raw: Buffer): Buffer {
  const out: Buffer[] = [];
  for (let at = 0; ;) {
    const eol = raw.indexOf("\r\n", at);
    const size = parseInt(raw.subarray(at, eol).toString("latin1").split(";")[0] as string, 16);
    if (size === 0) return Buffer.concat(out);
    out.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://x");
  const key = decodeURIComponent(url.pathname.split("/").slice(2).join("/"));
  const uploadId = url.searchParams.get("uploadId");
  const partNumber = Number(url.searchParams.get("partNumber"));
  if (req.method === "PUT" && uploadId !== null) {
    seen.events.push(`part ${key} ${partNumber}`);
    seen.partsInFlight++;
    seen.maxPartsInFlight = Math.max(seen.maxPartsInFlight, seen.partsInFlight);
    seen.maxBuffersHeld = Math.max(seen.maxBuffersHeld, partBuffers.held);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const body = (req.headers["content-encoding"] ?? "").includes("aws-chunked") ? unchunk(raw) : raw;
  if (req.method === "GET" && url.searchParams.has("uploads")) {
    return xml(res, "<ListMultipartUploadsResult><Bucket>b</Bucket></ListMultipartUploadsResult>");
  }
  if (req.method === "POST" && url.searchParams.has("uploads")) {
    const id = `u${uploads.size + 1}`;
    uploads.set(id, { key, parts: new Map() });
    return xml(res, `<InitiateMultipartUploadResult><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
  }
  if (req.method === "PUT" && uploadId !== null) {
    try {
      const attempt = (attempts.get(`${key} ${partNumber}`) ?? 0) + 1;
      attempts.set(`${key} ${partNumber}`, attempt);
      await sleep(partDelayMs(key, partNumber));
      const refused = answerPart(key, partNumber, attempt);
      if (refused !== undefined) return s3Error(res, refused.status, refused.code);
      uploads.get(uploadId)?.parts.set(partNumber, body);
      res.writeHead(200, { etag: `"${sha(body).slice(0, 32)}"` }).end();
      return;
    } finally {
      seen.partsInFlight--;
    }
  }
  if (req.method === "POST" && uploadId !== null) {
    const upload = uploads.get(uploadId);
    if (upload === undefined) return s3Error(res, 404, "NoSuchUpload");
    seen.events.push(`complete ${key}`);
    const numbers = [...body.toString().matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => Number(m[1]));
    objects.set(key, Buffer.concat(numbers.map((n) => upload.parts.get(n) ?? Buffer.alloc(0))));
    return xml(res, `<CompleteMultipartUploadResult><ETag>"done"</ETag></CompleteMultipartUploadResult>`);
  }
  if (req.method === "DELETE" && uploadId !== null) {
    seen.events.push(`abort ${key}`);
    uploads.delete(uploadId);
    res.writeHead(204).end();
    return;
  }
  s3Error(res, 400, "NotImplemented");
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  store = openStore({ endpoint: `http://127.0.0.1:${port}`, accessKeyId: "AKTEST", secretAccessKey: "secret" }, "b");
});
afterAll(async () => {
  store?.close();
  await new Promise((resolve) => server?.close(resolve));
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "object-multipart-"));
  seen = { events: [], partsInFlight: 0, maxPartsInFlight: 0, maxBuffersHeld: 0 };
  answerPart = () => undefined;
  partDelayMs = () => 0;
  uploads.clear();
  objects.clear();
  attempts.clear();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Parts of 3 MiB (the SDK sends `Expect: 100-continue` from 2 MiB: the body leaves later). */
const tuning: PutTuning = { multipartAbove: 4 * MiB, partBytes: 3 * MiB, partsAtOnce: 4, bufferBelow: MiB };
const headers = { contentType: "application/octet-stream" };

interface LocalFile {
  readonly path: string;
  readonly bytes: Buffer;
}

/** Uploads `file` as `key`; `size` is what the preview saw (the file's, unless said). */
function send(key: string, file: LocalFile, options: { tuning?: PutTuning; size?: number } = {}): Promise<string> {
  const body = { kind: "file", path: file.path, size: options.size ?? file.bytes.length } as const;
  return putObject(store, key, body, sha(file.bytes), headers, options.tuning ?? tuning);
}

function localFile(name: string, size: number): LocalFile {
  const bytes = randomBytes(size);
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return { path, bytes };
}

describe("a multipart upload through the part buffers", () => {
  it("16 uploads at once: at most four buffers lent, every byte stored right, every buffer back and dropped", async () => {
    const files = Array.from({ length: 16 }, (_, i) => ({ key: `f${i}`, ...localFile(`f${i}`, 7 * MiB + 1000 * i) }));
    // Slow answers keep parts in flight, so that 64 workers compete for the four buffers.
    partDelayMs = () => 5;
    const etags = await Promise.all(files.map((file) => send(file.key, file)));
    expect(etags).toEqual(files.map(() => "done"));
    for (const { key, bytes } of files) expect(storedSha(key), key).toBe(sha(bytes));
    expect(seen.maxPartsInFlight).toBe(4);
    expect(seen.maxBuffersHeld).toBeLessThanOrEqual(partBuffers.count);
    expect(partBuffers.held).toBe(0);
  }, 120_000);

  it("uploads waiting for a buffer are served in the order they asked", async () => {
    const a = localFile("a", 30 * MiB);
    const b = localFile("b", 10 * MiB);
    const c = localFile("c", 10 * MiB);
    // A's slow parts hold the four buffers; B's four workers queue, then C's.
    partDelayMs = (key) => (key === "a" ? 200 : 0);
    const until = async (done: () => boolean) => {
      while (!done()) await sleep(2);
    };
    const puts = [send("a", a)];
    await until(() => partBuffers.held === 4);
    puts.push(send("b", b));
    await until(() => partBuffers.waiting >= 4);
    puts.push(send("c", c));
    await until(() => partBuffers.waiting >= 8);
    await Promise.all(puts);
    const firstOf = (key: string) => seen.events.findIndex((e) => e.startsWith(`part ${key} `));
    expect(firstOf("b")).toBeLessThan(firstOf("c"));
    expect(partBuffers.held).toBe(0);
  }, 60_000);

  it("a part the SDK sends again after a 500 is sent from its buffer, whole", async () => {
    const file = localFile("retried", 10 * MiB);
    answerPart = (_key, part, attempt) =>
      part === 2 && attempt === 1 ? { status: 500, code: "InternalError" } : undefined;
    await send("retried", file);
    expect(attempts.get("retried 2")).toBe(2);
    expect(storedSha("retried")).toBe(sha(file.bytes));
    expect(partBuffers.held).toBe(0);
  }, 60_000);

  it("a refused part stops the upload: the parts in flight answer, then the abort, and every buffer is back", async () => {
    const file = localFile("refused", 30 * MiB);
    // Part 2 is refused at once, the others answer late: without waiting for them, the abort
    // would be sent while they are in flight, and the call would fail with buffers still lent.
    answerPart = (_key, part) => (part === 2 ? { status: 403, code: "AccessDenied" } : undefined);
    partDelayMs = (_key, part) => (part === 2 ? 0 : 600);
    const put = send("refused", file);
    await expect(put).rejects.toMatchObject({ code: "CLOUDPLATFORM_S3_FAILED" });
    expect(partBuffers.held).toBe(0);
    const parts = seen.events.filter((e) => e.startsWith("part"));
    expect(seen.events.at(-1)).toBe("abort refused");
    expect(parts.length).toBe(4);
    await sleep(700);
    expect(seen.events.at(-1)).toBe("abort refused");
    expect(seen.events).not.toContain("complete refused");
  }, 60_000);

  it("an upload refused while its other parts wait for a buffer sends none of them; the others go on", async () => {
    const a = localFile("a", 12 * MiB);
    const b = localFile("b", 10 * MiB);
    // A's four parts hold the four buffers and answer 600 ms apart (slack for a busy machine): B's
    // first part gets the first one back and is refused before the next is free.
    partDelayMs = (key, part) => (key === "a" ? 600 * part : 0);
    answerPart = (key) => (key === "b" ? { status: 403, code: "AccessDenied" } : undefined);
    const putA = send("a", a);
    while (partBuffers.held < 4) await sleep(2);
    const putB = send("b", b);
    await expect(putB).rejects.toMatchObject({ code: "CLOUDPLATFORM_S3_FAILED" });
    expect(seen.events.filter((e) => e.startsWith("part b "))).toEqual(["part b 1"]);
    expect(seen.events).toContain("abort b");
    await putA;
    expect(storedSha("a")).toBe(sha(a.bytes));
    expect(partBuffers.held).toBe(0);
  }, 60_000);

  it("a file shorter than at preview fails with CLOUDPLATFORM_SOURCE_MISSING, sends no short part, and aborts", async () => {
    const file = localFile("shrunk", 8 * MiB);
    const put = send("shrunk", file, { size: 10 * MiB });
    await expect(put).rejects.toMatchObject({ code: "CLOUDPLATFORM_SOURCE_MISSING" });
    await expect(put).rejects.toThrow('file "' + file.path + '" got shorter while it was being sent');
    // Parts 1 and 2 are whole (sent, or not once part 3 failed); 3 and 4 are past the end.
    expect(seen.events.filter((e) => e === "part shrunk 3" || e === "part shrunk 4")).toEqual([]);
    expect(seen.events.at(-1)).toBe("abort shrunk");
    expect(partBuffers.held).toBe(0);
  }, 60_000);

  it("a part larger than the buffers is streamed from the file and takes no buffer", async () => {
    const file = localFile("large-parts", 2 * (partBuffers.bytes + 1));
    await send("large-parts", file, { tuning: { ...tuning, partBytes: partBuffers.bytes + 1 } });
    expect(seen.events.filter((e) => e.startsWith("part"))).toHaveLength(2);
    expect(storedSha("large-parts")).toBe(sha(file.bytes));
    expect(seen.maxBuffersHeld).toBe(0);
  }, 60_000);
});
