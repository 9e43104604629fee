/**
 * Conditional writes, as S3 answers them and as state backends lock with them (OpenTofu's and
 * Terraform's S3 backends write their lock file with `If-None-Match: *`): PutObject and
 * CompleteMultipartUpload with If-None-Match / If-Match, DeleteObject with If-Match, and many
 * writers racing for one key, of which exactly one wins.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3ServiceException,
  UploadPartCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { createHash } from "node:crypto";
import { request } from "node:http";
import { HttpRequest } from "@smithy/protocol-http";
import { describe, expect, it } from "vitest";
import { s3Client, signer, usePlane, type RunningPlane } from "./s3-helpers.js";

let p: RunningPlane;
let alpha: S3Client;

usePlane((plane, client) => {
  p = plane;
  alpha = client;
});

/** The S3 error a request ends with, or "ok". */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (err) {
    if (err instanceof S3ServiceException) return `${err.$metadata.httpStatusCode} ${err.name}`;
    throw err;
  }
}

const read = async (key: string) =>
  (await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: key }))).Body!.transformToString();

const putIfAbsent = (key: string, body: string | Buffer) =>
  alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: key, Body: body, IfNoneMatch: "*" }));

describe("PutObject with If-None-Match: *", () => {
  it("writes a key that holds nothing, and refuses one that holds an object with 412 PreconditionFailed", async () => {
    expect(await outcome(putIfAbsent("lock/a.tflock", "first"))).toBe("ok");
    expect(await outcome(putIfAbsent("lock/a.tflock", "second"))).toBe("412 PreconditionFailed");
    expect(await read("lock/a.tflock")).toBe("first");
    // Once the object is deleted, the key may be taken again.
    await alpha.send(new DeleteObjectCommand({ Bucket: "alpha", Key: "lock/a.tflock" }));
    expect(await outcome(putIfAbsent("lock/a.tflock", "third"))).toBe("ok");
    expect(await read("lock/a.tflock")).toBe("third");
  });

  it("names the condition that failed in the error", async () => {
    await putIfAbsent("lock/b.tflock", "x");
    try {
      await putIfAbsent("lock/b.tflock", "y");
      expect.unreachable();
    } catch (err) {
      expect((err as S3ServiceException & { Condition?: string }).Condition).toBe("If-None-Match");
    }
  });

  it("refuses an If-None-Match other than '*' on a write with 501 NotImplemented", async () => {
    const result = await outcome(
      alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "lock/c", Body: "x", IfNoneMatch: '"abc"' })),
    );
    expect(result).toBe("501 NotImplemented");
  });

  it("lets exactly one of 40 simultaneous writers take a key, round after round", async () => {
    const clients = Array.from({ length: 8 }, () => s3Client(p.url, p.alpha));
    try {
      for (let round = 0; round < 6; round++) {
        const key = `race/round-${round}.lock`;
        // Small bodies (kept in the sidecar) and large ones (a data file) race alike.
        const bodies = Array.from({ length: 40 }, (_, i) =>
          i % 2 === 0 ? `writer ${i}` : Buffer.alloc(20_000 + i, i),
        );
        const results = await Promise.all(
          bodies.map((body, i) =>
            clients[i % clients.length]!.send(
              new PutObjectCommand({ Bucket: "alpha", Key: key, Body: body, IfNoneMatch: "*" }),
            ).then(
              (put) => ({ i, etag: put.ETag }),
              (err: unknown) => ({ i, error: err instanceof S3ServiceException ? err.name : String(err) }),
            ),
          ),
        );
        const winners = results.filter((r) => "etag" in r);
        expect(winners).toHaveLength(1);
        expect(results.filter((r) => "error" in r).map((r) => ("error" in r ? r.error : ""))).toEqual(
          Array(39).fill("PreconditionFailed"),
        );
        // The object is the winner's, whole.
        const stored = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: key }));
        const bytes = Buffer.from(await stored.Body!.transformToByteArray());
        const winner = bodies[winners[0]!.i]!;
        expect(bytes.equals(Buffer.from(winner))).toBe(true);
        expect(stored.ETag).toBe(winners[0] && "etag" in winners[0] ? winners[0].etag : undefined);
      }
    } finally {
      for (const client of clients) client.destroy();
    }
  });

  it("refuses before the body is sent when the client waits on Expect: 100-continue", async () => {
    await putIfAbsent("lock/expect", "held");
    const url = new URL(p.url);
    const body = Buffer.alloc(1024 * 1024, 7);
    const signed = await signer(p.alpha).sign(
      new HttpRequest({
        method: "PUT",
        protocol: "http:",
        hostname: url.hostname,
        port: Number(url.port),
        path: "/alpha/lock/expect",
        headers: {
          host: url.host,
          "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
          "if-none-match": "*",
          expect: "100-continue",
          "content-length": String(body.length),
        },
      }),
    );
    const answer = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const req = request(`${p.url}/alpha/lock/expect`, { method: "PUT", headers: signed.headers }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, continued }));
      });
      req.on("continue", () => {
        continued = true;
        req.end(body);
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(answer).toEqual({ status: 412, continued: false });
    expect(await read("lock/expect")).toBe("held");
  });
});

describe("PutObject with If-Match", () => {
  it("replaces only the object whose ETag it names; a key holding nothing is 404 NoSuchKey", async () => {
    const first = await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "cas/state", Body: "v1" }));
    const ifMatch = (body: string, etag: string) =>
      alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "cas/state", Body: body, IfMatch: etag }));
    expect(await outcome(ifMatch("v2", '"0123456789abcdef0123456789abcdef"'))).toBe("412 PreconditionFailed");
    expect(await read("cas/state")).toBe("v1");
    const second = await ifMatch("v2", first.ETag!);
    expect(await read("cas/state")).toBe("v2");
    // The first ETag no longer names the object.
    expect(await outcome(ifMatch("v3", first.ETag!))).toBe("412 PreconditionFailed");
    expect(second.ETag).not.toBe(first.ETag);
    expect(
      await outcome(alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "cas/none", Body: "x", IfMatch: '"a"' }))),
    ).toBe("404 NoSuchKey");
  });

  it("lets exactly one of 20 writers that read the same version replace it", async () => {
    const base = await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "cas/counter", Body: "0" }));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        outcome(
          alpha.send(
            new PutObjectCommand({ Bucket: "alpha", Key: "cas/counter", Body: `1 by ${i}`, IfMatch: base.ETag }),
          ),
        ),
      ),
    );
    expect(results.filter((r) => r === "ok")).toHaveLength(1);
    expect(results.filter((r) => r === "412 PreconditionFailed")).toHaveLength(19);
    expect(await read("cas/counter")).toBe(`1 by ${results.indexOf("ok")}`);
  });
});

describe("CompleteMultipartUpload with If-None-Match: *", () => {
  const part = Buffer.alloc(5 * 1024 * 1024, 3);

  async function uploadOnePart(key: string, last: string) {
    const { UploadId } = await alpha.send(new CreateMultipartUploadCommand({ Bucket: "alpha", Key: key }));
    const one = await alpha.send(
      new UploadPartCommand({ Bucket: "alpha", Key: key, UploadId, PartNumber: 1, Body: part }),
    );
    const two = await alpha.send(
      new UploadPartCommand({ Bucket: "alpha", Key: key, UploadId, PartNumber: 2, Body: last }),
    );
    return {
      uploadId: UploadId!,
      complete: () =>
        alpha.send(
          new CompleteMultipartUploadCommand({
            Bucket: "alpha",
            Key: key,
            UploadId,
            IfNoneMatch: "*",
            MultipartUpload: {
              Parts: [
                { PartNumber: 1, ETag: one.ETag },
                { PartNumber: 2, ETag: two.ETag },
              ],
            },
          }),
        ),
    };
  }

  it("completes onto a free key, refuses an occupied one with 412 and keeps the upload for a retry or an abort", async () => {
    const first = await uploadOnePart("mp/state.json", "first");
    expect(await outcome(first.complete())).toBe("ok");
    const second = await uploadOnePart("mp/state.json", "second");
    expect(await outcome(second.complete())).toBe("412 PreconditionFailed");
    const head = await alpha.send(new HeadObjectCommand({ Bucket: "alpha", Key: "mp/state.json" }));
    expect(head.ContentLength).toBe(part.length + "first".length);
    const parts = await alpha.send(
      new ListPartsCommand({ Bucket: "alpha", Key: "mp/state.json", UploadId: second.uploadId }),
    );
    expect(parts.Parts).toHaveLength(2);
    await alpha.send(
      new AbortMultipartUploadCommand({ Bucket: "alpha", Key: "mp/state.json", UploadId: second.uploadId }),
    );
  });

  it("lets exactly one of three uploads completing at once take the key", async () => {
    const uploads = await Promise.all(["a", "b", "c"].map((tail) => uploadOnePart("mp/race.json", tail)));
    const results = await Promise.all(uploads.map((u) => outcome(u.complete())));
    expect(results.filter((r) => r === "ok")).toHaveLength(1);
    expect(results.filter((r) => r === "412 PreconditionFailed")).toHaveLength(2);
    const winner = ["a", "b", "c"][results.indexOf("ok")]!;
    const got = Buffer.from(
      await (
        await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "mp/race.json" }))
      ).Body!.transformToByteArray(),
    );
    expect(got.subarray(part.length).toString()).toBe(winner);
    expect(createHash("md5").update(got.subarray(0, part.length)).digest("hex")).toBe(
      createHash("md5").update(part).digest("hex"),
    );
  });
});

describe("DeleteObject with If-Match", () => {
  it("deletes only the object whose ETag it names; a key already gone is a success", async () => {
    const put = await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "lock/owned", Body: "mine" }));
    const del = (etag: string) =>
      alpha.send(new DeleteObjectCommand({ Bucket: "alpha", Key: "lock/owned", IfMatch: etag }));
    expect(await outcome(del('"ffffffffffffffffffffffffffffffff"'))).toBe("412 PreconditionFailed");
    expect(await read("lock/owned")).toBe("mine");
    expect(await outcome(del(put.ETag!))).toBe("ok");
    expect(await outcome(read("lock/owned"))).toBe("404 NoSuchKey");
    expect(await outcome(del(put.ETag!))).toBe("ok");
  });
});
