// docs/state-backend.md followed as written, with the real Pulumi CLI against the emulator: the
// bootstrap stack (the doc's own program) on a file:// backend, `pulumi login` to the platform's S3
// with the pair it outputs, a stack of examples/quickstart created, updated, listed and exported
// from two working copies (two folders, two PULUMI_HOMEs), every checksum mode of the backend's S3
// client over http and https (a TLS front with the test certificate), a 20 MiB state in parts, the
// objects read back for secrets, a lock taken with a conditional write, the by-hand recipe with
// curl, and a rotation of the state credential. Two `up`s racing round after round (the doc's
// section 3) are in state-backend-race.test.ts: nothing here waits on the clock.
// `up`s run through the Automation API (no Node.js language host on these machines), on the backend
// `pulumi login` saved; every other step is the CLI itself.
import { DeleteObjectCommand, HeadObjectCommand, PutObjectCommand, S3ServiceException } from "@aws-sdk/client-s3";
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
import { changesOtherThanSame, ExampleStack, output } from "../support/runner.js";
import {
  BUCKET,
  certFile,
  docBlocks,
  ran,
  expectNoSecretInBucket,
  pulumiCli,
  s3,
  stateEnv,
  tlsDir,
  warnings,
  type Cli,
  type Deployment,
  type KeyPair,
  type Mode,
} from "./support/state-backend.js";

const modeName = (m: Mode) => `${m.transport} request=${m.request ?? "default"} response=${m.response ?? "default"}`;

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

/** The Pulumi CLI itself in `cwd`, with PULUMI_HOME `home` and nothing of the developer's shell. */
function pulumi(cwd: string, home: string, env: Record<string, string>, args: readonly string[]): Promise<Cli> {
  return pulumiCli(binDir, scratch)(cwd, home, env, args);
}

/** The size of an object and the checksum the bucket keeps for it: "crc32" (or "crc32:composite"), "crc64nvme", … */
async function headOf(pair: KeyPair, key: string): Promise<{ size: number; checksum: string }> {
  const client = s3(emulator, pair);
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
    const program = ran(docBlocks("1. A bucket and a credential for the state").find((b) => b.language === "ts")!);
    const dir = path.join(scratch, "programs", "state-bootstrap");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "index.ts"), program.text);
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
    // The address is the doc's, and the login is made with it (below): the block runs as written.
    const login = ran(docBlocks("2. Log in, then work as usual")[0]!).text;
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
    const clients = Array.from({ length: 16 }, () => s3(emulator, pair));
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
      const [create, credential] = ran(
        docBlocks("1. A bucket and a credential for the state")
          .filter((b) => b.language === "sh")
          .at(-1)!,
      ).text.split(/\n(?=curl )/);
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
    await expectNoSecretInBucket(emulator, pair, stateKey, secrets);
  });
});
