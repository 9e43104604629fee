// What the console tests put on the platform, and the secrets they then look for in what the console
// answers: every S3 secret, the API key (also a rotated-out one), the token, an upload token, a
// presigned URL's query and a webhook URL's query.
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { HttpRequest } from "@smithy/protocol-http";
import type { RunningEmulator } from "../src/index.js";
import { call } from "./helpers.js";
import { rawRequest, s3Client, signer } from "./s3-helpers.js";

/** A WAV file of silence (16 kHz, mono, 16 bit): the emulator reads its length from the header. */
export function silentWav(seconds: number): Buffer {
  const data = 16_000 * 2 * seconds;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + data, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(data, 40);
  return Buffer.concat([header, Buffer.alloc(data)]);
}

export interface Credential {
  readonly access_key_id: string;
  readonly secret_access_key: string;
}

/** Secrets by what they are, so a failure names the one that leaked. */
export type Secrets = Map<string, string>;

export function knownSecrets(emu: RunningEmulator): Secrets {
  return new Map([
    ["api key", emu.apiKey],
    ["token", emu.token],
  ]);
}

/** The names of the secrets that `text` holds. */
export function secretsIn(text: string, secrets: Secrets): string[] {
  return [...secrets].filter(([, value]) => text.includes(value)).map(([name]) => name);
}

export async function newBucket(emu: RunningEmulator, name: string, storageClass = "Standard") {
  const res = await call(emu, "POST", "/object-storage/buckets", { body: { name, storage_class: storageClass } });
  if (res.status !== 201) throw new Error(`bucket ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string; storage_class: string; created_at: string };
}

export async function newCredential(emu: RunningEmulator, bucketId: string, secrets: Secrets): Promise<Credential> {
  const res = await call(emu, "POST", `/object-storage/buckets/${bucketId}/credentials`);
  if (res.status !== 201) throw new Error(`credential: ${res.status} ${JSON.stringify(res.body)}`);
  const credential = res.body as Credential;
  secrets.set(`S3 secret of ${credential.access_key_id}`, credential.secret_access_key);
  return credential;
}

export async function putObject(
  emu: RunningEmulator,
  bucket: string,
  credential: Credential,
  object: { key: string; body: string | Buffer; contentType: string },
): Promise<void> {
  const client = s3Client(emu.s3Url, {
    accessKeyId: credential.access_key_id,
    secretAccessKey: credential.secret_access_key,
  });
  try {
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: object.key, Body: object.body, ContentType: object.contentType }),
    );
  } finally {
    client.destroy();
  }
}

/** GETs an object through a presigned URL (its query holds a signature made with the S3 secret). */
export async function getPresigned(emu: RunningEmulator, path: string, credential: Credential, secrets: Secrets) {
  const base = new URL(emu.s3Url);
  const signed = await signer({
    accessKeyId: credential.access_key_id,
    secretAccessKey: credential.secret_access_key,
  }).presign(
    new HttpRequest({
      method: "GET",
      protocol: "http:",
      hostname: base.hostname,
      port: Number(base.port),
      path,
      headers: { host: base.host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
    }),
    { expiresIn: 300 },
  );
  const query = new URLSearchParams(signed.query as Record<string, string>).toString();
  secrets.set("presigned signature", String(signed.query?.["X-Amz-Signature"]));
  secrets.set("presigned query", query);
  return rawRequest(`${emu.s3Url}${path}?${query}`, { method: "GET" });
}

/**
 * A transcript of an uploaded WAV, with a webhook URL whose query holds a secret; the upload token
 * is in its upload URL. Returns once it ended (done, or error when the machine's engine failed).
 */
export async function newTranscript(emu: RunningEmulator, secrets: Secrets): Promise<{ id: string; status: string }> {
  const slot = await call(emu, "POST", "/v1/transcripts/upload", { body: {} });
  if (slot.status !== 200 && slot.status !== 201) throw new Error(`upload slot: ${slot.status}`);
  const uploadUrl = new URL(slot.body.uploadUrl as string);
  secrets.set("upload token", uploadUrl.searchParams.get("token")!);
  const put = await rawRequest(uploadUrl.toString(), { method: "PUT", body: silentWav(2) });
  if (put.status !== 200) throw new Error(`upload: ${put.status} ${put.body}`);
  const webhookSecret = "hook-secret-5b0e2c7d9f314a6e";
  secrets.set("webhook secret", webhookSecret);
  // The synchronous wait answers once the transcript ended (or 202 when it takes longer).
  const created = await call(emu, "POST", "/v1/transcripts", {
    body: { uploadKey: slot.body.uploadKey, webhookUrl: `http://127.0.0.1:9/hooks?key=${webhookSecret}` },
  });
  if (created.status !== 200 && created.status !== 202) {
    throw new Error(`transcript: ${created.status} ${JSON.stringify(created.body)}`);
  }
  const id = created.body.id as string;
  for (let i = 0; i < 120; i++) {
    const got = i === 0 ? created : await call(emu, "GET", `/v1/transcripts/${id}`);
    if (got.body.status === "done" || got.body.status === "error") return { id, status: got.body.status as string };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`transcript ${id} did not end within 60 s`);
}
