// docs/state-backend.md followed as written, with the real Pulumi CLI against the emulator: the
// bootstrap stack (the doc's own program) on a file:// backend, `pulumi login` to the platform's S3
// with the pair it outputs, a stack of examples/quickstart created, updated, listed and exported
// from two working copies (two folders, two PULUMI_HOMEs), two `up`s racing round after round,
// every checksum mode of the backend's S3 client over http and https (a TLS front with the test
// certificate), a 20 MiB state in parts, the objects read back for secrets, a lock taken with a
// conditional write, the by-hand recipe with curl, and a rotation of the state credential.
// `up`s run through the Automation API (no Node.js language host on these machines), on the backend
// `pulumi login` saved; every other step is the CLI itself.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needs, programFailure, runProgram } from "../support/tools.mts";
import { launchEmulator, providerConfig, type Emulator } from "../support/emulator.js";
import { pulumiBinDir, repoRoot } from "./support/plugin-cli.js";
import { changesOtherThanSame, ExampleStack, output, type Config } from "../support/runner.js";
import { Platform } from "../support/platform.mts";

const doc = readFileSync(path.join(repoRoot, "docs", "state-backend.md"), "utf8");

/** The fenced blocks of the doc's section `## <heading>`, in order. */
function docBlocks(heading: string): { language: string; text: string }[] {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/state-backend.md has no section "## ${heading}"`);
  const rest = doc.slice(start + heading.length + 5);
  const next = rest.search(/\n## /);
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ language: m[1]!, text: m[2]! }));
}

const BUCKET = "team-state";
/**
 * More than an `up` needs from its start to its lock (starting the CLI, reading the stack): two `up`s
 * that ran together longer than this both held the lock at once.
 */
const REACH_LOCK_SECONDS = 5;
const PASSPHRASE = "state-backend-e2e-passphrase";
const tlsDir = path.join(repoRoot, "test", "unit", "fixtures", "upload-tls");
const certFile = path.join(tlsDir, "cert.pem");

type Transport = "http" | "https";
type ChecksumValue = "when_supported" | "when_required" | undefined;
interface Mode {
  readonly transport: Transport;
  readonly request: ChecksumValue;
  readonly response: ChecksumValue;
}
const modeName = (m: Mode) => `${m.transport} request=${m.request ?? "default"} response=${m.response ?? "default"}`;

interface KeyPair {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

let emulator: Emulator;
let tls: TlsServer;
let tlsPort: number;
/** Set when the decrypted https traffic carried an aws-chunked checksum trailer. */
let trailerSeen = false;
let scratch: string;
let binDir: string;

/**
 * An https endpoint in front of the emulator's S3 port, as the platform is: it ends TLS and passes
 * the bytes on, watching them for a trailing checksum (which the backend's client sends only over TLS).
 */
async function startTlsFront(): Promise<void> {
  tls = createTlsServer({ cert: readFileSync(certFile), key: readFileSync(path.join(tlsDir, "key.pem")) }, (client) => {
    const upstream = connect(Number(new URL(emulator.s3Url).port), "127.0.0.1");
    let tail = "";
    client.on("data", (chunk: Buffer) => {
      const text = tail + chunk.toString("latin1");
      if (/x-amz-trailer:\s*x-amz-checksum-crc32/i.test(text)) trailerSeen = true;
      tail = text.slice(-200);
    });
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
  tlsPort = (tls.address() as { port: number }).port;
}

/** The variables of the doc's section 2, plus a checksum mode and, for https, the test CA. */
function stateEnv(pair: KeyPair, mode: Mode = { transport: "http", request: undefined, response: undefined }) {
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

interface Cli {
  readonly stdout: string;
  readonly stderr: string;
}

/** The Pulumi CLI itself in `cwd`, with PULUMI_HOME `home` and nothing of the developer's shell. */
function pulumi(cwd: string, home: string, env: Record<string, string>, args: readonly string[]): Promise<Cli> {
  return runProgram(path.join(binDir, "pulumi"), args, {
    cwd,
    timeoutMs: 300_000,
    env: {
      PATH: [binDir, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
      HOME: scratch,
      PULUMI_HOME: home,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      ...Object.fromEntries(Object.entries(env).filter(([, value]) => value !== "")),
    },
  });
}

/** Every line a run printed that warns, whatever the casing ("WARN", "warning:"). */
const warnings = (...printed: (string | undefined)[]) =>
  printed.flatMap((text) => (text ?? "").split("\n")).filter((line) => /warn/i.test(line));

function s3(pair: KeyPair): S3Client {
  return new S3Client({
    endpoint: emulator.s3Url,
    region: "us-east-1",
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: pair,
  });
}

/** The bucket's keys and the bytes of each, read with the state credential. */
async function readBucket(pair: KeyPair): Promise<Map<string, Buffer>> {
  const client = s3(pair);
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

/** The size of an object and the checksum the bucket keeps for it: "crc32" (or "crc32:composite"), "crc64nvme", … */
async function headOf(pair: KeyPair, key: string): Promise<{ size: number; checksum: string }> {
  const client = s3(pair);
  try {
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: "ENABLED" }));
    const found = (["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"] as const).filter(
      (a) => head[`Checksum${a}`] !== undefined,
    );
    const checksum = found.map((a) => a.toLowerCase() + (head.ChecksumType === "COMPOSITE" ? ":composite" : ""));
    return { size: head.ContentLength ?? 0, checksum: checksum.join(",") };
  } finally {
    client.destroy();
  }
}

interface Deployment {
  deployment: {
    resources: Array<{ urn: string; type: string; outputs?: Record<string, unknown> }>;
    pending_operations?: unknown[];
  };
}

beforeAll(async () => {
  emulator = await launchEmulator();
  await startTlsFront();
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-state-backend-"));
  binDir = await pulumiBinDir();
});
afterAll(async () => {
  await new Promise<void>((resolve) => (tls ? tls.close(() => resolve()) : resolve()));
  await emulator?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("Pulumi's S3 state backend on a bucket of the platform (docs/state-backend.md)", () => {
  let bootstrap: ExampleStack;
  let pair: KeyPair;
  let httpUrl: string;
  let httpsUrl: string;
  const copies: ExampleStack[] = [];
  /** Every S3 secret the stacks' credentials had, to look for in the bucket. */
  const secrets = new Set<string>();
  const project = "cloudplatform-quickstart";
  const stateKey = `.pulumi/stacks/${project}/e2e.json`;
  /** The storage class the stack's bucket has now: every update below changes it (a replacement). */
  let storageClass = "Standard";

  afterAll(async () => {
    for (const copy of copies) await copy.dispose();
    await bootstrap?.dispose();
  });

  it("makes the state bucket and credential with the doc's bootstrap program, on a file:// backend", async () => {
    const [program] = docBlocks("1. A bucket and a credential for the state").filter((b) => b.language === "ts");
    const dir = path.join(scratch, "programs", "state-bootstrap");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "index.ts"), program!.text);
    await writeFile(path.join(dir, "Pulumi.yaml"), "name: state-bootstrap\nruntime:\n  name: nodejs\n");
    for (const file of ["package.json", "tsconfig.json"]) {
      await copyFile(path.join(repoRoot, "examples", "quickstart", file), path.join(dir, file));
    }
    bootstrap = await ExampleStack.create("state-bootstrap", providerConfig(emulator), {
      sourceRoot: path.dirname(dir),
    });
    const up = await bootstrap.up({ "state-bootstrap:stateBucket": { value: BUCKET } });
    expect(up.changes).toMatchObject({ create: 3 });
    expect(up.outputs?.["secretAccessKey"]?.secret).toBe(true);
    pair = { accessKeyId: output(up, "accessKeyId"), secretAccessKey: output(up, "secretAccessKey") };
    secrets.add(pair.secretAccessKey);

    // The address is the doc's, for this endpoint: path-style, us-east-1, disableSSL for http only.
    const login = docBlocks("2. Log in, then work as usual")[0]!.text;
    const documented = /pulumi login '([^']+)'/.exec(login)![1]!;
    const host = new URL(emulator.s3Url).host;
    httpUrl = output(up, "loginUrl");
    expect(httpUrl).toBe(
      `${documented.replace("acme-pulumi-state", BUCKET).replace("s3.example-platform.com", host)}&disableSSL=true`,
    );
    httpsUrl = documented
      .replace("acme-pulumi-state", BUCKET)
      .replace("s3.example-platform.com", `127.0.0.1:${tlsPort}`);
    for (const variable of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "PULUMI_CONFIG_PASSPHRASE"]) {
      expect(login).toContain(`export ${variable}=`);
    }
    // The README's summary gives the same address and variables.
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## Your team's Pulumi state on the platform\n"));
    expect(section.slice(0, section.indexOf("\n## ", 5))).toContain(login.split("\n").slice(0, 4).join("\n"));
  });

  it("creates, updates, lists and exports one stack from two working copies, without a warning", async () => {
    const env = stateEnv(pair);
    for (let i = 0; i < 2; i++) {
      const copy = await ExampleStack.create("quickstart", providerConfig(emulator));
      copies.push(copy);
      const loggedIn = await pulumi(copy.workDir, copy.homeDir, env, ["login", httpUrl]);
      expect(loggedIn.stdout).toContain(`Logged in to`);
      expect(warnings(loggedIn.stderr)).toEqual([]);
      copy.useLoggedInBackend(env);
    }
    const [a, b] = copies as [ExampleStack, ExampleStack];

    const init = await pulumi(a.workDir, a.homeDir, env, ["stack", "init", "e2e"]);
    const created = await a.up();
    expect(created.changes).toMatchObject({ create: 3 });
    secrets.add(output(created, "secretAccessKey"));
    // The second working copy: a clone of the first (Pulumi.e2e.yaml committed), its own PULUMI_HOME.
    await copyFile(path.join(a.workDir, "Pulumi.e2e.yaml"), path.join(b.workDir, "Pulumi.e2e.yaml"));
    const listed = await pulumi(b.workDir, b.homeDir, env, ["stack", "ls"]);
    expect(listed.stdout).toMatch(/^e2e\s/m);
    await pulumi(b.workDir, b.homeDir, env, ["stack", "select", "e2e"]);
    const same = await b.up();
    expect(changesOtherThanSame(same)).toEqual({});
    storageClass = "InfrequentAccess";
    const updated = await b.up({ "cloudplatform-quickstart:storageClass": { value: storageClass } });
    expect(updated.changes).toMatchObject({ replace: 2 });
    secrets.add(output(updated, "secretAccessKey"));
    const fromA = await a.exportState();
    const fromB = await b.exportState();
    expect(JSON.parse(fromA)).toEqual(JSON.parse(fromB));
    const bucketState = (JSON.parse(fromA) as Deployment).deployment.resources.find((r) => r.type.endsWith(":Bucket"));
    expect(bucketState?.outputs?.["storageClass"]).toBe("InfrequentAccess");
    expect(warnings(init.stderr, listed.stderr, created.stderr, same.stderr, updated.stderr)).toEqual([]);
  });

  it("runs never both of two `up`s started at the same moment; a refused one says the stack is locked, a retry runs", async () => {
    const [a, b] = copies as [ExampleStack, ExampleStack];
    const lockMessage = docBlocks("3. Two `up`s at once: the lock")[0]!
      .text.split("\n")[0]!
      .replace(/^error: /, "");
    // Each management call takes 2 s, so that an `up` holds the lock for 8 s or more: the two start
    // well within that of each other, as two people or two CI jobs pressing enter at once.
    await new Platform(emulator).setFaults({ latencyMs: 2000, routes: "/object-storage/" });
    /** An `up` and when it ran, on this process's clock: [end - its duration, end]. */
    const timedUp = async (copy: ExampleStack, config: Config) => {
      const result = await copy.upFailing(config);
      const end = Date.now() / 1000;
      return { result, start: end - (result.seconds ?? 0), end };
    };
    const tally = { oneWon: 0, bothRefused: 0, apart: 0 };
    try {
      for (let round = 0; tally.oneWon + tally.bothRefused < 4; round++) {
        expect(round, "rounds whose two ups did not run together").toBeLessThan(8);
        storageClass = storageClass === "Standard" ? "InfrequentAccess" : "Standard";
        const config = { "cloudplatform-quickstart:storageClass": { value: storageClass } };
        const [ra, rb] = await Promise.all([timedUp(a, config), timedUp(b, config)]);
        const results = [ra.result, rb.result];
        if (ra.result.ok && rb.result.ok) {
          // Both ran: legitimate only if one had finished before the other reached its lock, which
          // takes an `up` less than REACH_LOCK_SECONDS; such a round did not race, and is run again.
          const together = Math.min(ra.end, rb.end) - Math.max(ra.start, rb.start);
          expect(together, `round ${round}: both ups succeeded while running together`).toBeLessThan(
            REACH_LOCK_SECONDS,
          );
          tally.apart++;
          secrets.add(output(rb.result, "secretAccessKey"));
          continue;
        }
        for (const refused of results.filter((r) => !r.ok)) {
          expect(refused.error).toContain(lockMessage);
          expect(refused.error).toMatch(
            new RegExp(
              `s3://${BUCKET}/\\.pulumi/locks/organization/${project}/e2e/[0-9a-f-]{36}\\.json\\?\\S*: created by \\S+ \\(pid \\d+\\) at `,
            ),
          );
          expect(warnings(refused.error)).toEqual([]);
        }
        const winner = results.find((r) => r.ok);
        if (winner) {
          tally.oneWon++;
          secrets.add(output(winner, "secretAccessKey"));
          expect(warnings(winner.stderr)).toEqual([]);
        } else tally.bothRefused++;
        // The refused one, run again, goes through (with nothing left to do when the other won).
        const retry = await (ra.result.ok ? b : a).up(config);
        secrets.add(output(retry, "secretAccessKey"));
        if (winner) expect(changesOtherThanSame(retry)).toEqual({});
        expect(warnings(retry.stderr)).toEqual([]);
      }
    } finally {
      await new Platform(emulator).setFaults({});
    }
    console.info(
      `two ups at once: one ran ${tally.oneWon}, both refused ${tally.bothRefused}, ran apart (not counted) ${tally.apart}`,
    );

    // The state is whole: it parses, holds every resource, none pending, and matches the platform.
    const exported = JSON.parse(await a.exportState()) as Deployment;
    const types = exported.deployment.resources.map((r) => r.type);
    expect(types).toEqual(expect.arrayContaining(["pulumi:pulumi:Stack", "pulumi:providers:pulumi-nodejs"]));
    expect(types.filter((t) => t.endsWith(":Bucket"))).toHaveLength(1);
    expect(types.filter((t) => t.endsWith(":BucketCredential"))).toHaveLength(1);
    expect(exported.deployment.pending_operations ?? []).toEqual([]);
    const bucket = exported.deployment.resources.find((r) => r.type.endsWith(":Bucket"))!;
    expect(bucket.outputs?.["storageClass"]).toBe(storageClass);
    const inventory = await new Platform(emulator).objects();
    expect(inventory.buckets.map((x) => x.name).sort()).toEqual([BUCKET, bucket.outputs?.["name"]].sort());
    // `pulumi preview --expect-no-changes`, from either working copy.
    for (const copy of [a, b]) {
      const preview = await copy.preview({ "cloudplatform-quickstart:storageClass": { value: storageClass } });
      expect(changesOtherThanSame(preview)).toEqual({});
      expect(warnings(preview.stderr)).toEqual([]);
    }
  });

  const modes: Mode[] = (["http", "https"] as const).flatMap((transport) => [
    { transport, request: undefined, response: undefined },
    { transport, request: "when_supported", response: "when_supported" },
    { transport, request: "when_supported", response: "when_required" },
    { transport, request: "when_required", response: "when_supported" },
    { transport, request: "when_required", response: "when_required" },
  ]);

  it("logs in, updates, exports and lists in every checksum mode of the backend, over http and https, without a warning", async () => {
    const [a] = copies as [ExampleStack];
    for (const mode of modes) {
      const env = stateEnv(pair, mode);
      trailerSeen = false;
      const login = await pulumi(a.workDir, a.homeDir, env, ["login", mode.transport === "http" ? httpUrl : httpsUrl]);
      a.useLoggedInBackend(env);
      storageClass = storageClass === "Standard" ? "InfrequentAccess" : "Standard";
      const up = await a.up({ "cloudplatform-quickstart:storageClass": { value: storageClass } });
      expect(up.changes, modeName(mode)).toMatchObject({ replace: 2 });
      secrets.add(output(up, "secretAccessKey"));
      const exported = await a.exportResult();
      const deployment = JSON.parse(exported.exported ?? "") as Deployment;
      expect(deployment.deployment.resources.find((r) => r.type.endsWith(":Bucket"))?.outputs?.["storageClass"]).toBe(
        storageClass,
      );
      const listed = await pulumi(a.workDir, a.homeDir, env, ["stack", "ls"]);
      expect(listed.stdout).toMatch(/^e2e\*?\s/m);
      expect(warnings(login.stderr, up.stderr, exported.stderr, listed.stderr), modeName(mode)).toEqual([]);
      // What the client sent, as the bucket kept it: CRC32 when it calculates checksums it need not
      // (in a trailer over https), else nothing, and the object has the default CRC64NVME.
      const sentCrc32 = mode.request === "when_supported";
      expect((await headOf(pair, stateKey)).checksum, modeName(mode)).toBe(sentCrc32 ? "crc32" : "crc64nvme");
      expect(trailerSeen, modeName(mode)).toBe(sentCrc32 && mode.transport === "https");
    }
    a.useLoggedInBackend(stateEnv(pair));
    await pulumi(a.workDir, a.homeDir, stateEnv(pair), ["login", httpUrl]);
  });

  it("keeps a 20 MiB state, written in parts, whole", async () => {
    const [a] = copies as [ExampleStack];
    // Components need no provider: enough of them make a state of 20 MiB.
    const stack = `urn:pulumi:big::${project}::pulumi:pulumi:Stack::${project}-big`;
    const resources: Array<{ urn: string; custom: false; type: string; parent?: string; outputs?: { data: string } }> =
      [{ urn: stack, custom: false, type: "pulumi:pulumi:Stack" }];
    for (let i = 0; i < 5000; i++) {
      const data = randomBytes(2048).toString("hex");
      resources.push({
        urn: `urn:pulumi:big::${project}::test:index:Blob::blob-${i}`,
        custom: false,
        type: "test:index:Blob",
        parent: stack,
        outputs: { data },
      });
    }
    const file = path.join(scratch, "big.json");
    await writeFile(
      file,
      JSON.stringify({
        version: 3,
        deployment: { manifest: { time: new Date().toISOString(), magic: "", version: "" }, resources },
      }),
    );
    for (const mode of [
      { transport: "https", request: undefined, response: undefined },
      { transport: "https", request: "when_supported", response: "when_required" },
    ] as const) {
      const env = stateEnv(pair, mode);
      await pulumi(a.workDir, a.homeDir, env, ["login", httpsUrl]);
      const printed = [
        await pulumi(a.workDir, a.homeDir, env, ["stack", "init", "big"]),
        await pulumi(a.workDir, a.homeDir, env, ["stack", "import", "--file", file, "--stack", "big"]),
      ];
      const exported = await pulumi(a.workDir, a.homeDir, env, ["stack", "export", "--stack", "big"]);
      const back = (JSON.parse(exported.stdout) as Deployment).deployment.resources;
      expect(back.map((r) => r.outputs?.["data"])).toEqual(resources.map((r) => r.outputs?.data));
      expect(warnings(...printed.map((p) => p.stderr), exported.stderr), modeName(mode)).toEqual([]);
      const written = await headOf(pair, `.pulumi/stacks/${project}/big.json`);
      expect(written.size).toBeGreaterThan(20 * 1024 * 1024);
      expect(written.checksum).toBe(mode.request === "when_supported" ? "crc32:composite" : "crc64nvme");
      await pulumi(a.workDir, a.homeDir, env, ["stack", "rm", "--yes", "--force", "big"]);
      await pulumi(a.workDir, a.homeDir, env, ["stack", "select", "e2e"]);
    }
    await pulumi(a.workDir, a.homeDir, stateEnv(pair), ["login", httpUrl]);
  });

  it("takes a lock with a conditional write, as OpenTofu and Terraform do: one of 16 at once wins", async () => {
    const clients = Array.from({ length: 16 }, () => s3(pair));
    try {
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          clients.map((client, i) =>
            client
              .send(
                new PutObjectCommand({
                  Bucket: BUCKET,
                  Key: "tofu/terraform.tfstate.tflock",
                  Body: JSON.stringify({ ID: `taker-${i}` }),
                  IfNoneMatch: "*",
                }),
              )
              .then(
                () => "ok",
                (err: unknown) => (err instanceof S3ServiceException ? err.name : String(err)),
              ),
          ),
        );
        expect(results.filter((r) => r === "ok")).toHaveLength(1);
        expect(results.filter((r) => r === "PreconditionFailed")).toHaveLength(15);
        await clients[0]!.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: "tofu/terraform.tfstate.tflock" }));
      }
    } finally {
      for (const client of clients) client.destroy();
    }
  });

  it(
    "follows the by-hand recipe: curl makes a bucket and a credential the backend logs in with",
    needs("curl"),
    async () => {
      const [create, credential] = docBlocks("1. A bucket and a credential for the state")
        .filter((b) => b.language === "sh")
        .at(-1)!
        .text.split(/\n(?=curl )/);
      const reader = (text: string, bucketId = "") =>
        text
          .replaceAll("https://api.example-platform.com", emulator.baseUrl)
          .replaceAll("acme-pulumi-state", "acme-pulumi-state-by-hand")
          .replaceAll("bkt_…", bucketId)
          .replace(/\s+# →.*$/gm, "");
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", CLOUDPLATFORM_API_KEY: emulator.apiKey };
      const bucket = JSON.parse((await runProgram("bash", ["-c", reader(create!)], { env })).stdout) as { id: string };
      const made = JSON.parse((await runProgram("bash", ["-c", reader(credential!, bucket.id)], { env })).stdout) as {
        access_key_id: string;
        secret_access_key: string;
      };
      const byHand = { accessKeyId: made.access_key_id, secretAccessKey: made.secret_access_key };
      const [a] = copies as [ExampleStack];
      const home = path.join(scratch, "by-hand-home");
      const url = httpUrl.replace(BUCKET, "acme-pulumi-state-by-hand");
      const login = await pulumi(a.workDir, home, stateEnv(byHand), ["login", url]);
      const listed = await pulumi(a.workDir, home, stateEnv(byHand), ["stack", "ls"]);
      expect(listed.stdout.trim().split("\n")).toHaveLength(1); // the header: no stack yet
      expect(warnings(login.stderr, listed.stderr)).toEqual([]);
      // That pair opens its own bucket and not the team's.
      const other = await pulumi(a.workDir, home, stateEnv(byHand), ["login", httpUrl])
        .then(() => pulumi(a.workDir, home, stateEnv(byHand), ["stack", "ls"]))
        .then(
          () => "listed",
          (err: Error) => err.message,
        );
      expect(other).toMatch(/AccessDenied/);
    },
  );

  it("rotates the state credential by overlap: both keys work, then only the new one", async () => {
    const [a] = copies as [ExampleStack];
    const writers = (list: string[]) => ({ "state-bootstrap:writers": { value: JSON.stringify(list) } });
    const both = await bootstrap.up({ ...writers(["1", "2"]), "state-bootstrap:stateBucket": { value: BUCKET } });
    expect(both.changes).toMatchObject({ create: 1 });
    const next = { accessKeyId: output(both, "accessKeyId"), secretAccessKey: output(both, "secretAccessKey") };
    expect(next.accessKeyId).not.toBe(pair.accessKeyId);
    secrets.add(next.secretAccessKey);
    for (const key of [pair, next]) {
      expect((await pulumi(a.workDir, a.homeDir, stateEnv(key), ["stack", "ls"])).stdout).toMatch(/^e2e\*?\s/m);
    }
    a.useLoggedInBackend(stateEnv(next));
    expect(changesOtherThanSame(await a.up())).toEqual({});

    const only = await bootstrap.up({ ...writers(["2"]), "state-bootstrap:stateBucket": { value: BUCKET } });
    expect(only.changes).toMatchObject({ delete: 1 });
    expect(output(only, "accessKeyId")).toBe(next.accessKeyId);
    const refused = await programFailure(path.join(binDir, "pulumi"), ["stack", "ls"], {
      cwd: a.workDir,
      env: {
        PATH: [binDir, "/usr/bin", "/bin"].join(path.delimiter),
        HOME: scratch,
        PULUMI_HOME: a.homeDir,
        PULUMI_SKIP_UPDATE_CHECK: "true",
        ...Object.fromEntries(Object.entries(stateEnv(pair)).filter(([, v]) => v !== "")),
      },
    });
    expect(refused.stderr).toMatch(/InvalidAccessKeyId/);
    const exported = JSON.parse(await a.exportState()) as Deployment;
    expect(exported.deployment.resources.length).toBeGreaterThan(3);
    pair = next;
  });

  it("keeps no secret in clear in the bucket: not the API key, the token, nor any S3 secret", async () => {
    const objects = await readBucket(pair);
    expect([...objects.keys()]).toEqual(expect.arrayContaining([".pulumi/meta.yaml", stateKey]));
    const clear = { apiKey: emulator.apiKey, token: emulator.token };
    for (const [key, bytes] of objects) {
      const text = bytes.toString("utf8");
      for (const [what, value] of Object.entries(clear)) expect(text.includes(value), `${what} in ${key}`).toBe(false);
      for (const secret of secrets) expect(text.includes(secret), `an S3 secret in ${key}`).toBe(false);
    }
    expect(secrets.size).toBeGreaterThan(5);
  });
});
