import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketLocationCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { s3Client, usePlane, type RunningPlane } from "./s3-helpers.js";

let p: RunningPlane;
let alpha: S3Client;

usePlane((plane, client) => {
  p = plane;
  alpha = client;
});

const errorOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    return err as { name: string; $metadata: { httpStatusCode?: number } };
  }
  throw new Error("expected the request to fail");
};

describe("S3 plane with @aws-sdk/client-s3", () => {
  it("puts a Buffer and gets it back with the MD5 ETag and metadata", async () => {
    const body = Buffer.from("hello, platform");
    const put = await alpha.send(
      new PutObjectCommand({
        Bucket: "alpha",
        Key: "dir/hello.txt",
        Body: body,
        ContentType: "text/plain",
        Metadata: { owner: "ops" },
      }),
    );
    expect(put.ETag).toBe('"' + (await import("node:crypto")).createHash("md5").update(body).digest("hex") + '"');
    const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "dir/hello.txt" }));
    expect(await got.Body!.transformToString()).toBe("hello, platform");
    expect(got.ContentType).toBe("text/plain");
    expect(got.Metadata).toEqual({ owner: "ops" });
    expect(got.ChecksumCRC32).toBeDefined();
    const head = await alpha.send(new HeadObjectCommand({ Bucket: "alpha", Key: "dir/hello.txt" }));
    expect(head.ContentLength).toBe(body.length);
    expect(p.counts.get("PUT /{bucket}/{key}")).toBeGreaterThan(0);
  });

  it("decodes a streamed (aws-chunked, trailing checksum) upload and stores only the payload", async () => {
    const chunks = [Buffer.alloc(70_000, 1), Buffer.alloc(50_000, 2), Buffer.from("end")];
    await alpha.send(
      new PutObjectCommand({ Bucket: "alpha", Key: "stream.bin", Body: Readable.from(chunks), ContentLength: 120_003 }),
    );
    expect(p.payloadModes.find((r) => r.method === "PUT" && r.url.includes("stream.bin"))?.mode).toBe(
      "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
    );
    const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "stream.bin" }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.concat(chunks))).toBe(true);
  });

  it("serves byte ranges", async () => {
    await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "range.txt", Body: "0123456789" }));
    const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "range.txt", Range: "bytes=2-5" }));
    expect(await got.Body!.transformToString()).toBe("2345");
    expect(got.ContentRange).toBe("bytes 2-5/10");
    const tail = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "range.txt", Range: "bytes=-3" }));
    expect(await tail.Body!.transformToString()).toBe("789");
    const err = await errorOf(
      alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "range.txt", Range: "bytes=20-" })),
    );
    expect(err.$metadata.httpStatusCode).toBe(416);
  });

  it("answers If-None-Match with 304 and If-Match mismatch with 412", async () => {
    const put = await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "cond.txt", Body: "x" }));
    const notModified = await errorOf(
      alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "cond.txt", IfNoneMatch: put.ETag })),
    );
    expect(notModified.$metadata.httpStatusCode).toBe(304);
    const failed = await errorOf(
      alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "cond.txt", IfMatch: '"nope"' })),
    );
    expect(failed.$metadata.httpStatusCode).toBe(412);
  });

  it("lists with prefix, delimiter and continuation", async () => {
    const keys = ["list/a/1", "list/a/2", "list/b/1", "list/c", "list/d", "list/e"];
    for (const Key of keys) await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key, Body: Key }));
    const top = await alpha.send(new ListObjectsV2Command({ Bucket: "alpha", Prefix: "list/", Delimiter: "/" }));
    expect(top.CommonPrefixes?.map((c) => c.Prefix)).toEqual(["list/a/", "list/b/"]);
    expect(top.Contents?.map((c) => c.Key)).toEqual(["list/c", "list/d", "list/e"]);

    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await alpha.send(
        new ListObjectsV2Command({
          Bucket: "alpha",
          Prefix: "list/",
          Delimiter: "/",
          MaxKeys: 2,
          ContinuationToken: token,
        }),
      );
      seen.push(...(page.CommonPrefixes ?? []).map((c) => c.Prefix!), ...(page.Contents ?? []).map((c) => c.Key!));
      token = page.NextContinuationToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(["list/a/", "list/b/", "list/c", "list/d", "list/e"]);

    const after = await alpha.send(
      new ListObjectsV2Command({ Bucket: "alpha", Prefix: "list/", StartAfter: "list/c" }),
    );
    expect(after.Contents?.map((c) => c.Key)).toEqual(["list/d", "list/e"]);
  });

  it("deletes many objects at once and single deletes are idempotent", async () => {
    for (const Key of ["del/1", "del/2", "del/3"])
      await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key, Body: "x" }));
    const res = await alpha.send(
      new DeleteObjectsCommand({
        Bucket: "alpha",
        Delete: { Objects: [{ Key: "del/1" }, { Key: "del/2" }, { Key: "del/missing" }] },
      }),
    );
    expect(res.Deleted?.map((d) => d.Key).sort()).toEqual(["del/1", "del/2", "del/missing"]);
    const left = await alpha.send(new ListObjectsV2Command({ Bucket: "alpha", Prefix: "del/" }));
    expect(left.Contents?.map((c) => c.Key)).toEqual(["del/3"]);
    const del = await alpha.send(new DeleteObjectCommand({ Bucket: "alpha", Key: "del/3" }));
    expect(del.$metadata.httpStatusCode).toBe(204);
    const again = await alpha.send(new DeleteObjectCommand({ Bucket: "alpha", Key: "del/3" }));
    expect(again.$metadata.httpStatusCode).toBe(204);
    const gone = await errorOf(alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "del/3" })));
    expect(gone.name).toBe("NoSuchKey");
  });

  it("copies within the bucket, keeping or replacing metadata", async () => {
    await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "copy/src", Body: "copy me", Metadata: { a: "1" } }));
    const copied = await alpha.send(
      new CopyObjectCommand({ Bucket: "alpha", Key: "copy/dst", CopySource: "alpha/copy/src" }),
    );
    expect(copied.CopyObjectResult?.ETag).toBe(
      (await alpha.send(new HeadObjectCommand({ Bucket: "alpha", Key: "copy/src" }))).ETag,
    );
    const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "copy/dst" }));
    expect(await got.Body!.transformToString()).toBe("copy me");
    expect(got.Metadata).toEqual({ a: "1" });
    await alpha.send(
      new CopyObjectCommand({
        Bucket: "alpha",
        Key: "copy/src",
        CopySource: "alpha/copy/src",
        MetadataDirective: "REPLACE",
        Metadata: { b: "2" },
      }),
    );
    expect((await alpha.send(new HeadObjectCommand({ Bucket: "alpha", Key: "copy/src" }))).Metadata).toEqual({
      b: "2",
    });
  });

  it("answers HeadBucket and GetBucketLocation for us-east-1", async () => {
    const head = await alpha.send(new HeadBucketCommand({ Bucket: "alpha" }));
    expect(head.$metadata.httpStatusCode).toBe(200);
    const location = await alpha.send(new GetBucketLocationCommand({ Bucket: "alpha" }));
    expect(location.LocationConstraint ?? "").toBe("");
  });
});

describe("S3 plane refusals", () => {
  it("refuses a wrong secret with SignatureDoesNotMatch and stores nothing", async () => {
    const wrong = s3Client(p.url, { accessKeyId: p.alpha.accessKeyId, secretAccessKey: "not-the-secret" });
    const err = await errorOf(wrong.send(new PutObjectCommand({ Bucket: "alpha", Key: "evil", Body: "x" })));
    expect(err.name).toBe("SignatureDoesNotMatch");
    expect(err.$metadata.httpStatusCode).toBe(403);
    const missing = await errorOf(alpha.send(new HeadObjectCommand({ Bucket: "alpha", Key: "evil" })));
    expect(missing.$metadata.httpStatusCode).toBe(404);
    wrong.destroy();
  });

  it("refuses another bucket with AccessDenied and a missing bucket with NoSuchBucket", async () => {
    const err = await errorOf(alpha.send(new PutObjectCommand({ Bucket: "beta", Key: "x", Body: "x" })));
    expect(err.name).toBe("AccessDenied");
    expect(err.$metadata.httpStatusCode).toBe(403);
    const list = await errorOf(alpha.send(new ListObjectsV2Command({ Bucket: "beta" })));
    expect(list.name).toBe("AccessDenied");
    const copy = await errorOf(
      alpha.send(new CopyObjectCommand({ Bucket: "alpha", Key: "stolen", CopySource: "beta/anything" })),
    );
    expect(copy.name).toBe("AccessDenied");
    const missing = await errorOf(alpha.send(new ListObjectsV2Command({ Bucket: "nope-bucket" })));
    expect(missing.name).toBe("NoSuchBucket");
  });

  it("refuses a deactivated key and an unknown key with InvalidAccessKeyId", async () => {
    for (const credential of [p.deactivated, { accessKeyId: "CPAKUNKNOWN", secretAccessKey: "whatever" }]) {
      const client = s3Client(p.url, credential);
      const err = await errorOf(client.send(new ListObjectsV2Command({ Bucket: "alpha" })));
      expect(err.name).toBe("InvalidAccessKeyId");
      expect(err.$metadata.httpStatusCode).toBe(403);
      client.destroy();
    }
  });

  it("refuses the old secret once the credential's secret changes", async () => {
    const before = s3Client(p.url, p.beta);
    await before.send(new PutObjectCommand({ Bucket: "beta", Key: "k", Body: "v" }));
    const original = p.beta.secretAccessKey;
    p.directory.credentials.get(p.beta.accessKeyId)!.secretAccessKey = "regenerated-secret";
    try {
      const err = await errorOf(before.send(new GetObjectCommand({ Bucket: "beta", Key: "k" })));
      expect(err.name).toBe("SignatureDoesNotMatch");
      const after = s3Client(p.url, { accessKeyId: p.beta.accessKeyId, secretAccessKey: "regenerated-secret" });
      expect(
        await (await after.send(new GetObjectCommand({ Bucket: "beta", Key: "k" }))).Body!.transformToString(),
      ).toBe("v");
      after.destroy();
    } finally {
      p.directory.credentials.get(p.beta.accessKeyId)!.secretAccessKey = original;
      before.destroy();
    }
  });
});
