/** Multipart uploads and the ObjectStoreApi the management side uses. */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3Client, startPlane, type RunningPlane } from "./s3-helpers.js";

let p: RunningPlane;
let alpha: S3Client;
let dataDir: string;
const MiB = 1024 * 1024;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "s3-multipart-"));
  p = await startPlane(dataDir);
  alpha = s3Client(p.url, p.alpha);
});
afterAll(async () => {
  alpha.destroy();
  await p.close();
  await rm(dataDir, { recursive: true, force: true });
});

const md5 = (b: Buffer) => createHash("md5").update(b);
const pattern = (size: number, seed: number) => {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4) b.writeUInt32LE((i * 2654435761 + seed) >>> 0, i);
  return b;
};

describe("multipart upload", () => {
  it("uploads 12 MiB with lib-storage in 5 MiB parts; the ETag is the MD5 of part MD5s", async () => {
    const data = pattern(12 * MiB, 1);
    const upload = new Upload({
      client: alpha,
      params: {
        Bucket: "alpha",
        Key: "big/twelve.bin",
        Body: Readable.from([data.subarray(0, 7 * MiB), data.subarray(7 * MiB)]),
      },
      partSize: 5 * MiB,
      queueSize: 2,
    });
    const result = await upload.done();
    const parts = [data.subarray(0, 5 * MiB), data.subarray(5 * MiB, 10 * MiB), data.subarray(10 * MiB)];
    const expected = createHash("md5")
      .update(Buffer.concat(parts.map((part) => md5(part).digest())))
      .digest("hex");
    expect(result.ETag).toBe(`"${expected}-3"`);
    const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "big/twelve.bin" }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(data)).toBe(true);
    expect(await p.plane.objects.isEmpty("alpha")).toBe(false);
  });

  it("lists parts and unfinished uploads, counts them as content, and aborts", async () => {
    await p.plane.objects.dropBucket("beta");
    expect(await p.plane.objects.isEmpty("beta")).toBe(true);
    const beta = s3Client(p.url, p.beta);
    const { UploadId } = await beta.send(new CreateMultipartUploadCommand({ Bucket: "beta", Key: "pending.bin" }));
    expect(await p.plane.objects.isEmpty("beta")).toBe(false);
    await beta.send(
      new UploadPartCommand({ Bucket: "beta", Key: "pending.bin", UploadId, PartNumber: 1, Body: pattern(5 * MiB, 2) }),
    );
    await beta.send(
      new UploadPartCommand({
        Bucket: "beta",
        Key: "pending.bin",
        UploadId,
        PartNumber: 2,
        Body: Buffer.from("small"),
      }),
    );
    const parts = await beta.send(new ListPartsCommand({ Bucket: "beta", Key: "pending.bin", UploadId }));
    expect(parts.Parts?.map((x) => [x.PartNumber, x.Size])).toEqual([
      [1, 5 * MiB],
      [2, 5],
    ]);
    const uploads = await beta.send(new ListMultipartUploadsCommand({ Bucket: "beta" }));
    expect(uploads.Uploads?.map((u) => [u.Key, u.UploadId])).toEqual([["pending.bin", UploadId]]);
    await beta.send(new AbortMultipartUploadCommand({ Bucket: "beta", Key: "pending.bin", UploadId }));
    expect(await p.plane.objects.isEmpty("beta")).toBe(true);
    const gone = await beta
      .send(new ListPartsCommand({ Bucket: "beta", Key: "pending.bin", UploadId }))
      .catch((e: Error) => e);
    expect((gone as Error).name).toBe("NoSuchUpload");
    beta.destroy();
  });

  it("refuses parts out of order, unknown parts and small non-final parts", async () => {
    const { UploadId } = await alpha.send(new CreateMultipartUploadCommand({ Bucket: "alpha", Key: "bad.bin" }));
    const one = await alpha.send(
      new UploadPartCommand({ Bucket: "alpha", Key: "bad.bin", UploadId, PartNumber: 1, Body: Buffer.from("tiny") }),
    );
    const two = await alpha.send(
      new UploadPartCommand({ Bucket: "alpha", Key: "bad.bin", UploadId, PartNumber: 2, Body: Buffer.from("tiny") }),
    );
    const complete = (Parts: Array<{ PartNumber: number; ETag: string | undefined }>) =>
      alpha
        .send(
          new CompleteMultipartUploadCommand({ Bucket: "alpha", Key: "bad.bin", UploadId, MultipartUpload: { Parts } }),
        )
        .then(
          () => "ok",
          (e: Error) => e.name,
        );
    expect(
      await complete([
        { PartNumber: 2, ETag: two.ETag },
        { PartNumber: 1, ETag: one.ETag },
      ]),
    ).toBe("InvalidPartOrder");
    expect(await complete([{ PartNumber: 1, ETag: '"0123"' }])).toBe("InvalidPart");
    expect(
      await complete([
        { PartNumber: 1, ETag: one.ETag },
        { PartNumber: 2, ETag: two.ETag },
      ]),
    ).toBe("EntityTooSmall");
    expect(await complete([{ PartNumber: 1, ETag: one.ETag }])).toBe("ok");
    const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "bad.bin" }));
    expect(await got.Body!.transformToString()).toBe("tiny");
  });

  it("copies a range of an object into a part", async () => {
    await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "copy-src.txt", Body: "0123456789" }));
    const { UploadId } = await alpha.send(new CreateMultipartUploadCommand({ Bucket: "alpha", Key: "copy-dst.txt" }));
    const part = await alpha.send(
      new UploadPartCopyCommand({
        Bucket: "alpha",
        Key: "copy-dst.txt",
        UploadId,
        PartNumber: 1,
        CopySource: "alpha/copy-src.txt",
        CopySourceRange: "bytes=3-6",
      }),
    );
    await alpha.send(
      new CompleteMultipartUploadCommand({
        Bucket: "alpha",
        Key: "copy-dst.txt",
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.CopyPartResult?.ETag }] },
      }),
    );
    expect(
      await (
        await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "copy-dst.txt" }))
      ).Body!.transformToString(),
    ).toBe("3456");
  });
});

describe("object store API and persistence", () => {
  it("keeps objects across a restart on the same data dir, then counts, drops and resets", async () => {
    await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "persist.txt", Body: "still here" }));
    const before = await p.plane.objects.countObjects();
    alpha.destroy();
    await p.close();
    p = await startPlane(dataDir);
    alpha = s3Client(p.url, p.alpha);
    expect(await p.plane.objects.countObjects()).toBe(before);
    const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "persist.txt" }));
    expect(await got.Body!.transformToString()).toBe("still here");

    const beta = s3Client(p.url, p.beta);
    await beta.send(new PutObjectCommand({ Bucket: "beta", Key: "b.txt", Body: "b" }));
    beta.destroy();
    expect(await p.plane.objects.countObjects()).toBe(before + 1);
    await p.plane.objects.dropBucket("alpha");
    expect(await p.plane.objects.isEmpty("alpha")).toBe(true);
    expect(await p.plane.objects.countObjects()).toBe(1);
    await p.plane.objects.reset();
    expect(await p.plane.objects.countObjects()).toBe(0);
    expect(await p.plane.objects.isEmpty("beta")).toBe(true);
  });
});
