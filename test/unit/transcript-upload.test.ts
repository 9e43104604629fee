import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent as HttpsAgent, createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UploadFailure, uploadFile, type UploadOptions } from "../../provider/resources/transcript/upload.js";

/**
 * The upload PUT against real servers on loopback: what arrives is the file byte for byte, and each
 * way an attempt can go wrong (no answer, an early answer, a file changing under it, a URL that is
 * not http) ends in a failure that says which, without the URL or its token.
 */
const dir = mkdtempSync(join(tmpdir(), "transcript-upload-"));
const token = "tok_SECRET_put_91ab";
const options: UploadOptions = { attempts: 1, backoff: { baseDelayMs: 1, maxDelayMs: 1 } };
const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

interface Received {
  readonly length: string | undefined;
  readonly bytes: number;
  readonly sha256: string;
}

type Behaviour = (req: IncomingMessage, res: ServerResponse, received: Received[]) => void;

/** Reads the whole body, records it, answers 200. */
const receiveAll: Behaviour = (req, res, received) => {
  const hash = createHash("sha256");
  let bytes = 0;
  req.on("data", (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
  });
  req.on("end", () => {
    received.push({ length: req.headers["content-length"], bytes, sha256: hash.digest("hex") });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ uploadKey: "upl_t", size: bytes }));
  });
};

let behaviour: Behaviour = receiveAll;
let received: Received[] = [];
let server: Server;
let origin = "";

beforeAll(async () => {
  server = createServer((req, res) => behaviour(req, res, received));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  behaviour = receiveAll;
  received = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const uploadUrl = (): string => `${origin}/v1/uploads/upl_t?token=${token}`;

function writeRandomFile(name: string, bytes: number): { path: string; sha256: string } {
  const content = randomBytes(bytes);
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, sha256: sha256(content) };
}

/** The failure of an upload expected to fail, checked to name neither the URL nor its token. */
async function failureOf(upload: Promise<void>): Promise<UploadFailure> {
  const error = await upload.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UploadFailure);
  const everything = `${String(error)} ${(error as Error).stack ?? ""} ${JSON.stringify(error)}`;
  expect(everything).not.toContain(token);
  expect(everything).not.toContain(origin);
  return error as UploadFailure;
}

it("delivers a file of many chunks byte for byte to a server that reads slowly at first", async () => {
  // The pause fills the socket's buffers, so writes queue up unsent: a read buffer reused before
  // its bytes left would change what arrives.
  const file = writeRandomFile("slow.bin", 24 * 1024 * 1024 + 12_345);
  behaviour = (req, res, all) => {
    req.pause();
    setTimeout(() => {
      req.resume();
      receiveAll(req, res, all);
    }, 300);
  };
  await uploadFile(uploadUrl(), file.path, options);
  expect(received).toEqual([
    { length: String(24 * 1024 * 1024 + 12_345), bytes: 24 * 1024 * 1024 + 12_345, sha256: file.sha256 },
  ]);
});

it("sends an empty file", async () => {
  const file = writeRandomFile("empty.bin", 0);
  await uploadFile(uploadUrl(), file.path, options);
  expect(received).toEqual([{ length: "0", bytes: 0, sha256: file.sha256 }]);
});

it("stops sending when the server answers before reading the body, and reports its answer", async () => {
  // Sparse: 256 MiB that take no disk. The server answers at once and then, as Node's server and
  // the emulator do, reads and discards what still comes, so the client can read the answer.
  const path = join(dir, "early.bin");
  writeFileSync(path, "");
  truncateSync(path, 256 * 1024 * 1024);
  let discarded = 0;
  const drained = new Promise<void>((resolve) => {
    behaviour = (req, res) => {
      res
        .writeHead(413, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "too_large", message: `no room at ${uploadUrl()}` } }));
      req.on("data", (chunk: Buffer) => void (discarded += chunk.length));
      req.socket.on("close", () => resolve());
    };
  });
  const failure = await failureOf(uploadFile(uploadUrl(), path, { ...options, attempts: 3 }));
  expect(failure.message).toBe("the upload endpoint answered 413 too_large");
  expect(failure.status).toBe(413);
  expect(failure.retryable).toBe(false);
  await drained;
  expect(discarded).toBeLessThan(128 * 1024 * 1024);
});

it("fails an attempt whose connection goes idle (no answer), and retries it", async () => {
  const file = writeRandomFile("idle.bin", 4096);
  let requests = 0;
  behaviour = (req) => {
    requests++;
    req.resume();
  };
  const retries: string[] = [];
  const failure = await failureOf(
    uploadFile(uploadUrl(), file.path, {
      ...options,
      attempts: 2,
      idleTimeoutMs: 200,
      onRetry: (message) => retries.push(message),
    }),
  );
  expect(failure.message).toBe("connection failed (ETIMEDOUT)");
  expect(failure.retryable).toBe(true);
  expect(requests).toBe(2);
  expect(retries).toHaveLength(1);
});

describe("a file that changes while it is sent", () => {
  it.each([
    ["shrinks", (path: string) => truncateSync(path, 1024 * 1024)],
    ["grows", (path: string) => appendFileSync(path, "more")],
  ])("fails the attempt when it %s, and the next attempt sends it as it now is", async (_how, change) => {
    const file = writeRandomFile(`changing-${_how}.bin`, 32 * 1024 * 1024);
    let changed = false;
    behaviour = (req, res, all) => {
      if (!changed) {
        changed = true;
        change(file.path);
      }
      receiveAll(req, res, all);
    };
    const retries: string[] = [];
    await uploadFile(uploadUrl(), file.path, { ...options, attempts: 2, onRetry: (m) => retries.push(m) });
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatch(/^upload attempt 1 failed \(the source file changed while it was being sent\);/);
    const now = readFileSync(file.path);
    expect(received).toEqual([{ length: String(now.length), bytes: now.length, sha256: sha256(now) }]);
  });
});

it.each([
  ["not a URL", `upl_t?token=${token}`],
  ["not http(s)", `ftp://127.0.0.1/v1/uploads/upl_t?token=${token}`],
])("refuses an upload URL that is %s, without retrying or quoting it", async (_what, url) => {
  const file = writeRandomFile("unsent.bin", 16);
  const failure = await failureOf(uploadFile(url, file.path, { ...options, attempts: 3 }));
  expect(failure.message).toBe("the platform gave an upload URL that is not an http(s) URL");
  expect(failure.retryable).toBe(false);
  expect(received).toEqual([]);
});

it("sends to an https upload URL over TLS, verifying the certificate, through the given agent", async () => {
  const fixtures = join(__dirname, "fixtures", "upload-tls");
  const cert = readFileSync(join(fixtures, "cert.pem"));
  const tls = createHttpsServer({ cert, key: readFileSync(join(fixtures, "key.pem")) }, (req, res) =>
    receiveAll(req, res, received),
  );
  await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
  const agent = new HttpsAgent({ ca: cert, keepAlive: false });
  try {
    const file = writeRandomFile("tls.bin", 3 * 1024 * 1024 + 7);
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/v1/uploads/upl_t?token=${token}`;
    const untrusted = await failureOf(uploadFile(url, file.path, options));
    expect(untrusted.message).toBe("connection failed (DEPTH_ZERO_SELF_SIGNED_CERT)");
    expect(received).toEqual([]);
    await uploadFile(url, file.path, { ...options, agent });
    expect(received).toEqual([
      { length: String(3 * 1024 * 1024 + 7), bytes: 3 * 1024 * 1024 + 7, sha256: file.sha256 },
    ]);
  } finally {
    agent.destroy();
    tls.closeAllConnections();
    await new Promise<void>((resolve) => tls.close(() => resolve()));
  }
});
