// What the state-backend end-to-end files share (state-backend*.test.ts): docs/state-backend.md's
// sections, the variables its section 2 sets, the Pulumi CLI run with nothing of the developer's
// shell, and the state bucket read back for secrets in clear.
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import path from "node:path";
import { expect } from "vitest";
import { recordUse, sectionBlocks, type DocBlock } from "../../support/doc-blocks.mts";
import { runProgram } from "../../support/tools.mts";
import type { Emulator } from "../../support/emulator.js";
import { repoRoot } from "./plugin-cli.js";

/**
 * The fenced blocks of docs/state-backend.md's section `## <heading>`, in order. A test that runs one
 * of them as written passes it through `ran`, so that the documentation's coverage counts it.
 */
export function docBlocks(heading: string): DocBlock[] {
  return sectionBlocks("docs/state-backend.md", heading, 2);
}

/** `block`, recorded as run by the current test (test/support/doc-blocks.mts). */
export function ran(block: DocBlock): DocBlock {
  recordUse([block], "ran", expect.getState().testPath ?? "test/e2e/state-backend.test.ts");
  return block;
}

export const BUCKET = "team-state";
const PASSPHRASE = "state-backend-e2e-passphrase";
export const tlsDir = path.join(repoRoot, "test", "unit", "fixtures", "upload-tls");
export const certFile = path.join(tlsDir, "cert.pem");

type Transport = "http" | "https";
type ChecksumValue = "when_supported" | "when_required" | undefined;
export interface Mode {
  readonly transport: Transport;
  readonly request: ChecksumValue;
  readonly response: ChecksumValue;
}

export interface KeyPair {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** The variables of the doc's section 2, plus a checksum mode and, for https, the test CA. */
export function stateEnv(pair: KeyPair, mode: Mode = { transport: "http", request: undefined, response: undefined }) {
  return {
    AWS_ACCESS_KEY_ID: pair.accessKeyId,
    AWS_SECRET_ACCESS_KEY: pair.secretAccessKey,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    // The machine's own bundle must not be used, nor a setting of the developer's shell: "" is unset.
    AWS_CA_BUNDLE: certFile,
    AWS_REQUEST_CHECKSUM_CALCULATION: mode.request ?? "",
    AWS_RESPONSE_CHECKSUM_VALIDATION: mode.response ?? "",
  };
}

export interface Cli {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The Pulumi CLI of `binDir` itself in `cwd`, with HOME `home`, PULUMI_HOME `pulumiHome` and
 * nothing of the developer's shell.
 */
export function pulumiCli(
  binDir: string,
  home: string,
): (cwd: string, pulumiHome: string, env: Record<string, string>, args: readonly string[]) => Promise<Cli> {
  return (cwd, pulumiHome, env, args) =>
    runProgram(path.join(binDir, "pulumi"), args, {
      cwd,
      timeoutMs: 300_000,
      env: {
        PATH: [binDir, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
        HOME: home,
        PULUMI_HOME: pulumiHome,
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        ...Object.fromEntries(Object.entries(env).filter(([, value]) => value !== "")),
      },
    });
}

/** Every line a run printed that warns, whatever the casing ("WARN", "warning:"). */
export const warnings = (...printed: (string | undefined)[]) =>
  printed.flatMap((text) => (text ?? "").split("\n")).filter((line) => /warn/i.test(line));

export function s3(emulator: Emulator, pair: KeyPair): S3Client {
  return new S3Client({
    endpoint: emulator.s3Url,
    region: "us-east-1",
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: pair,
  });
}

/** The bucket's keys and the bytes of each, read with the state credential. */
async function readBucket(emulator: Emulator, pair: KeyPair): Promise<Map<string, Buffer>> {
  const client = s3(emulator, pair);
  const objects = new Map<string, Buffer>();
  try {
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
      for (const { Key } of page.Contents ?? []) {
        const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
        objects.set(Key!, Buffer.from(await got.Body!.transformToByteArray()));
      }
      token = page.NextContinuationToken;
    } while (token);
  } finally {
    client.destroy();
  }
  return objects;
}

/**
 * The state bucket holds `stateKey` and nothing secret in clear: not the API key, the token, nor
 * any of `secrets` (every S3 secret the stacks' credentials had, more than five).
 */
export async function expectNoSecretInBucket(
  emulator: Emulator,
  pair: KeyPair,
  stateKey: string,
  secrets: ReadonlySet<string>,
): Promise<void> {
  const objects = await readBucket(emulator, pair);
  expect([...objects.keys()]).toEqual(expect.arrayContaining([".pulumi/meta.yaml", stateKey]));
  const clear = { apiKey: emulator.apiKey, token: emulator.token };
  for (const [key, bytes] of objects) {
    const text = bytes.toString("utf8");
    for (const [what, value] of Object.entries(clear)) expect(text.includes(value), `${what} in ${key}`).toBe(false);
    for (const secret of secrets) expect(text.includes(secret), `an S3 secret in ${key}`).toBe(false);
  }
  expect(secrets.size).toBeGreaterThan(5);
}

export interface Deployment {
  deployment: {
    resources: Array<{ urn: string; type: string; outputs?: Record<string, unknown> }>;
    pending_operations?: unknown[];
  };
}
