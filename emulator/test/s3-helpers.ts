/**
 * Runs the S3 plane alone on a loopback http server, with an in-memory credential directory of two
 * buckets (alpha, beta) and three keys (alpha's, beta's, and a deactivated one of alpha).
 */
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import { Hash } from "@smithy/hash-node";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createS3Plane } from "../src/s3/index.js";
import type { CredentialDirectory, Logger, S3Plane } from "../src/interfaces.js";
import { closeServer, listenOnLoopback } from "./fixtures/loopback-server.js";

export interface TestCredential {
  accessKeyId: string;
  secretAccessKey: string;
  bucketName: string;
  active: boolean;
}

export class FakeDirectory implements CredentialDirectory {
  readonly credentials = new Map<string, TestCredential>();
  readonly buckets = new Set<string>();

  lookup(accessKeyId: string) {
    const c = this.credentials.get(accessKeyId);
    return c && this.buckets.has(c.bucketName) ? { ...c } : undefined;
  }

  bucketExists(bucketName: string): boolean {
    return this.buckets.has(bucketName);
  }
}

export interface RunningPlane {
  readonly url: string;
  readonly plane: S3Plane;
  readonly directory: FakeDirectory;
  readonly dataDir: string;
  readonly alpha: TestCredential;
  readonly beta: TestCredential;
  readonly deactivated: TestCredential;
  /** Route counts as the plane reported them. */
  readonly counts: Map<string, number>;
  /** The payload mode (x-amz-content-sha256) of every request received, to check what clients sent. */
  readonly payloadModes: Array<{ method: string; url: string; mode: string | undefined }>;
  close(): Promise<void>;
}

const quietLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (message, fields) => {
    if (process.env["EMULATOR_LOG"] === "1") console.error(message, fields);
  },
};

export async function startPlane(dataDir?: string): Promise<RunningPlane> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), "s3-plane-")));
  const directory = new FakeDirectory();
  const alpha = {
    accessKeyId: "CPAKALPHA0000000001",
    secretAccessKey: "alpha-secret-0123456789abcdefghijklmnopqr",
    bucketName: "alpha",
    active: true,
  };
  const beta = {
    accessKeyId: "CPAKBETA00000000001",
    secretAccessKey: "beta-secret-0123456789abcdefghijklmnopqrs",
    bucketName: "beta",
    active: true,
  };
  const deactivated = {
    accessKeyId: "CPAKALPHAOFF000001",
    secretAccessKey: "off-secret-0123456789abcdefghijklmnopqrst",
    bucketName: "alpha",
    active: false,
  };
  for (const c of [alpha, beta, deactivated]) directory.credentials.set(c.accessKeyId, c);
  directory.buckets.add("alpha");
  directory.buckets.add("beta");
  const counts = new Map<string, number>();
  const plane = createS3Plane({
    dataDir: dir,
    credentials: directory,
    logger: quietLogger,
    counter: { count: (_area, route) => void counts.set(route, (counts.get(route) ?? 0) + 1) },
  });
  const payloadModes: RunningPlane["payloadModes"] = [];
  const server: Server = createServer((req, res) => {
    payloadModes.push({
      method: req.method ?? "",
      url: req.url ?? "",
      mode: req.headers["x-amz-content-sha256"] as string | undefined,
    });
    plane.handle(req, res);
  });
  // As the emulator mounts it: the plane answers "Expect: 100-continue" itself (src/index.ts).
  server.on("checkContinue", (req, res) => server.emit("request", req, res));
  const url = await listenOnLoopback(server);
  return {
    url,
    plane,
    directory,
    dataDir: dir,
    alpha,
    beta,
    deactivated,
    counts,
    payloadModes,
    async close() {
      await closeServer(server);
      await plane.close();
      if (!dataDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

export function s3Client(url: string, credential: { accessKeyId: string; secretAccessKey: string }): S3Client {
  return new S3Client({
    endpoint: url,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secretAccessKey },
    maxAttempts: 1,
  });
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One plain http request (no signing), for hand-built S3 requests. */
export function rawRequest(
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

export function signer(credential: { accessKeyId: string; secretAccessKey: string }): SignatureV4 {
  return new SignatureV4({
    credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secretAccessKey },
    region: "us-east-1",
    service: "s3",
    sha256: Hash.bind(null, "sha256"),
  });
}

/** Signs a request with header auth as a SigV4 client would, and sends it. */
export async function signedRequest(
  base: string,
  credential: { accessKeyId: string; secretAccessKey: string },
  options: {
    method: string;
    path: string;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    body?: Buffer | string;
    signingDate?: Date;
  },
): Promise<RawResponse> {
  const url = new URL(base);
  const request = new HttpRequest({
    method: options.method,
    protocol: "http:",
    hostname: url.hostname,
    port: Number(url.port),
    path: options.path,
    query: options.query ?? {},
    headers: { host: url.host, ...options.headers },
  });
  const signed = await signer(credential).sign(
    request,
    options.signingDate ? { signingDate: options.signingDate } : {},
  );
  const qs = new URLSearchParams(options.query ?? {}).toString().replace(/\+/g, "%20");
  return rawRequest(`${base}${options.path}${qs ? `?${qs}` : ""}`, {
    method: options.method,
    headers: signed.headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

/**
 * The data plane of a test file, started before its tests with an S3 client of the plane's first
 * credential, both closed after them; `use` receives them once started.
 */
export function usePlane(use: (plane: RunningPlane, alpha: S3Client) => void): void {
  let plane: RunningPlane | undefined;
  let alpha: S3Client | undefined;
  beforeAll(async () => {
    plane = await startPlane();
    alpha = s3Client(plane.url, plane.alpha);
    use(plane, alpha);
  });
  afterAll(async () => {
    alpha?.destroy();
    await plane?.close();
  });
}
