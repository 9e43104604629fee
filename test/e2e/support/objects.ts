// A bucket's objects seen from outside Pulumi: read back with awscli and rclone (as a user of the
// credential would), changed and removed behind the stack's back, and the S3 requests the emulator
// counted for the bucket (docs/api-contract.md §9, `s3Buckets`).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { runProgram } from "../../support/tools.mjs";
import type { Emulator } from "../../support/emulator.js";
import type { S3Access } from "./s3.js";
import { emulatorStats } from "../../support/platform.mts";

/** The S3 requests the emulator counted for `bucket`, by route template. */
export async function bucketRequests(emulator: Emulator, bucket: string): Promise<Record<string, number>> {
  const stats = await emulatorStats(emulator);
  return { ...stats.s3Buckets[bucket] };
}

/** The requests counted between two snapshots, zero counts left out. */
export function requestsBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const diff: Record<string, number> = {};
  for (const [route, n] of Object.entries(after)) {
    const d = n - (before[route] ?? 0);
    if (d !== 0) diff[route] = d;
  }
  return diff;
}

function awsEnv(access: S3Access): NodeJS.ProcessEnv {
  return {
    ...process.env,
    AWS_ACCESS_KEY_ID: access.accessKeyId,
    AWS_SECRET_ACCESS_KEY: access.secretAccessKey,
    AWS_DEFAULT_REGION: access.region,
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_CONFIG_FILE: "/dev/null",
    AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
  };
}

/** The object's bytes, read with `aws s3 cp` (path-style: the emulator's endpoint is an address). */
export async function readWithAws(access: S3Access, key: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), "cloudplatform-aws-"));
  try {
    const file = path.join(dir, "object");
    await runProgram("aws", ["--endpoint-url", access.endpoint, "s3", "cp", `s3://${access.bucket}/${key}`, file], {
      env: awsEnv(access),
    });
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The keys under `prefix`, listed with `aws s3 ls --recursive`. */
export async function listWithAws(access: S3Access, prefix = ""): Promise<string[]> {
  const { stdout } = await runProgram(
    "aws",
    ["--endpoint-url", access.endpoint, "s3", "ls", "--recursive", `s3://${access.bucket}/${prefix}`],
    { env: awsEnv(access) },
  );
  return stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => l.trim().split(/\s+/).slice(3).join(" "))
    .sort();
}

/**
 * rclone's remote `objects:` for the bucket's endpoint and key pair, configured through its
 * environment (the secret stays out of the command line). Without AWS_CA_BUNDLE, which rclone's S3
 * client cannot load for a plain-http endpoint.
 */
function rcloneEnv(access: S3Access): NodeJS.ProcessEnv {
  const { AWS_CA_BUNDLE: _bundle, ...env } = process.env;
  return {
    ...env,
    RCLONE_CONFIG: "/dev/null",
    RCLONE_CONFIG_OBJECTS_TYPE: "s3",
    RCLONE_CONFIG_OBJECTS_PROVIDER: "Other",
    RCLONE_CONFIG_OBJECTS_ENDPOINT: access.endpoint,
    RCLONE_CONFIG_OBJECTS_ACCESS_KEY_ID: access.accessKeyId,
    RCLONE_CONFIG_OBJECTS_SECRET_ACCESS_KEY: access.secretAccessKey,
    RCLONE_CONFIG_OBJECTS_REGION: access.region,
    RCLONE_CONFIG_OBJECTS_FORCE_PATH_STYLE: "true",
  };
}

/** The object's bytes, read with `rclone cat`. */
export async function readWithRclone(access: S3Access, key: string): Promise<Buffer> {
  const { stdout } = await runProgram("rclone", ["cat", `objects:${access.bucket}/${key}`], { env: rcloneEnv(access) });
  return Buffer.from(stdout, "utf8");
}

/** The keys under `prefix`, listed with `rclone lsf -R`. */
export async function listWithRclone(access: S3Access, prefix = ""): Promise<string[]> {
  const { stdout } = await runProgram("rclone", ["lsf", "-R", "--files-only", `objects:${access.bucket}/${prefix}`], {
    env: rcloneEnv(access),
  });
  return stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => `${prefix}${l}`)
    .sort();
}

/** An S3 client with the stack's key pair, for changes made outside Pulumi. */
export function outsideClient(access: S3Access): S3Client {
  return new S3Client({
    endpoint: access.endpoint,
    region: access.region,
    forcePathStyle: true,
    credentials: { accessKeyId: access.accessKeyId, secretAccessKey: access.secretAccessKey },
  });
}

export async function putOutside(access: S3Access, key: string, body: string): Promise<void> {
  const s3 = outsideClient(access);
  try {
    await s3.send(new PutObjectCommand({ Bucket: access.bucket, Key: key, Body: body }));
  } finally {
    s3.destroy();
  }
}

export async function deleteOutside(access: S3Access, key: string): Promise<void> {
  const s3 = outsideClient(access);
  try {
    await s3.send(new DeleteObjectCommand({ Bucket: access.bucket, Key: key }));
  } finally {
    s3.destroy();
  }
}

/** The object's Content-Type and Cache-Control, as a HEAD answers. */
export async function headersOf(
  access: S3Access,
  key: string,
): Promise<{ contentType?: string; cacheControl?: string }> {
  const s3 = outsideClient(access);
  try {
    const head = await s3.send(new HeadObjectCommand({ Bucket: access.bucket, Key: key }));
    return {
      ...(head.ContentType === undefined ? {} : { contentType: head.ContentType }),
      ...(head.CacheControl === undefined ? {} : { cacheControl: head.CacheControl }),
    };
  } finally {
    s3.destroy();
  }
}

/** The keys under `prefix` (one page: the tests' folders are small), through the S3 SDK. */
export async function listKeys(access: S3Access, prefix = ""): Promise<string[]> {
  const s3 = outsideClient(access);
  try {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: access.bucket, Prefix: prefix }));
    return (page.Contents ?? []).map((o) => o.Key ?? "").sort();
  } finally {
    s3.destroy();
  }
}

/** The object's bytes through the S3 SDK. */
export async function readObject(access: S3Access, key: string): Promise<Buffer> {
  const s3 = outsideClient(access);
  try {
    const got = await s3.send(new GetObjectCommand({ Bucket: access.bucket, Key: key }));
    return Buffer.from((await got.Body?.transformToByteArray()) ?? []);
  } finally {
    s3.destroy();
  }
}
