import { DeleteObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialDirectory } from "../src/credential-directory.js";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { StateStore } from "../src/state.js";
import { call, createBucket, testOptions } from "./helpers.js";

// How the management state meets the other two areas: the credential directory the S3 plane
// reads (§7), bucket deletion against the object store (§5) and authentication of /v1/ (§2).
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator(testOptions());
});
afterAll(async () => {
  await emu.close();
});

function s3For(credential: { access_key_id: string; secret_access_key: string }): S3Client {
  return new S3Client({
    endpoint: emu.s3Url,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: credential.access_key_id, secretAccessKey: credential.secret_access_key },
  });
}

describe("credential directory (§7)", () => {
  it("follows activate, regenerate and bucket deletion at once", () => {
    const state = StateStore.open(undefined);
    const directory = credentialDirectory(state);
    const now = new Date().toISOString();
    state.addBucket({ id: "bkt_a", name: "dir-bucket", storage_class: "Standard", created_at: now });
    state.addCredential({
      access_key_id: "CPAKAAAAAAAAAAAAAAAA",
      secret_access_key: "s1",
      active: true,
      bucket_id: "bkt_a",
      created_at: now,
    });
    expect(directory.bucketExists("dir-bucket")).toBe(true);
    expect(directory.bucketExists("other")).toBe(false);
    expect(directory.lookup("CPAKAAAAAAAAAAAAAAAA")).toEqual({
      secretAccessKey: "s1",
      bucketName: "dir-bucket",
      active: true,
    });
    state.updateCredential("CPAKAAAAAAAAAAAAAAAA", { active: false, secret_access_key: "s2" });
    expect(directory.lookup("CPAKAAAAAAAAAAAAAAAA")).toEqual({
      secretAccessKey: "s2",
      bucketName: "dir-bucket",
      active: false,
    });
    expect(directory.lookup("CPAKUNKNOWN")).toBeUndefined();
    state.deleteBucket("bkt_a");
    expect(directory.lookup("CPAKAAAAAAAAAAAAAAAA")).toBeUndefined();
    expect(directory.bucketExists("dir-bucket")).toBe(false);
  });
});

describe("bucket deletion and the object store (§5)", () => {
  it("refuses to delete a bucket holding an object with 409 bucket_not_empty, then deletes it once empty", async () => {
    const bucket = await createBucket(emu, "full");
    const { body: cred } = await call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`);
    const s3 = s3For(cred);
    await s3.send(new PutObjectCommand({ Bucket: bucket.name, Key: "a.txt", Body: "hello" }));
    const stats = (await call(emu, "GET", "/_emulator/stats", { auth: null })).body;
    expect(stats.requests["PUT /{bucket}/{key}"]).toBeGreaterThanOrEqual(1);
    expect(stats.areas.s3).toBeGreaterThanOrEqual(1);

    const refused = await call(emu, "DELETE", `/object-storage/buckets/${bucket.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({
      code: "bucket_not_empty",
      message: `bucket ${bucket.name} still holds objects or unfinished multipart uploads`,
    });
    expect((await call(emu, "GET", `/object-storage/buckets/${bucket.id}`)).status).toBe(200);

    await s3.send(new DeleteObjectCommand({ Bucket: bucket.name, Key: "a.txt" }));
    expect((await call(emu, "DELETE", `/object-storage/buckets/${bucket.id}`)).status).toBe(204);
    // Its credential went with it.
    await expect(s3.send(new PutObjectCommand({ Bucket: bucket.name, Key: "b.txt", Body: "x" }))).rejects.toThrow();
    s3.destroy();
  });
});

describe("transcription endpoints share the management authentication (§2, §8)", () => {
  it("answers 401 without a credential and serves the API key and the JWT", async () => {
    const none = await call(emu, "GET", "/v1/transcripts/tr_unknown", { auth: null });
    expect(none.status).toBe(401);
    expect((await call(emu, "GET", "/v1/transcripts/tr_unknown", { auth: "cp-wrong" })).status).toBe(401);
    expect(
      (await call(emu, "GET", "/v1/transcripts/tr_unknown", { auth: `Bearer ${await emu.issueToken(-5)}` })).status,
    ).toBe(401);
    expect((await call(emu, "GET", "/v1/transcripts/tr_unknown")).status).toBe(404);
    expect((await call(emu, "GET", "/v1/transcripts/tr_unknown", { auth: `Bearer ${emu.token}` })).status).toBe(404);
  });
});
