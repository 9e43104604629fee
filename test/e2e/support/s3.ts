// S3 calls made with a stack's outputs, as a user of the credential would make them.
import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { output, type RunResult } from "../../support/runner.js";

export interface S3Access {
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export function accessFrom(up: RunResult): S3Access {
  return {
    endpoint: output(up, "s3Endpoint"),
    region: output(up, "region"),
    bucket: output(up, "bucketName"),
    accessKeyId: output(up, "accessKeyId"),
    secretAccessKey: output(up, "secretAccessKey"),
  };
}

/** Writes then reads back one object; returns "ok" or the S3 error code that refused it. */
export async function roundTrip(access: S3Access, key = "probe.txt"): Promise<string> {
  const client = new S3Client({
    endpoint: access.endpoint,
    region: access.region,
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: access.accessKeyId, secretAccessKey: access.secretAccessKey },
  });
  try {
    const body = `written with ${access.accessKeyId} at ${Date.now()}`;
    await client.send(new PutObjectCommand({ Bucket: access.bucket, Key: key, Body: body }));
    const got = await client.send(new GetObjectCommand({ Bucket: access.bucket, Key: key }));
    const text = await got.Body?.transformToString();
    return text === body ? "ok" : `read back different content: ${text}`;
  } catch (error) {
    if (error instanceof S3ServiceException) return error.name;
    throw error;
  } finally {
    client.destroy();
  }
}
