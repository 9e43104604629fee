/**
 * Objects up to INLINE_MAX_BYTES live in their sidecar (one file written, one rename), larger ones
 * in a data file: either kind replaces the other, survives a restart and a kill -9 once
 * acknowledged, and a small body is held in memory only up to the length it declared.
 */
import { CopyObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { HttpRequest } from "@smithy/protocol-http";
import { afterEach, describe, expect, it } from "vitest";
import { INLINE_MAX_BYTES } from "../src/s3/object-store.js";
import { s3Client, signer, startPlane, type RunningPlane } from "./s3-helpers.js";

const dirs: string[] = [];
const planes: RunningPlane[] = [];
afterEach(async () => {
  for (const p of planes.splice(0)) await p.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "s3-small-"));
  dirs.push(dir);
  return dir;
}

async function plane(dataDir: string): Promise<RunningPlane> {
  const p = await startPlane(dataDir);
  planes.push(p);
  return p;
}

const dataFiles = async (dataDir: string) => (await readdir(join(dataDir, "s3/objects/alpha/data"))).length;
const md5 = (bytes: Buffer) => `"${createHash("md5").update(bytes).digest("hex")}"`;

async function getBytes(p: RunningPlane, key: string, range?: string): Promise<Buffer> {
  const client = s3Client(p.url, p.alpha);
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: "alpha", Key: key, Range: range }));
    return Buffer.from(await got.Body!.transformToByteArray());
  } finally {
    client.destroy();
  }
}

describe("small objects", () => {
  it("keep small objects in the sidecar and large ones in a data file, across overwrites and a restart", async () => {
    const dataDir = await freshDir();
    const first = await plane(dataDir);
    const client = s3Client(first.url, first.alpha);
    const small = randomBytes(INLINE_MAX_BYTES);
    const large = randomBytes(INLINE_MAX_BYTES + 1);
    const put = (key: string, body: Buffer) =>
      client.send(
        new PutObjectCommand({ Bucket: "alpha", Key: key, Body: body, Metadata: { size: String(body.length) } }),
      );
    try {
      expect((await put("a", small)).ETag).toBe(md5(small));
      expect(await dataFiles(dataDir)).toBe(0);
      await put("b", large);
      expect(await dataFiles(dataDir)).toBe(1);
      await put("a", large);
      await put("b", small);
      expect(await dataFiles(dataDir)).toBe(1);
      await client.send(new CopyObjectCommand({ Bucket: "alpha", Key: "c", CopySource: "alpha/b" }));
      expect(await dataFiles(dataDir)).toBe(1);
      expect((await getBytes(first, "b", "bytes=100-199")).equals(small.subarray(100, 200))).toBe(true);
    } finally {
      client.destroy();
    }
    await first.close();
    planes.splice(planes.indexOf(first), 1);

    const second = await plane(dataDir);
    expect((await getBytes(second, "a")).equals(large)).toBe(true);
    expect((await getBytes(second, "b")).equals(small)).toBe(true);
    expect((await getBytes(second, "c")).equals(small)).toBe(true);
    const reader = s3Client(second.url, second.alpha);
    try {
      const head = await reader.send(new HeadObjectCommand({ Bucket: "alpha", Key: "c" }));
      expect([head.ContentLength, head.ETag, head.Metadata]).toEqual([small.length, md5(small), { size: "16384" }]);
    } finally {
      reader.destroy();
    }
    expect(await dataFiles(dataDir)).toBe(1);
  });

  it("refuses an aws-chunked body longer than its declared length as soon as it is, without waiting for the rest", async () => {
    const p = await plane(await freshDir());
    const url = new URL(p.url);
    const signed = await signer(p.alpha).sign(
      new HttpRequest({
        method: "PUT",
        protocol: "http:",
        hostname: url.hostname,
        path: "/alpha/liar.bin",
        headers: {
          host: url.host,
          "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
          "content-encoding": "aws-chunked",
          "x-amz-decoded-content-length": "10",
        },
      }),
    );
    const req = request(`${p.url}/alpha/liar.bin`, { method: "PUT", headers: signed.headers });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on("response", (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
    });
    // One 4 KiB chunk of a body that said 10 bytes, and the request left open.
    req.write(Buffer.concat([Buffer.from("1000\r\n"), Buffer.alloc(4096, 1), Buffer.from("\r\n")]));
    try {
      const res = await answered;
      expect([res.status, /<Code>([^<]+)<\/Code>/.exec(res.body)?.[1]]).toEqual([400, "IncompleteBody"]);
    } finally {
      req.destroy();
    }
  });

  it("keeps every acknowledged put, small or large, when the process is killed with SIGKILL", async () => {
    const dataDir = await freshDir();
    // The plane runs in a child (importing the TypeScript sources) so that it can be killed.
    const child = spawn(
      process.execPath,
      [
        "--experimental-transform-types",
        "--no-warnings",
        "--input-type=module",
        "-e",
        `import { registerHooks } from "node:module";
registerHooks({ resolve(specifier, context, next) {
  try { return next(specifier, context); }
  catch (err) { if (specifier.startsWith(".") && specifier.endsWith(".js")) return next(specifier.slice(0, -3) + ".ts", context); throw err; }
} });
const { startPlane } = await import(process.env.S3_HELPERS);
const p = await startPlane(process.env.DATA_DIR);
console.log(JSON.stringify({ url: p.url }));`,
      ],
      {
        env: { ...process.env, S3_HELPERS: join(__dirname, "s3-helpers.ts"), DATA_DIR: dataDir },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const ready = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout! }).once("line", resolve),
    );
    const { url } = JSON.parse(ready) as { url: string };
    const template = await startPlane(await freshDir());
    const client = s3Client(url, template.alpha);
    await template.close();
    const acknowledged = new Map<string, Buffer>();
    let killed = false;
    const stream = async (n: number) => {
      for (let i = 0; !killed; i++) {
        const body = randomBytes(i % 3 === 0 ? 100_000 : 2_000);
        try {
          await client.send(new PutObjectCommand({ Bucket: "alpha", Key: `k-${n}-${i}`, Body: body }));
          acknowledged.set(`k-${n}-${i}`, body);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const streams = Promise.all([0, 1, 2, 3].map(stream));
    while (acknowledged.size < 120) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill("SIGKILL");
    killed = true;
    await streams;
    await exited;
    client.destroy();

    const after = await plane(dataDir);
    for (const [key, body] of acknowledged) {
      expect((await getBytes(after, key)).equals(body), key).toBe(true);
    }
  }, 60_000);
});
