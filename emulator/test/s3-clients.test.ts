/**
 * Independent S3 clients from Debian (awscli, s3cmd, rclone) against the plane: round trips,
 * multipart, listing, deletion, and refusal of a wrong secret. Each runs with HOME and its config
 * files in a temp dir, so nothing outside the test is read or written.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlane, type RunningPlane, type TestCredential } from "./s3-helpers.js";

const run = promisify(execFile);
let p: RunningPlane;
let home: string;

beforeAll(async () => {
  p = await startPlane();
  home = await mkdtemp(join(tmpdir(), "s3-clients-"));
});
afterAll(async () => {
  await p.close();
  await rm(home, { recursive: true, force: true });
});

function randomFile(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4) b.writeUInt32LE((i * 2246822519 + size) >>> 0, i);
  return b;
}

const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");

/** A clean environment: no AWS_* from the outside, HOME in the temp dir. */
function baseEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
}

async function exec(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return run(command, args, { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
}

describe("awscli", () => {
  async function aws(credential: Pick<TestCredential, "accessKeyId" | "secretAccessKey">, ...args: string[]) {
    const config = join(home, "aws-config");
    await writeFile(config, "[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n");
    return exec("aws", [...args, "--endpoint-url", p.url], {
      ...baseEnv(),
      AWS_CONFIG_FILE: config,
      AWS_SHARED_CREDENTIALS_FILE: join(home, "aws-credentials-none"),
      AWS_ACCESS_KEY_ID: credential.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credential.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: "true",
    });
  }

  it("copies a 20 MB file up (multipart) and down, lists and removes it", async () => {
    const data = randomFile(20 * 1024 * 1024);
    const src = join(home, "aws-src.bin");
    const dst = join(home, "aws-dst.bin");
    await writeFile(src, data);
    await aws(p.alpha, "s3", "cp", src, "s3://alpha/aws/big.bin");
    expect(p.counts.get("PUT /{bucket}/{key}?partNumber&uploadId")).toBeGreaterThanOrEqual(2);
    await aws(p.alpha, "s3", "cp", "s3://alpha/aws/big.bin", dst);
    expect(md5(await readFile(dst))).toBe(md5(data));
    await aws(p.alpha, "s3", "cp", join(home, "aws-src.bin"), "s3://alpha/aws/dir/nested.bin");
    const listing = await aws(p.alpha, "s3", "ls", "s3://alpha/aws/");
    expect(listing.stdout).toMatch(/PRE dir\//);
    expect(listing.stdout).toMatch(/20971520 big\.bin/);
    await aws(p.alpha, "s3", "rm", "--recursive", "s3://alpha/aws/");
    expect((await aws(p.alpha, "s3", "ls", "s3://alpha/aws/").catch((e: { stdout: string }) => e)).stdout).toBe("");
  });

  it("fails with a wrong secret", async () => {
    const err = (await aws(
      { accessKeyId: p.alpha.accessKeyId, secretAccessKey: "wrong" },
      "s3",
      "ls",
      "s3://alpha/",
    ).then(
      () => undefined,
      (e: { stderr: string }) => e,
    ))!;
    expect(err).toBeDefined();
    expect(err.stderr).toContain("SignatureDoesNotMatch");
  });
});

describe("s3cmd", () => {
  async function s3cmd(credential: Pick<TestCredential, "accessKeyId" | "secretAccessKey">, ...args: string[]) {
    const host = new URL(p.url).host;
    const config = join(home, "s3cfg");
    await writeFile(
      config,
      [
        "[default]",
        `access_key = ${credential.accessKeyId}`,
        `secret_key = ${credential.secretAccessKey}`,
        `host_base = ${host}`,
        `host_bucket = ${host}`,
        "use_https = False",
        "signature_v2 = False",
        "bucket_location = us-east-1",
        "",
      ].join("\n"),
    );
    return exec("s3cmd", ["-c", config, "--no-ssl", `--host=${host}`, `--host-bucket=${host}`, ...args], baseEnv());
  }

  it("puts, lists, gets and deletes", async () => {
    const data = randomFile(300_000);
    const src = join(home, "s3cmd-src.bin");
    const dst = join(home, "s3cmd-dst.bin");
    await writeFile(src, data);
    await s3cmd(p.alpha, "put", src, "s3://alpha/s3cmd/file.bin");
    const listing = await s3cmd(p.alpha, "ls", "s3://alpha/s3cmd/");
    expect(listing.stdout).toContain("s3://alpha/s3cmd/file.bin");
    await s3cmd(p.alpha, "get", "--force", "s3://alpha/s3cmd/file.bin", dst);
    expect(md5(await readFile(dst))).toBe(md5(data));
    await s3cmd(p.alpha, "del", "s3://alpha/s3cmd/file.bin");
    expect((await s3cmd(p.alpha, "ls", "s3://alpha/s3cmd/")).stdout.trim()).toBe("");
  });

  it("fails with a wrong secret", async () => {
    const err = await s3cmd({ accessKeyId: p.alpha.accessKeyId, secretAccessKey: "wrong" }, "ls", "s3://alpha/").then(
      () => undefined,
      (e: { stderr: string }) => e,
    );
    expect(err?.stderr).toMatch(/SignatureDoesNotMatch|403/);
  });
});

describe("rclone", () => {
  function rclone(credential: Pick<TestCredential, "accessKeyId" | "secretAccessKey">, ...args: string[]) {
    return exec(
      "rclone",
      ["--config", join(home, "rclone.conf"), "--retries", "1", "--low-level-retries", "1", ...args],
      {
        ...baseEnv(),
        RCLONE_CONFIG_EMU_TYPE: "s3",
        RCLONE_CONFIG_EMU_PROVIDER: "Other",
        RCLONE_CONFIG_EMU_ENDPOINT: p.url,
        RCLONE_CONFIG_EMU_REGION: "us-east-1",
        RCLONE_CONFIG_EMU_FORCE_PATH_STYLE: "true",
        RCLONE_CONFIG_EMU_ACCESS_KEY_ID: credential.accessKeyId,
        RCLONE_CONFIG_EMU_SECRET_ACCESS_KEY: credential.secretAccessKey,
      },
    );
  }

  it("copies up and down, lists and deletes", async () => {
    const data = randomFile(1_000_000);
    const src = join(home, "rclone-src.bin");
    await writeFile(src, data);
    await rclone(p.alpha, "copyto", src, "emu:alpha/rclone/file.bin");
    expect((await rclone(p.alpha, "lsf", "emu:alpha/rclone/")).stdout.trim()).toBe("file.bin");
    const dst = join(home, "rclone-dst.bin");
    await rclone(p.alpha, "copyto", "emu:alpha/rclone/file.bin", dst);
    expect(md5(await readFile(dst))).toBe(md5(data));
    await rclone(p.alpha, "deletefile", "emu:alpha/rclone/file.bin");
    expect((await rclone(p.alpha, "lsf", "emu:alpha/rclone/")).stdout.trim()).toBe("");
  });

  it("fails with a wrong secret", async () => {
    const err = await rclone({ accessKeyId: p.alpha.accessKeyId, secretAccessKey: "wrong" }, "lsf", "emu:alpha/").then(
      () => undefined,
      (e: { stderr: string }) => e,
    );
    expect(err?.stderr).toMatch(/SignatureDoesNotMatch|403/);
  });
});
