/**
 * GET /_emulator/stats as a test counts object requests with it (docs/api-contract.md §9): PUT,
 * GET, HEAD, DELETE, LIST and copies each under its own route template, overall and per bucket,
 * whatever the answer (a refused conditional PUT is still a PUT).
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import type { RunningEmulator } from "../src/index.js";
import { call, withEmulator } from "./helpers.js";

async function bucketWithCredential(emu: RunningEmulator, name: string): Promise<S3Client> {
  const bucket = await call(emu, "POST", "/object-storage/buckets", { body: { name, storage_class: "Standard" } });
  const credential = await call(emu, "POST", `/object-storage/buckets/${bucket.body.id}/credentials`);
  return new S3Client({
    endpoint: emu.s3Url,
    region: "us-east-1",
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: {
      accessKeyId: credential.body.access_key_id,
      secretAccessKey: credential.body.secret_access_key,
    },
  });
}

describe("S3 request counters", () => {
  it("count each kind of object request separately, overall and per bucket", async () => {
    await withEmulator(async (emu) => {
      const site = await bucketWithCredential(emu, "site-files");
      const state = await bucketWithCredential(emu, "team-state");
      try {
        const s = { Bucket: "site-files" };
        for (const key of ["a.html", "b.html", "c.html"]) {
          await site.send(new PutObjectCommand({ ...s, Key: key, Body: key }));
        }
        await site
          .send(new PutObjectCommand({ ...s, Key: "a.html", Body: "again", IfNoneMatch: "*" }))
          .catch(() => undefined);
        await (await site.send(new GetObjectCommand({ ...s, Key: "a.html" }))).Body!.transformToString();
        await site.send(new HeadObjectCommand({ ...s, Key: "b.html" }));
        await site.send(new ListObjectsV2Command(s));
        await site.send(new ListObjectsV2Command({ ...s, Prefix: "a" }));
        await site.send(new CopyObjectCommand({ ...s, Key: "d.html", CopySource: "site-files/c.html" }));
        await site.send(new DeleteObjectCommand({ ...s, Key: "b.html" }));
        await site.send(
          new DeleteObjectsCommand({ ...s, Delete: { Objects: [{ Key: "c.html" }, { Key: "d.html" }] } }),
        );
        await state.send(
          new PutObjectCommand({ Bucket: "team-state", Key: ".pulumi/meta.yaml", Body: "version: 1\n" }),
        );

        const stats = (await call(emu, "GET", "/_emulator/stats", { auth: null })).body;
        expect(stats.s3Buckets).toEqual({
          "site-files": {
            "PUT /{bucket}/{key}": 4,
            "GET /{bucket}/{key}": 1,
            "HEAD /{bucket}/{key}": 1,
            "GET /{bucket}?list-type=2": 2,
            "PUT /{bucket}/{key} (copy)": 1,
            "DELETE /{bucket}/{key}": 1,
            "POST /{bucket}?delete": 1,
          },
          "team-state": { "PUT /{bucket}/{key}": 1 },
        });
        expect(stats.requests["PUT /{bucket}/{key}"]).toBe(5);
        expect(stats.areas.s3).toBe(12);

        await call(emu, "POST", "/_emulator/reset", { auth: null });
        expect((await call(emu, "GET", "/_emulator/stats", { auth: null })).body.s3Buckets).toEqual({});
      } finally {
        site.destroy();
        state.destroy();
      }
    });
  });
});
