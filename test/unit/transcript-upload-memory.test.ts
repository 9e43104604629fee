import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, expect, it } from "vitest";
import { uploadFile } from "../../provider/resources/transcript/upload.js";

/**
 * The upload path streams: a 300 MB file sent to a real server on loopback must not grow the
 * process by anything near its size. The file is sparse (no disk space). The server runs in a
 * child process, so this process's memory is the uploader's alone; it discards the bytes and
 * answers with what it counted and the headers it saw.
 */
const size = 300 * 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "transcript-memory-"));
const file = join(dir, "large.wav");
const warmUpFile = join(dir, "warm-up.wav");
let server: ChildProcess;
let port = 0;
let lines: AsyncIterator<string>;

const serverScript = `
const http = require("node:http");
const server = http.createServer((req, res) => {
  let received = 0;
  req.on("data", (chunk) => { received += chunk.length; });
  req.on("end", () => {
    console.log(JSON.stringify({ received, length: req.headers["content-length"] ?? null, authorization: req.headers["authorization"] ?? null }));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ uploadKey: "upl_mem", size: received }));
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

beforeAll(async () => {
  for (const [path, bytes] of [
    [file, size],
    [warmUpFile, 96 * 1024 * 1024],
  ] as const) {
    const fd = openSync(path, "w");
    ftruncateSync(fd, bytes);
    closeSync(fd);
  }
  server = spawn(process.execPath, ["-e", serverScript], { stdio: ["ignore", "pipe", "inherit"] });
  lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
  port = Number((await lines.next()).value);
});

afterAll(() => {
  server.kill();
  rmSync(dir, { recursive: true, force: true });
});

const options = { attempts: 1, backoff: { baseDelayMs: 1, maxDelayMs: 1 } };

it("streams a 300 MB file with flat memory", async () => {
  // Warm up with a smaller file: the first tens of MB of read chunks are garbage that V8 collects
  // lazily (a one-time plateau of ~70 MB whatever the file size), and undici loads its code. What
  // must hold is that memory does not grow with the size of the file. (Warming up with the large
  // file itself would hide a buffering uploader: its freed buffer would be reused.)
  await uploadFile(`http://127.0.0.1:${port}/v1/uploads/upl_warm?token=t0k`, warmUpFile, options);
  await lines.next();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    await uploadFile(`http://127.0.0.1:${port}/v1/uploads/upl_mem?token=t0k`, file, options);
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  const answer: unknown = JSON.parse((await lines.next()).value as string);
  expect(answer).toEqual({ received: size, length: String(size), authorization: null });
  expect(peak - before).toBeLessThan(64 * 1024 * 1024);
}, 60_000);
