/**
 * Checksums as S3 keeps them and as SDK clients send them: each algorithm in a header (a Buffer
 * body) and in an aws-chunked trailer (a stream), every request-calculation and response-validation
 * mode of @aws-sdk/client-s3, S3's default CRC64NVME for objects sent without one, multipart
 * uploads (composite and full-object), copies, and the XML of a Go client's CompleteMultipartUpload.
 */
import {
  ChecksumAlgorithm,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { needs, runProgram } from "../../test/support/tools.mts";
import { signedRequest, usePlane, type RunningPlane } from "./s3-helpers.js";

let p: RunningPlane;
let alpha: S3Client;

usePlane((plane, client) => {
  p = plane;
  alpha = client;
});

type Mode = "WHEN_SUPPORTED" | "WHEN_REQUIRED";

function client(request: Mode, response: Mode): S3Client {
  return new S3Client({
    endpoint: p.url,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: p.alpha,
    maxAttempts: 1,
    requestChecksumCalculation: request,
    responseChecksumValidation: response,
  });
}

const sha = (algorithm: "sha1" | "sha256", data: Buffer) => createHash(algorithm).update(data).digest("base64");
const crc32Base64 = (data: Buffer) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data));
  return out.toString("base64");
};
const sha256Hex = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const codeOf = (xml: string) => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1];

/** The x-amz-checksum-* answer headers of a GET with checksum mode enabled, by algorithm (and "type"). */
async function storedChecksums(key: string, range?: string): Promise<Record<string, string>> {
  const res = await signedRequest(p.url, p.alpha, {
    method: "GET",
    path: `/alpha/${key}`,
    headers: {
      "x-amz-content-sha256": sha256Hex(""),
      "x-amz-checksum-mode": "ENABLED",
      ...(range ? { range } : {}),
    },
  });
  expect(res.status).toBeLessThan(300);
  return Object.fromEntries(
    Object.entries(res.headers)
      .filter(([name]) => name.startsWith("x-amz-checksum-"))
      .map(([name, value]) => [name.slice("x-amz-checksum-".length), String(value)]),
  );
}

const ALGORITHMS = ["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"] as const;

describe("each algorithm, sent in a header and in a trailer", () => {
  const body = Buffer.from("123456789");
  // Check values of the algorithms for "123456789" (CRC catalogue), and the digests.
  const expected: Record<(typeof ALGORITHMS)[number], string> = {
    CRC32: Buffer.from("cbf43926", "hex").toString("base64"),
    CRC32C: Buffer.from("e3069283", "hex").toString("base64"),
    CRC64NVME: Buffer.from("ae8b14860a799888", "hex").toString("base64"),
    SHA1: sha("sha1", body),
    SHA256: sha("sha256", body),
  };

  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: verifies it, keeps it, answers it (validated by the SDK) and lists it`, async () => {
      const c = client("WHEN_SUPPORTED", "WHEN_SUPPORTED");
      try {
        const lower = algorithm.toLowerCase();
        // A Buffer: the checksum in a header. A stream: aws-chunked with the checksum in a trailer.
        await c.send(
          new PutObjectCommand({
            Bucket: "alpha",
            Key: `alg/${lower}/header`,
            Body: body,
            ChecksumAlgorithm: algorithm,
          }),
        );
        await c.send(
          new PutObjectCommand({
            Bucket: "alpha",
            Key: `alg/${lower}/trailer`,
            Body: Readable.from([body.subarray(0, 4), body.subarray(4)]),
            ContentLength: body.length,
            ChecksumAlgorithm: algorithm,
          }),
        );
        const sent = p.payloadModes.filter((r) => r.method === "PUT" && r.url.includes(`alg/${lower}/`));
        expect(sent.map((r) => r.mode)).toEqual([
          expect.stringMatching(/^[0-9a-f]{64}$/),
          "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        ]);
        for (const key of [`alg/${lower}/header`, `alg/${lower}/trailer`]) {
          expect(await storedChecksums(key)).toEqual({ [lower]: expected[algorithm], type: "FULL_OBJECT" });
          const got = await c.send(new GetObjectCommand({ Bucket: "alpha", Key: key, ChecksumMode: "ENABLED" }));
          expect(await got.Body!.transformToString()).toBe("123456789");
          expect(got.ChecksumType).toBe("FULL_OBJECT");
        }
        const listed = await c.send(new ListObjectsV2Command({ Bucket: "alpha", Prefix: `alg/${lower}/` }));
        expect(listed.Contents?.map((o) => o.ChecksumAlgorithm)).toEqual([[algorithm], [algorithm]]);
      } finally {
        c.destroy();
      }
    });
  }

  it("refuses a wrong checksum of each algorithm with 400 BadDigest, in a header and in a trailer", async () => {
    for (const algorithm of ALGORITHMS) {
      const lower = algorithm.toLowerCase();
      const wrong = lower.startsWith("sha") ? sha("sha256", Buffer.from("x")) : expected.CRC64NVME.slice(0, 8);
      const value = lower === "crc64nvme" ? expected.CRC32.padEnd(12, "A") : wrong;
      const inHeader = await signedRequest(p.url, p.alpha, {
        method: "PUT",
        path: `/alpha/alg/bad-${lower}`,
        headers: { "x-amz-content-sha256": sha256Hex(body), [`x-amz-checksum-${lower}`]: value },
        body,
      });
      expect([algorithm, inHeader.status, codeOf(inHeader.body)]).toEqual([algorithm, 400, "BadDigest"]);
      const framed = Buffer.concat([
        Buffer.from(`${body.length.toString(16)}\r\n`),
        body,
        Buffer.from(`\r\n0\r\nx-amz-checksum-${lower}:${value}\r\n\r\n`),
      ]);
      const inTrailer = await signedRequest(p.url, p.alpha, {
        method: "PUT",
        path: `/alpha/alg/bad-${lower}`,
        headers: {
          "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
          "content-encoding": "aws-chunked",
          "x-amz-decoded-content-length": String(body.length),
          "x-amz-trailer": `x-amz-checksum-${lower}`,
        },
        body: framed,
      });
      expect([algorithm, inTrailer.status, codeOf(inTrailer.body)]).toEqual([algorithm, 400, "BadDigest"]);
    }
    const listed = await alpha.send(new ListObjectsV2Command({ Bucket: "alpha", Prefix: "alg/bad-" }));
    expect(listed.KeyCount).toBe(0);
  });
});

describe("the SDK's request and response checksum modes", () => {
  const modes: Array<[Mode, Mode]> = [
    ["WHEN_SUPPORTED", "WHEN_SUPPORTED"],
    ["WHEN_SUPPORTED", "WHEN_REQUIRED"],
    ["WHEN_REQUIRED", "WHEN_SUPPORTED"],
    ["WHEN_REQUIRED", "WHEN_REQUIRED"],
  ];
  for (const [request, response] of modes) {
    it(`request ${request}, response ${response}: puts (buffer and stream), gets and lists`, async () => {
      const c = client(request, response);
      const prefix = `modes/${request}-${response}/`;
      const big = Buffer.alloc(100_000, 5);
      try {
        await c.send(new PutObjectCommand({ Bucket: "alpha", Key: `${prefix}small`, Body: "small body" }));
        await c.send(
          new PutObjectCommand({
            Bucket: "alpha",
            Key: `${prefix}stream`,
            Body: Readable.from([big]),
            ContentLength: big.length,
          }),
        );
        const small = await c.send(new GetObjectCommand({ Bucket: "alpha", Key: `${prefix}small` }));
        expect(await small.Body!.transformToString()).toBe("small body");
        const stream = await c.send(new GetObjectCommand({ Bucket: "alpha", Key: `${prefix}stream` }));
        expect(Buffer.from(await stream.Body!.transformToByteArray()).equals(big)).toBe(true);
        // What the SDK sent: CRC32 when it calculates checksums it need not, nothing otherwise; and
        // an object sent without one has S3's default, a CRC64NVME of all its bytes.
        const answered = await storedChecksums(`${prefix}small`);
        expect(Object.keys(answered)).toEqual(request === "WHEN_SUPPORTED" ? ["crc32", "type"] : ["crc64nvme", "type"]);
        if (request === "WHEN_SUPPORTED") expect(answered["crc32"]).toBe(crc32Base64(Buffer.from("small body")));
        const listed = await c.send(new ListObjectsV2Command({ Bucket: "alpha", Prefix: prefix }));
        expect(listed.KeyCount).toBe(2);
      } finally {
        c.destroy();
      }
    });
  }
});

describe("S3's default checksum", () => {
  it("gives an object sent with no checksum a CRC64NVME of all its bytes, answered only for the whole object", async () => {
    const body = Buffer.from("123456789");
    const put = await signedRequest(p.url, p.alpha, {
      method: "PUT",
      path: "/alpha/default/digits",
      headers: { "x-amz-content-sha256": sha256Hex(body) },
      body,
    });
    expect(put.headers["x-amz-checksum-crc64nvme"]).toBe(Buffer.from("ae8b14860a799888", "hex").toString("base64"));
    expect(await storedChecksums("default/digits")).toEqual({ crc64nvme: "rosUhgp5mIg=", type: "FULL_OBJECT" });
    // A range is not the object: no checksum (as S3).
    expect(await storedChecksums("default/digits", "bytes=0-3")).toEqual({});
    // A larger object, in a data file, sent in chunks of odd sizes: the same as the SDK's own CRC64NVME,
    // which validates the answer.
    const c = client("WHEN_REQUIRED", "WHEN_SUPPORTED");
    try {
      const big = Buffer.alloc(3 * 1024 * 1024 + 13);
      for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
      await c.send(
        new PutObjectCommand({
          Bucket: "alpha",
          Key: "default/big",
          Body: Readable.from([big.subarray(0, 70_001), big.subarray(70_001)]),
          ContentLength: big.length,
        }),
      );
      const got = await c.send(new GetObjectCommand({ Bucket: "alpha", Key: "default/big", ChecksumMode: "ENABLED" }));
      expect(got.ChecksumCRC64NVME).toBeDefined();
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(big)).toBe(true);
      const checked = new S3Client({
        endpoint: p.url,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: p.alpha,
        maxAttempts: 1,
      });
      const again = await checked.send(
        new PutObjectCommand({ Bucket: "alpha", Key: "default/big-crc64", Body: big, ChecksumAlgorithm: "CRC64NVME" }),
      );
      checked.destroy();
      expect(again.ChecksumCRC64NVME).toBe(got.ChecksumCRC64NVME);
    } finally {
      c.destroy();
    }
  });
});

describe("multipart checksums", () => {
  const partOne = Buffer.alloc(5 * 1024 * 1024, 1);
  const partTwo = Buffer.from("the last part");
  const whole = Buffer.concat([partOne, partTwo]);

  async function multipart(
    key: string,
    create: { ChecksumAlgorithm?: ChecksumAlgorithm; ChecksumType?: "COMPOSITE" | "FULL_OBJECT" },
    complete: { listPartChecksums?: boolean; wholeChecksum?: string } = {},
  ) {
    const c = client("WHEN_SUPPORTED", "WHEN_SUPPORTED");
    try {
      const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket: "alpha", Key: key, ...create }));
      const algorithm = create.ChecksumAlgorithm;
      const parts = [];
      for (const [i, body] of [partOne, partTwo].entries()) {
        const up = await c.send(
          new UploadPartCommand({
            Bucket: "alpha",
            Key: key,
            UploadId,
            PartNumber: i + 1,
            Body: body,
            ...(algorithm ? { ChecksumAlgorithm: algorithm } : {}),
          }),
        );
        const { ETag, ChecksumCRC32, ChecksumCRC32C, ChecksumCRC64NVME, ChecksumSHA1, ChecksumSHA256 } = up;
        const checksums = { ChecksumCRC32, ChecksumCRC32C, ChecksumCRC64NVME, ChecksumSHA1, ChecksumSHA256 };
        parts.push({ PartNumber: i + 1, ETag, ...(complete.listPartChecksums === false ? {} : checksums) });
      }
      const wholeHeader =
        complete.wholeChecksum && algorithm ? { [`Checksum${algorithm}`]: complete.wholeChecksum } : {};
      return await c.send(
        new CompleteMultipartUploadCommand({
          Bucket: "alpha",
          Key: key,
          UploadId,
          MultipartUpload: { Parts: parts },
          ...(create.ChecksumType === "FULL_OBJECT" ? { ChecksumType: "FULL_OBJECT" } : {}),
          ...wholeHeader,
        }),
      );
    } finally {
      c.destroy();
    }
  }

  it("CRC32 composite (the default type): the CRC32 of the parts' CRC32s, suffixed with the part count", async () => {
    const done = await multipart("mp/crc32-composite", { ChecksumAlgorithm: "CRC32" });
    const parts = Buffer.concat([partOne, partTwo].map((b) => Buffer.from(crc32Base64(b), "base64")));
    expect(done.ChecksumCRC32).toBe(`${crc32Base64(parts)}-2`);
    expect(done.ChecksumType).toBe("COMPOSITE");
    expect(await storedChecksums("mp/crc32-composite")).toEqual({
      crc32: `${crc32Base64(parts)}-2`,
      type: "COMPOSITE",
    });
  });

  it("SHA256 composite, and CRC32 and CRC64NVME of the whole object", async () => {
    const digests = Buffer.concat([partOne, partTwo].map((b) => createHash("sha256").update(b).digest()));
    await multipart("mp/sha256", { ChecksumAlgorithm: "SHA256" });
    expect(await storedChecksums("mp/sha256")).toEqual({ sha256: `${sha("sha256", digests)}-2`, type: "COMPOSITE" });
    await multipart("mp/crc32-full", { ChecksumAlgorithm: "CRC32", ChecksumType: "FULL_OBJECT" });
    expect(await storedChecksums("mp/crc32-full")).toEqual({ crc32: crc32Base64(whole), type: "FULL_OBJECT" });
    await multipart("mp/crc64", { ChecksumAlgorithm: "CRC64NVME" });
    const crc64 = await storedChecksums("mp/crc64");
    expect(crc64["type"]).toBe("FULL_OBJECT");
    // The SDK validates the CRC64NVME of the whole object it reads.
    const got = await client("WHEN_SUPPORTED", "WHEN_SUPPORTED").send(
      new GetObjectCommand({ Bucket: "alpha", Key: "mp/crc64", ChecksumMode: "ENABLED" }),
    );
    expect(got.ChecksumCRC64NVME).toBe(crc64["crc64nvme"]);
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(whole)).toBe(true);
  });

  it("without an algorithm, the object gets S3's default: a CRC64NVME of the whole object", async () => {
    await multipart("mp/none", {});
    await alpha.send(
      new PutObjectCommand({ Bucket: "alpha", Key: "mp/none-single", Body: whole, ChecksumAlgorithm: "CRC64NVME" }),
    );
    const single = await storedChecksums("mp/none-single");
    expect(await storedChecksums("mp/none")).toEqual(single);
  });

  it("checks what the completion states: part checksums, and the whole object's", async () => {
    const missing = await multipart("mp/missing", { ChecksumAlgorithm: "CRC32" }, { listPartChecksums: false }).catch(
      (err: S3ServiceException) => `${err.name}: ${err.message}`,
    );
    expect(missing).toMatch(/^InvalidRequest: .*must include the checksum for each part.*part 1/);
    const wrongWhole = await multipart(
      "mp/wrong-whole",
      { ChecksumAlgorithm: "CRC32", ChecksumType: "FULL_OBJECT" },
      { wholeChecksum: crc32Base64(partTwo) },
    ).catch((err: S3ServiceException) => err.name);
    expect(wrongWhole).toBe("BadDigest");
    const rightWhole = await multipart(
      "mp/right-whole",
      { ChecksumAlgorithm: "CRC32", ChecksumType: "FULL_OBJECT" },
      { wholeChecksum: crc32Base64(whole) },
    );
    expect(rightWhole.ChecksumCRC32).toBe(crc32Base64(whole));
  });

  it("refuses type and algorithm pairs S3 does not offer, and a part sent with another algorithm", async () => {
    for (const create of [
      { ChecksumAlgorithm: "SHA256", ChecksumType: "FULL_OBJECT" },
      { ChecksumAlgorithm: "CRC64NVME", ChecksumType: "COMPOSITE" },
    ] as const) {
      const refused = await alpha
        .send(new CreateMultipartUploadCommand({ Bucket: "alpha", Key: "mp/refused", ...create }))
        .catch((err: S3ServiceException) => err.name);
      expect(refused).toBe("InvalidRequest");
    }
    const { UploadId } = await alpha.send(
      new CreateMultipartUploadCommand({ Bucket: "alpha", Key: "mp/other", ChecksumAlgorithm: "CRC32" }),
    );
    const other = await alpha
      .send(
        new UploadPartCommand({
          Bucket: "alpha",
          Key: "mp/other",
          UploadId,
          PartNumber: 1,
          Body: partTwo,
          ChecksumAlgorithm: "SHA1",
        }),
      )
      .catch((err: S3ServiceException) => `${err.name}: ${err.message}`);
    expect(other).toMatch(/^InvalidRequest: Checksum Type mismatch/);
  });

  it("completes an upload of 12 parts into one file, with no listener left behind (no Node warning)", async () => {
    const warned: string[] = [];
    const onWarning = (warning: Error) => warned.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const c = client("WHEN_REQUIRED", "WHEN_SUPPORTED");
      const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket: "alpha", Key: "mp/twelve" }));
      const parts = [];
      for (let n = 1; n <= 12; n++) {
        const body = n < 12 ? Buffer.alloc(5 * 1024 * 1024, n) : Buffer.from("end");
        const { ETag } = await c.send(
          new UploadPartCommand({ Bucket: "alpha", Key: "mp/twelve", UploadId, PartNumber: n, Body: body }),
        );
        parts.push({ PartNumber: n, ETag });
      }
      const done = await c.send(
        new CompleteMultipartUploadCommand({
          Bucket: "alpha",
          Key: "mp/twelve",
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
      expect(done.ETag).toMatch(/-12"$/);
      const got = await c.send(new GetObjectCommand({ Bucket: "alpha", Key: "mp/twelve", ChecksumMode: "ENABLED" }));
      expect((await got.Body!.transformToByteArray()).length).toBe(11 * 5 * 1024 * 1024 + 3);
      c.destroy();
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warned).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("completes a Go client's request, whose XML writes the ETags' quotes as &#34;", async () => {
    const { UploadId } = await alpha.send(new CreateMultipartUploadCommand({ Bucket: "alpha", Key: "mp/go" }));
    const one = await alpha.send(
      new UploadPartCommand({ Bucket: "alpha", Key: "mp/go", UploadId, PartNumber: 1, Body: partOne }),
    );
    const two = await alpha.send(
      new UploadPartCommand({ Bucket: "alpha", Key: "mp/go", UploadId, PartNumber: 2, Body: partTwo }),
    );
    const escaped = (etag: string) => etag.replaceAll('"', "&#34;");
    // What aws-sdk-go-v2 (the Pulumi CLI's state backend, rclone) sends.
    const xml =
      '<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      `<Part><ETag>${escaped(one.ETag!)}</ETag><PartNumber>1</PartNumber></Part>` +
      `<Part><ETag>${escaped(two.ETag!)}</ETag><PartNumber>2</PartNumber></Part>` +
      "</CompleteMultipartUpload>";
    const res = await signedRequest(p.url, p.alpha, {
      method: "POST",
      path: "/alpha/mp/go",
      query: { uploadId: UploadId! },
      headers: { "x-amz-content-sha256": sha256Hex(xml), "content-type": "application/xml" },
      body: xml,
    });
    expect([res.status, codeOf(res.body)]).toEqual([200, undefined]);
    const head = await alpha.send(new HeadObjectCommand({ Bucket: "alpha", Key: "mp/go" }));
    expect(head.ContentLength).toBe(whole.length);
  });
});

describe("copies", () => {
  it("keep a whole-object checksum, and compute one for a composite source or when asked", async () => {
    await alpha.send(
      new PutObjectCommand({ Bucket: "alpha", Key: "copy/src", Body: "copy me", ChecksumAlgorithm: "SHA1" }),
    );
    await alpha.send(new CopyObjectCommand({ Bucket: "alpha", Key: "copy/kept", CopySource: "alpha/copy/src" }));
    expect(await storedChecksums("copy/kept")).toEqual(await storedChecksums("copy/src"));
    const asked = await alpha.send(
      new CopyObjectCommand({
        Bucket: "alpha",
        Key: "copy/asked",
        CopySource: "alpha/copy/src",
        ChecksumAlgorithm: "SHA256",
      }),
    );
    expect(asked.CopyObjectResult?.ChecksumSHA256).toBe(sha("sha256", Buffer.from("copy me")));
    expect(await storedChecksums("copy/asked")).toEqual({
      sha256: sha("sha256", Buffer.from("copy me")),
      type: "FULL_OBJECT",
    });
    // A composite multipart source: the copy gets S3's default, of all its bytes.
    await alpha.send(
      new CopyObjectCommand({ Bucket: "alpha", Key: "copy/of-composite", CopySource: "alpha/mp/crc32-composite" }),
    );
    const copied = await storedChecksums("copy/of-composite");
    expect(Object.keys(copied)).toEqual(["crc64nvme", "type"]);
    expect(copied["type"]).toBe("FULL_OBJECT");
  });
});

describe("rclone (Go, aws-sdk-go)", needs("rclone"), () => {
  it("uploads in parts: its CompleteMultipartUpload escapes the ETags' quotes as &#34;", async () => {
    const home = await mkdtemp(join(tmpdir(), "s3-checksums-rclone-"));
    try {
      const data = Buffer.alloc(12 * 1024 * 1024);
      for (let i = 0; i < data.length; i += 4) data.writeUInt32LE((i * 2246822519) >>> 0, i);
      await writeFile(join(home, "big.bin"), data);
      const env = {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        HOME: home,
        RCLONE_CONFIG_EMU_TYPE: "s3",
        RCLONE_CONFIG_EMU_PROVIDER: "Other",
        RCLONE_CONFIG_EMU_ENDPOINT: p.url,
        RCLONE_CONFIG_EMU_REGION: "us-east-1",
        RCLONE_CONFIG_EMU_FORCE_PATH_STYLE: "true",
        RCLONE_CONFIG_EMU_ACCESS_KEY_ID: p.alpha.accessKeyId,
        RCLONE_CONFIG_EMU_SECRET_ACCESS_KEY: p.alpha.secretAccessKey,
      };
      const args = ["--config", join(home, "rclone.conf"), "--retries", "1", "--low-level-retries", "1"];
      const parts = ["--s3-upload-cutoff", "5M", "--s3-chunk-size", "5M"];
      await runProgram("rclone", [...args, ...parts, "copyto", join(home, "big.bin"), "emu:alpha/rclone/big.bin"], {
        env,
      });
      const head = await alpha.send(
        new HeadObjectCommand({ Bucket: "alpha", Key: "rclone/big.bin", ChecksumMode: "ENABLED" }),
      );
      expect(head.ETag).toMatch(/-3"$/);
      expect(head.ContentLength).toBe(data.length);
      expect(head.ChecksumCRC64NVME).toBeDefined();
      const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "rclone/big.bin" }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(data)).toBe(true);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
