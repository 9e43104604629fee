import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultPutTuning, openStore, putObject, type ObjectStore, type PutTuning } from "../../provider/s3/objects.js";

/**
 * A BucketObject's file streams to S3: a 128 MiB file in a multipart upload of 128 parts of 1 MiB
 * (as many parts as 1 GiB has in 8 MiB ones), four in flight, must not grow the process by anything
 * near its size — at most 64 MiB, the bound for a 2 GiB file, half the file's size, so that
 * an uploader that buffers the file fails. The 1 GiB figure (and 512 MiB, 2 GiB) is the bench's:
 * bench/README.md, row object-1024, uploads 1 GiB through the emulator and reports the growth; here
 * the unit tier stays a few seconds long. The file is sparse (no disk space). The S3 server runs in
 * a child process, so this process's memory is the uploader's alone; it serves the multipart calls,
 * discards the bytes and reports the bytes it received.
 */
const size = 128 * 1024 * 1024;
/**
 * Parts of 1 MiB (S3 wants 5 MiB at least; this server does not): many parts from a small file;
 * and the warm-up's 32 MiB multipart too (above 16 MiB rather than 64 MiB).
 */
const tuning: PutTuning = { ...defaultPutTuning, multipartAbove: 16 * 1024 * 1024, partBytes: 1024 * 1024 };
const dir = mkdtempSync(join(tmpdir(), "object-memory-"));
const file = join(dir, "large.bin");
const warmUpFile = join(dir, "warm-up.bin");
const warmUpSize = size / 4;
let server: ChildProcess;
let store: ObjectStore;
let lines: AsyncIterator<string>;

const serverScript = `
const http = require("node:http");
let received = 0;
const xml = (res, body) => { res.writeHead(200, { "content-type": "application/xml" }); res.end('<?xml version="1.0" encoding="UTF-8"?>' + body); };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  req.on("data", (chunk) => { received += chunk.length; });
  req.on("end", () => {
    if (req.method === "GET" && url.searchParams.has("uploads")) return xml(res, "<ListMultipartUploadsResult><Bucket>b</Bucket></ListMultipartUploadsResult>");
    if (req.method === "POST" && url.searchParams.has("uploads")) return xml(res, "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>u1</UploadId></InitiateMultipartUploadResult>");
    if (req.method === "PUT" && url.searchParams.has("partNumber")) { res.writeHead(200, { etag: '"p' + url.searchParams.get("partNumber") + '"' }); return res.end(); }
    if (req.method === "POST" && url.searchParams.has("uploadId")) { console.log(JSON.stringify({ received })); received = 0; return xml(res, '<CompleteMultipartUploadResult><ETag>"done-64"</ETag></CompleteMultipartUploadResult>'); }
    res.writeHead(400); res.end();
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

beforeAll(async () => {
  for (const [path, bytes] of [
    [file, size],
    [warmUpFile, warmUpSize],
  ] as const) {
    const fd = openSync(path, "w");
    ftruncateSync(fd, bytes);
    closeSync(fd);
  }
  server = spawn(process.execPath, ["-e", serverScript], { stdio: ["ignore", "pipe", "inherit"] });
  lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
  const port = Number((await lines.next()).value);
  store = openStore({ endpoint: `http://127.0.0.1:${port}`, accessKeyId: "AKTEST", secretAccessKey: "secret" }, "b");
});

afterAll(() => {
  store?.close();
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const headers = { contentType: "application/octet-stream" };
// A sparse file's SHA-256 is not checked by the fake server; the multipart path sends it as metadata only.
const sha256 = "0".repeat(64);

it("streams a 128 MiB file in a multipart upload of 128 parts with flat memory", async () => {
  // Warm up with a smaller file (the SDK's code and first buffers), which must not hide a
  // buffering uploader: its buffers would be four times smaller than the large file's.
  await putObject(store, "warm", { kind: "file", path: warmUpFile, size: warmUpSize }, sha256, headers, tuning);
  await lines.next();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  let etag: string;
  try {
    etag = await putObject(store, "large", { kind: "file", path: file, size }, sha256, headers, tuning);
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  const { received } = JSON.parse((await lines.next()).value as string) as { received: number };
  expect(etag).toBe("done-64");
  expect(received).toBeGreaterThanOrEqual(size);
  expect(peak - before).toBeLessThan(64 * 1024 * 1024);
}, 180_000);
