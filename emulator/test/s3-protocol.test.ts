/** Hand-built SigV4 requests: presigned URLs, signed aws-chunked bodies, integrity checks, clock skew. */
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { HttpRequest } from "@smithy/protocol-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, signedRequest, signer, startPlane, type RunningPlane } from "./s3-helpers.js";

let p: RunningPlane;
beforeAll(async () => {
  p = await startPlane();
});
afterAll(async () => {
  await p.close();
});

const sha256Hex = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const md5Base64 = (data: Buffer | string) => createHash("md5").update(data).digest("base64");
const crc32Base64 = (data: Buffer) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc32(data));
  return b.toString("base64");
};
const codeOf = (xml: string) => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1];

async function put(key: string, body: string, headers: Record<string, string> = {}) {
  return signedRequest(p.url, p.alpha, {
    method: "PUT",
    path: `/alpha/${key}`,
    headers: { "x-amz-content-sha256": sha256Hex(body), ...headers },
    body,
  });
}

async function get(key: string) {
  return signedRequest(p.url, p.alpha, {
    method: "GET",
    path: `/alpha/${key}`,
    headers: { "x-amz-content-sha256": sha256Hex("") },
  });
}

async function presign(method: string, path: string, options: { expiresIn?: number; signingDate?: Date } = {}) {
  const url = new URL(p.url);
  // As @aws-sdk/s3-request-presigner does: the payload is unsigned, and the header is hoisted into the query.
  const request = new HttpRequest({
    method,
    protocol: "http:",
    hostname: url.hostname,
    port: Number(url.port),
    path,
    headers: { host: url.host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
  });
  const signed = await signer(p.alpha).presign(request, {
    expiresIn: options.expiresIn ?? 300,
    ...(options.signingDate ? { signingDate: options.signingDate } : {}),
  });
  const qs = Object.entries(signed.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join("&");
  return `${p.url}${path}?${qs}`;
}

describe("header-signed requests", () => {
  it("stores a body whose hex x-amz-content-sha256 matches, and refuses one that does not", async () => {
    expect((await put("hex.txt", "exact")).status).toBe(200);
    const bad = await signedRequest(p.url, p.alpha, {
      method: "PUT",
      path: "/alpha/hex-bad.txt",
      headers: { "x-amz-content-sha256": sha256Hex("something else") },
      body: "exact",
    });
    expect(bad.status).toBe(400);
    expect(codeOf(bad.body)).toBe("XAmzContentSHA256Mismatch");
    expect((await get("hex-bad.txt")).status).toBe(404);
  });

  it("checks Content-MD5 and x-amz-checksum-crc32", async () => {
    expect((await put("md5.txt", "abc", { "content-md5": md5Base64("abc") })).status).toBe(200);
    const badMd5 = await put("md5-bad.txt", "abc", { "content-md5": md5Base64("abd") });
    expect([badMd5.status, codeOf(badMd5.body)]).toEqual([400, "BadDigest"]);
    const ok = await put("crc.txt", "abc", { "x-amz-checksum-crc32": crc32Base64(Buffer.from("abc")) });
    expect(ok.status).toBe(200);
    expect(ok.headers["x-amz-checksum-crc32"]).toBe(crc32Base64(Buffer.from("abc")));
    const badCrc = await put("crc-bad.txt", "abc", { "x-amz-checksum-crc32": crc32Base64(Buffer.from("abd")) });
    expect([badCrc.status, codeOf(badCrc.body)]).toEqual([400, "BadDigest"]);
    expect((await get("crc-bad.txt")).status).toBe(404);
  });

  it("answers S3 XML errors with Code, Message and RequestId", async () => {
    const res = await get("does/not/exist");
    expect(res.status).toBe(404);
    expect(codeOf(res.body)).toBe("NoSuchKey");
    expect(res.body).toMatch(/<Message>[^<]+<\/Message>/);
    expect(res.body).toContain(`<RequestId>${String(res.headers["x-amz-request-id"])}</RequestId>`);
  });

  it("refuses requests signed more than 15 minutes away from now", async () => {
    const res = await signedRequest(p.url, p.alpha, {
      method: "GET",
      path: "/alpha/hex.txt",
      headers: { "x-amz-content-sha256": sha256Hex("") },
      signingDate: new Date(Date.now() - 20 * 60 * 1000),
    });
    expect([res.status, codeOf(res.body)]).toEqual([403, "RequestTimeTooSkewed"]);
  });

  it("refuses anonymous requests and a tampered signed header", async () => {
    const anonymous = await rawRequest(`${p.url}/alpha/hex.txt`, { method: "GET" });
    expect([anonymous.status, codeOf(anonymous.body)]).toEqual([403, "AccessDenied"]);
    const url = new URL(p.url);
    const request = new HttpRequest({
      method: "GET",
      protocol: "http:",
      hostname: url.hostname,
      path: "/alpha/hex.txt",
      headers: { host: url.host, "x-amz-content-sha256": sha256Hex(""), "x-amz-meta-x": "a" },
    });
    const signed = await signer(p.alpha).sign(request);
    const tampered = await rawRequest(`${p.url}/alpha/hex.txt`, {
      method: "GET",
      headers: { ...signed.headers, "x-amz-meta-x": "b" },
    });
    expect([tampered.status, codeOf(tampered.body)]).toEqual([403, "SignatureDoesNotMatch"]);
  });

  it.each([
    ["the project API key", "cp-AbCdEf0123456789"],
    ["a Bearer JWT", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl"],
  ])("refuses %s with 403 AccessDenied naming what the S3 plane takes", async (_label, authorization) => {
    const res = await rawRequest(`${p.url}/alpha/hex.txt`, { method: "GET", headers: { authorization } });
    expect([res.status, codeOf(res.body)]).toEqual([403, "AccessDenied"]);
    expect(res.body).toContain("takes only the access key pair of a bucket");
    expect(res.body).not.toContain(authorization);
  });

  it("still answers an unsupported signature scheme with 400 InvalidRequest", async () => {
    const res = await rawRequest(`${p.url}/alpha/hex.txt`, {
      method: "GET",
      headers: { authorization: "AWS CPAKEXAMPLE:c2lnbmF0dXJl" },
    });
    expect([res.status, codeOf(res.body)]).toEqual([400, "InvalidRequest"]);
  });

  it("lists with ListObjects v1 markers", async () => {
    for (const k of ["v1/a", "v1/b", "v1/c"]) expect((await put(k, k)).status).toBe(200);
    const res = await signedRequest(p.url, p.alpha, {
      method: "GET",
      path: "/alpha",
      query: { prefix: "v1/", "max-keys": "2" },
      headers: { "x-amz-content-sha256": sha256Hex("") },
    });
    expect(res.body).toContain("<IsTruncated>true</IsTruncated>");
    expect(res.body).toContain("<NextMarker>v1/b</NextMarker>");
    const next = await signedRequest(p.url, p.alpha, {
      method: "GET",
      path: "/alpha",
      query: { prefix: "v1/", marker: "v1/b" },
      headers: { "x-amz-content-sha256": sha256Hex("") },
    });
    expect([...next.body.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1])).toEqual(["v1/c"]);
  });
});

describe("presigned URLs", () => {
  it("serves a presigned GET and PUT, and refuses a tampered or expired one", async () => {
    const putUrl = await presign("PUT", "/alpha/presigned.txt");
    const putRes = await fetch(putUrl, { method: "PUT", body: "via presigned" });
    expect(putRes.status).toBe(200);
    const getRes = await fetch(await presign("GET", "/alpha/presigned.txt"));
    expect(await getRes.text()).toBe("via presigned");

    const tampered = (await presign("GET", "/alpha/presigned.txt")).replace(
      /X-Amz-Signature=([0-9a-f])/,
      (_m, c: string) => `X-Amz-Signature=${c === "0" ? "1" : "0"}`,
    );
    const t = await fetch(tampered);
    expect([t.status, codeOf(await t.text())]).toEqual([403, "SignatureDoesNotMatch"]);

    const expired = await fetch(
      await presign("GET", "/alpha/presigned.txt", { expiresIn: 60, signingDate: new Date(Date.now() - 120_000) }),
    );
    const body = await expired.text();
    expect([expired.status, codeOf(body)]).toEqual([403, "AccessDenied"]);
    expect(body).toContain("expired");

    const otherBucket = await fetch(await presign("GET", "/beta/anything"));
    expect(otherBucket.status).toBe(403);
  });
});

describe("signed aws-chunked bodies (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER)", () => {
  async function chunkedPut(key: string, chunks: Buffer[], corrupt: "none" | "chunk" | "trailer") {
    const payload = Buffer.concat(chunks);
    const url = new URL(p.url);
    const signingDate = new Date();
    const sig = signer(p.alpha);
    const request = new HttpRequest({
      method: "PUT",
      protocol: "http:",
      hostname: url.hostname,
      path: `/alpha/${key}`,
      headers: {
        host: url.host,
        "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
        "content-encoding": "aws-chunked",
        "x-amz-decoded-content-length": String(payload.length),
        "x-amz-trailer": "x-amz-checksum-crc32",
      },
    });
    const signed = await sig.sign(request, { signingDate });
    const authorization = String(signed.headers["authorization"]);
    let previous = authorization.slice(authorization.indexOf("Signature=") + 10);
    const longDate = String(signed.headers["x-amz-date"]);
    const scope = `${longDate.slice(0, 8)}/us-east-1/s3/aws4_request`;
    const parts: Buffer[] = [];
    for (const [i, chunk] of [...chunks, Buffer.alloc(0)].entries()) {
      const toSign = ["AWS4-HMAC-SHA256-PAYLOAD", longDate, scope, previous, sha256Hex(""), sha256Hex(chunk)].join(
        "\n",
      );
      let signature = await sig.sign(toSign, { signingDate });
      previous = signature;
      if (corrupt === "chunk" && i === 1) signature = signature.replace(/^./, (c) => (c === "a" ? "b" : "a"));
      parts.push(Buffer.from(`${chunk.length.toString(16)};chunk-signature=${signature}\r\n`), chunk);
      if (chunk.length > 0) parts.push(Buffer.from("\r\n"));
    }
    const trailer = `x-amz-checksum-crc32:${crc32Base64(payload)}`;
    const trailerToSign = ["AWS4-HMAC-SHA256-TRAILER", longDate, scope, previous, sha256Hex(`${trailer}\n`)].join("\n");
    let trailerSignature = await sig.sign(trailerToSign, { signingDate });
    if (corrupt === "trailer") trailerSignature = trailerSignature.replace(/^./, (c) => (c === "a" ? "b" : "a"));
    parts.push(Buffer.from(`${trailer}\r\nx-amz-trailer-signature:${trailerSignature}\r\n\r\n`));
    const body = Buffer.concat(parts);
    return rawRequest(`${p.url}/alpha/${key}`, {
      method: "PUT",
      headers: { ...signed.headers, "content-length": String(body.length) },
      body,
    });
  }

  it("verifies every chunk and the trailer, storing only the payload", async () => {
    const chunks = [Buffer.alloc(65_536, 7), Buffer.from("tail bytes")];
    const ok = await chunkedPut("signed-chunks.bin", chunks, "none");
    expect(ok.status).toBe(200);
    const got = await get("signed-chunks.bin");
    expect(got.body).toBe(Buffer.concat(chunks).toString("utf8"));

    for (const corrupt of ["chunk", "trailer"] as const) {
      const bad = await chunkedPut(`signed-bad-${corrupt}.bin`, chunks, corrupt);
      expect([bad.status, codeOf(bad.body)]).toEqual([403, "SignatureDoesNotMatch"]);
      expect((await get(`signed-bad-${corrupt}.bin`)).status).toBe(404);
    }
  });
});
