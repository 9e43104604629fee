/**
 * Independent S3 clients from Debian (awscli, s3cmd, rclone) against the plane: round trips,
 * multipart, listing, deletion, and refusal of a wrong secret. Each runs with HOME and its config
 * files in a temp dir, so nothing outside the test is read or written. A client that is not
 * installed skips its tests (fails them under CI).
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needs, programFailure, runProgram, type RunOptions } from "../../test/support/tools.mts";
import { startPlane, type RunningPlane, type TestCredential } from "./s3-helpers.js";

let p: RunningPlane;
let home: string;

beforeAll(async () => {
  p = await startPlane();
  home = await mkdtemp(join(tmpdir(), "s3-clients-"));
});
afterAll(async () => {
  await p?.close();
  if (home) await rm(home, { recursive: true, force: true });
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

type Credential = Pick<TestCredential, "accessKeyId" | "secretAccessKey">;
/** One call of a client: the program, its arguments, and its options (environment). */
type Call = [file: string, args: string[], options: RunOptions];
const wrongSecret = (): Credential => ({ accessKeyId: p.alpha.accessKeyId, secretAccessKey: "wrong" });

describe("awscli", needs("aws"), () => {
  function aws(credential: Credential, ...args: string[]): Call {
    const env = {
      ...baseEnv(),
      AWS_CONFIG_FILE: join(home, "aws-config"),
      AWS_SHARED_CREDENTIALS_FILE: join(home, "aws-credentials-none"),
      AWS_ACCESS_KEY_ID: credential.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credential.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: "true",
    };
    return ["aws", [...args, "--endpoint-url", p.url], { env }];
  }
  beforeAll(() =>
    writeFile(join(home, "aws-config"), "[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n"),
  );

  it("copies a 20 MB file up (multipart) and down, lists and removes it", async () => {
    const data = randomFile(20 * 1024 * 1024);
    const src = join(home, "aws-src.bin");
    const dst = join(home, "aws-dst.bin");
    await writeFile(src, data);
    await runProgram(...aws(p.alpha, "s3", "cp", src, "s3://alpha/aws/big.bin"));
    expect(p.counts.get("PUT /{bucket}/{key}?partNumber&uploadId")).toBeGreaterThanOrEqual(2);
    await runProgram(...aws(p.alpha, "s3", "cp", "s3://alpha/aws/big.bin", dst));
    expect(md5(await readFile(dst))).toBe(md5(data));
    await runProgram(...aws(p.alpha, "s3", "cp", join(home, "aws-src.bin"), "s3://alpha/aws/dir/nested.bin"));
    const listing = await runProgram(...aws(p.alpha, "s3", "ls", "s3://alpha/aws/"));
    expect(listing.stdout).toMatch(/PRE dir\//);
    expect(listing.stdout).toMatch(/20971520 big\.bin/);
    await runProgram(...aws(p.alpha, "s3", "rm", "--recursive", "s3://alpha/aws/"));
    // `aws s3 ls` of an empty prefix exits 1 and prints nothing.
    expect((await programFailure(...aws(p.alpha, "s3", "ls", "s3://alpha/aws/"))).stdout).toBe("");
  });

  it("fails with a wrong secret", async () => {
    const failure = await programFailure(...aws(wrongSecret(), "s3", "ls", "s3://alpha/"));
    expect(failure.stderr).toContain("SignatureDoesNotMatch");
  });
});

describe("s3cmd", needs("s3cmd"), () => {
  function s3cmd(credential: Credential, ...args: string[]): Call {
    const host = new URL(p.url).host;
    const config = join(home, "s3cfg");
    writeFileSync(
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
    return [
      "s3cmd",
      ["-c", config, "--no-ssl", `--host=${host}`, `--host-bucket=${host}`, ...args],
      { env: baseEnv() },
    ];
  }

  it("puts, lists, gets and deletes", async () => {
    const data = randomFile(300_000);
    const src = join(home, "s3cmd-src.bin");
    const dst = join(home, "s3cmd-dst.bin");
    await writeFile(src, data);
    await runProgram(...s3cmd(p.alpha, "put", src, "s3://alpha/s3cmd/file.bin"));
    const listing = await runProgram(...s3cmd(p.alpha, "ls", "s3://alpha/s3cmd/"));
    expect(listing.stdout).toContain("s3://alpha/s3cmd/file.bin");
    await runProgram(...s3cmd(p.alpha, "get", "--force", "s3://alpha/s3cmd/file.bin", dst));
    expect(md5(await readFile(dst))).toBe(md5(data));
    await runProgram(...s3cmd(p.alpha, "del", "s3://alpha/s3cmd/file.bin"));
    expect((await runProgram(...s3cmd(p.alpha, "ls", "s3://alpha/s3cmd/"))).stdout.trim()).toBe("");
  });

  it("fails with a wrong secret", async () => {
    const failure = await programFailure(...s3cmd(wrongSecret(), "ls", "s3://alpha/"));
    expect(failure.stderr).toMatch(/SignatureDoesNotMatch|403/);
  });
});

describe("rclone", needs("rclone"), () => {
  function rclone(credential: Credential, ...args: string[]): Call {
    const env = {
      ...baseEnv(),
      RCLONE_CONFIG_EMU_TYPE: "s3",
      RCLONE_CONFIG_EMU_PROVIDER: "Other",
      RCLONE_CONFIG_EMU_ENDPOINT: p.url,
      RCLONE_CONFIG_EMU_REGION: "us-east-1",
      RCLONE_CONFIG_EMU_FORCE_PATH_STYLE: "true",
      RCLONE_CONFIG_EMU_ACCESS_KEY_ID: credential.accessKeyId,
      RCLONE_CONFIG_EMU_SECRET_ACCESS_KEY: credential.secretAccessKey,
    };
    const options = ["--config", join(home, "rclone.conf"), "--retries", "1", "--low-level-retries", "1"];
    return ["rclone", [...options, ...args], { env }];
  }

  it("copies up and down, lists and deletes", async () => {
    const data = randomFile(1_000_000);
    const src = join(home, "rclone-src.bin");
    await writeFile(src, data);
    await runProgram(...rclone(p.alpha, "copyto", src, "emu:alpha/rclone/file.bin"));
    expect((await runProgram(...rclone(p.alpha, "lsf", "emu:alpha/rclone/"))).stdout.trim()).toBe("file.bin");
    const dst = join(home, "rclone-dst.bin");
    await runProgram(...rclone(p.alpha, "copyto", "emu:alpha/rclone/file.bin", dst));
    expect(md5(await readFile(dst))).toBe(md5(data));
    await runProgram(...rclone(p.alpha, "deletefile", "emu:alpha/rclone/file.bin"));
    expect((await runProgram(...rclone(p.alpha, "lsf", "emu:alpha/rclone/"))).stdout.trim()).toBe("");
  });

  it("fails with a wrong secret", async () => {
    const failure = await programFailure(...rclone(wrongSecret(), "lsf", "emu:alpha/"));
    expect(failure.stderr).toMatch(/SignatureDoesNotMatch|403/);
  });
});
