// A Go program over the generated Go SDK (sdks/go), run by the real engine as Go users run one:
// Go Automation API inline programs (test/e2e/go, no language host needed), the provider plugin
// installed from its tarball with `pulumi plugin install --file`, nothing of this repository on
// PATH. Every resource type, a lookup, the credential's life (deactivate, rotate), a two-slot
// rotation, refresh, drift made outside, adoption of objects made outside, secrets kept secret,
// destroy. And the Go program of docs/languages.md, run exactly as its text says, and that of
// docs/_index.md, built as written. Go builds the program; the Transcript's speech needs espeak-ng,
// ffmpeg and pocketsphinx, and only the test that adds it declares them.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { management, providerConfig, type Emulator } from "../support/emulator.js";
import { emulatorState } from "../support/platform.mts";
import { packPlugin, PluginSandbox, repoRoot, toolDir } from "./support/plugin-cli.js";
import { readerScript, readmeBlocks } from "./support/readme.js";
import { sectionBlocks } from "../support/doc-blocks.mts";
import { bucketRequests, listKeys, readObject, requestsBetween } from "./support/objects.js";
import { roundTrip, type S3Access } from "./support/s3.js";
import { runProgram, needs } from "../support/tools.mts";
import { launchTranscriptEmulator, LoopbackReceiver, speak, transcriptTools } from "./support/transcript.js";

const run = promisify(execFile);

/** The program's parameters (test/e2e/go/main.go `Params`). */
interface Params {
  readonly zoneName: string;
  readonly lookupZone: string;
  readonly credentialActive: boolean;
  readonly credentialRotation: string;
  readonly pairRotation: string;
  readonly keyRotation: string;
  readonly transcriptUrl: string;
  readonly importBucketId?: string;
  readonly importBucketName?: string;
  readonly importCredentialId?: string;
  readonly siteDir?: string;
  readonly noteContent?: string;
}

interface Answer {
  readonly ok: boolean;
  readonly error?: string;
  readonly changes?: Record<string, number>;
  readonly outputs?: Record<string, { Value: unknown; Secret: boolean }>;
}

const goProgramDir = (): Promise<string> => toolDir("CLOUDPLATFORM_GO_E2E_BIN_DIR", "build-go-e2e.sh");

let emulator: Emulator;
let receiver: LoopbackReceiver;
let sandbox: PluginSandbox;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-go-"));
  const goBin = path.join((await runProgram("go", ["env", "GOROOT"])).stdout.trim(), "bin");
  [emulator, receiver, sandbox] = await Promise.all([
    launchTranscriptEmulator(),
    LoopbackReceiver.start(scratch),
    packPlugin(scratch).then((tarball) => PluginSandbox.create(tarball, [goBin])),
  ]);
});
afterAll(async () => {
  await receiver?.close();
  await emulator?.close();
  await sandbox?.dispose();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

// First: the scenario below rotates the project's API key, which the page's stack config names.
describe("the Go program of docs/languages.md, written as a reader would from that page alone", needs("go"), () => {
  let dir: string;
  let shell: (script: string) => Promise<string>;

  beforeAll(async () => {
    const [steps, mainGo] = await readmeBlocks("Go", "docs/languages.md");
    if (steps?.language !== "sh" || mainGo?.language !== "go")
      throw new Error("docs/languages.md ### Go: expected sh, go");
    await writeFile(path.join(sandbox.root, "main.go"), mainGo.text);
    shell = async (script) => {
      const env = { ...sandbox.env, CLOUDPLATFORM_README_API_KEY: emulator.apiKey };
      const { stdout } = await run("bash", ["-c", script], { cwd: dir, env, maxBuffer: 64 << 20, timeout: 600_000 });
      return stdout;
    };
    dir = sandbox.root;
    const values = { repository: repoRoot, baseUrl: emulator.baseUrl, s3Url: emulator.s3Url };
    // The folder the page makes, with main.go written where its comment says so.
    await shell(readerScript(steps, values, { "# write main.go (below), then:": "cp ../main.go main.go" }));
    dir = path.join(sandbox.root, "storage");
  });

  it("`go run . up` deploys it through the installed plugin; the secret stays secret", async () => {
    const outputs = JSON.parse(await shell("pulumi stack output --json")) as Record<string, unknown>;
    expect(String(outputs["accessKeyId"])).toMatch(/^CPAK/);
    expect(outputs["secretAccessKey"]).toBe("[secret]");
    expect(outputs["zoneCount"]).toEqual(expect.any(Number));
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 1 });
  });

  it("`go run . destroy` removes what it made", async () => {
    await shell("go run . destroy");
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0 });
  });
});

// The Registry's overview gives a program only: the folder round it is the one docs/languages.md
// makes (its steps up to `go mod tidy`). Its `pulumi.Run` main needs the CLI's Go language host,
// which these machines lack, so it is built and vetted, not deployed.
describe("the Go program of docs/_index.md, built as written against sdks/go", needs("go"), () => {
  it("`go mod tidy`, `go vet` and `go build` pass in a fresh folder", async () => {
    const [mainGo] = await readmeBlocks("Go", "docs/_index.md");
    const [steps] = sectionBlocks("docs/languages.md", "Go");
    if (mainGo?.language !== "go" || steps?.language !== "sh")
      throw new Error("docs/_index.md ### Go: expected go; docs/languages.md ### Go: expected sh first");
    const lines = steps.text.split("\n");
    const tidy = lines.findIndex((line) => line.startsWith("go mod tidy"));
    if (tidy < 0) throw new Error("docs/languages.md ### Go: no `go mod tidy` step");
    const folder = { ...steps, text: lines.slice(0, tidy + 1).join("\n") };
    const values = { repository: repoRoot, baseUrl: emulator.baseUrl, s3Url: emulator.s3Url };
    const script = readerScript(folder, values, { "# write main.go (below), then:": "cp ../index-main.go main.go" });
    const dir = await mkdtemp(path.join(sandbox.root, "index-go-"));
    await writeFile(path.join(dir, "index-main.go"), mainGo.text);
    // The page's steps as a reader's shell runs them (they end in the folder they made); then vet
    // and build there, through the tool gate.
    const { stdout } = await run("bash", ["-c", `${script}\npwd`], {
      cwd: dir,
      env: sandbox.env,
      maxBuffer: 64 << 20,
      timeout: 600_000,
    });
    const moduleDir = stdout.trim().split("\n").pop() ?? dir;
    for (const args of [
      ["vet", "."],
      ["build", "-o", "program", "."],
    ])
      await runProgram("go", args, { cwd: moduleDir, env: sandbox.env, timeoutMs: 600_000 });
  });
});

describe("a Go program over the generated Go SDK and the installed plugin", needs("go"), () => {
  let program: string;
  let params: Params;
  let lookedUp: { id: string; name: string };

  async function op(name: "up" | "preview" | "refresh" | "destroy", changes: Partial<Params> = {}): Promise<Answer> {
    params = { ...params, ...changes };
    // The API key resource rotates the project key: the provider authenticates with the token.
    const config = Object.fromEntries(
      Object.entries(providerConfig(emulator, "token")).map(([k, v]) => [k, { value: v.value, secret: !!v.secret }]),
    );
    const request = { op: name, workDir: path.join(sandbox.root, "go"), stack: "dev", config, program: params };
    const { stdout } = await run(program, [JSON.stringify(request)], {
      cwd: sandbox.root,
      env: sandbox.env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    });
    const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Answer;
    if (!answer.ok) throw new Error(`${name} failed: ${answer.error}`);
    return answer;
  }

  const value = (a: Answer, key: string): string => String(a.outputs?.[key]?.Value);
  const access = (a: Answer): S3Access => ({
    endpoint: value(a, "s3Endpoint"),
    region: value(a, "region"),
    bucket: value(a, "bucketName"),
    accessKeyId: value(a, "accessKeyId"),
    secretAccessKey: value(a, "secretAccessKey"),
  });
  /** The rotating pair's current (or previous) credential, as an S3 client uses it. */
  const pair = (a: Answer, role: "current" | "previous" = "current"): S3Access => ({
    ...access(a),
    accessKeyId: value(a, role === "current" ? "pairAccessKeyId" : "pairPreviousAccessKeyId"),
    secretAccessKey: value(a, role === "current" ? "pairSecretAccessKey" : "pairPreviousSecretAccessKey"),
  });

  beforeAll(async () => {
    program = path.join(await goProgramDir(), "cloudplatform-go-e2e");
    await mkdir(path.join(sandbox.root, "go"));
    // A zone managed elsewhere, which the program finds with the getDnsZone lookup.
    const made = await management(emulator, "POST", "/dns/zones", { name: "elsewhere.example" });
    lookedUp = (await made.json()) as { id: string; name: string };
    params = {
      zoneName: "go-e2e.example",
      lookupZone: "Elsewhere.Example.",
      credentialActive: true,
      credentialRotation: "1",
      pairRotation: "1",
      keyRotation: "1",
      transcriptUrl: "",
    };
  });

  let first: Answer;

  it("up creates every resource type but the Transcript; the credential works over S3, the lookups answer", async () => {
    first = await op("up");
    expect(first.changes).toEqual({ create: 6 });
    // The writer's credential and the rotating pair's two.
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 3, zones: 2, transcripts: 0 });
    expect(await roundTrip(access(first))).toBe("ok");
    expect(await roundTrip(pair(first))).toBe("ok");
    expect(await roundTrip(pair(first, "previous"))).toBe("ok");
    expect(value(first, "zoneId")).toMatch(/^zone_/);
    expect(value(first, "lookedUpZoneId")).toBe(lookedUp.id);
    // The output-form lookup ran after the credential existed: it lists it, without its secret (and
    // those of the rotating pair the bucket holds by then).
    expect(first.outputs?.["listedCredentials"]?.Value).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          accessKeyId: value(first, "accessKeyId"),
          bucketId: value(first, "bucketId"),
          active: true,
        }),
      ]),
    );
  });

  it("secret outputs stay secret: marked so, and absent from `pulumi stack export` without --show-secrets", async () => {
    expect(first.outputs?.["secretAccessKey"]?.Secret).toBe(true);
    expect(first.outputs?.["apiKey"]?.Secret).toBe(true);
    expect(first.outputs?.["pairSecretAccessKey"]?.Secret).toBe(true);
    expect(first.outputs?.["pairPreviousSecretAccessKey"]?.Secret).toBe(true);
    expect(first.outputs?.["accessKeyId"]?.Secret).toBe(false);
    // The fingerprints are not secret: they are what a diff may show.
    expect(first.outputs?.["writerFingerprint"]).toEqual({
      Value: expect.stringMatching(/^[0-9a-f]{16}$/),
      Secret: false,
    });
    expect(first.outputs?.["pairFingerprint"]?.Secret).toBe(false);
    const { stdout } = await sandbox.cli(path.join(sandbox.root, "go"), ["stack", "export", "--stack", "dev"]);
    const secrets = [value(first, "secretAccessKey"), value(first, "pairSecretAccessKey")];
    secrets.push(value(first, "pairPreviousSecretAccessKey"), value(first, "apiKey"), emulator.apiKey, emulator.token);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      expect(stdout.includes(secret)).toBe(false);
    }
  });

  it("a second up changes nothing", async () => {
    expect((await op("up")).changes).toEqual({ same: 6 });
  });

  it(
    "a Transcript added to the program runs to completion; refresh changes nothing; removed, it leaves the state",
    needs(...transcriptTools),
    async () => {
      await speak(path.join(scratch, "talk.wav"), "the quick brown fox jumps over the lazy dog");
      const talk = await op("up", { transcriptUrl: receiver.mediaUrl("talk.wav") });
      expect(talk.changes).toEqual({ same: 6, create: 1 });
      expect(value(talk, "transcriptStatus")).toBe("done");
      expect(value(talk, "transcriptText").trim()).not.toBe("");
      expect(await emulatorState(emulator)).toMatchObject({ transcripts: 1 });
      expect((await op("refresh")).changes).toEqual({ same: 7 });
      expect((await op("up", { transcriptUrl: "" })).changes).toEqual({ same: 6, delete: 1 });
    },
  );

  it("deactivates the credential in place: S3 refuses it", async () => {
    const down = await op("up", { credentialActive: false });
    expect(down.changes).toEqual({ same: 5, update: 1 });
    expect(value(down, "accessKeyId")).toBe(value(first, "accessKeyId"));
    expect(await roundTrip(access(down))).not.toBe("ok");
  });

  it("activates and rotates it in place: same access key id, a new secret that works, the old one refused", async () => {
    const rotated = await op("up", { credentialActive: true, credentialRotation: "2" });
    expect(rotated.changes).toEqual({ same: 5, update: 1 });
    expect(value(rotated, "writerFingerprint")).not.toBe(value(first, "writerFingerprint"));
    expect(value(rotated, "accessKeyId")).toBe(value(first, "accessKeyId"));
    expect(value(rotated, "secretAccessKey")).not.toBe(value(first, "secretAccessKey"));
    expect(rotated.outputs?.["secretAccessKey"]?.Secret).toBe(true);
    expect(await roundTrip(access(rotated))).toBe("ok");
    expect(await roundTrip(access(first))).not.toBe("ok");
  });

  it("rotates the two-slot credential: the previous one current with a new secret, the current one still working", async () => {
    const rotated = await op("up", { pairRotation: "2" });
    expect(rotated.changes).toEqual({ same: 5, update: 1 });
    expect(value(rotated, "pairAccessKeyId")).toBe(value(first, "pairPreviousAccessKeyId"));
    expect(value(rotated, "pairFingerprint")).not.toBe(value(first, "pairFingerprint"));
    expect(value(rotated, "pairPreviousAccessKeyId")).toBe(value(first, "pairAccessKeyId"));
    expect(await roundTrip(pair(rotated))).toBe("ok");
    expect(await roundTrip(pair(first))).toBe("ok");
    expect(await emulatorState(emulator)).toMatchObject({ credentials: 3 });
  });

  it("refresh right after finds no change", async () => {
    expect((await op("refresh")).changes).toEqual({ same: 6 });
  });

  it("drift made outside (the credential deactivated through the management API) shows on refresh, and up repairs it", async () => {
    const credential = `/object-storage/buckets/${value(first, "bucketId")}/credentials/${value(first, "accessKeyId")}`;
    expect((await management(emulator, "POST", `${credential}/deactivate`)).status).toBe(200);
    expect((await op("refresh")).changes).toEqual({ same: 5, update: 1 });
    const repaired = await op("up");
    expect(repaired.changes).toEqual({ same: 5, update: 1 });
    expect(await roundTrip(access(repaired))).toBe("ok");
  });

  it("adopts a bucket and a credential made outside Pulumi (import), then a second up changes nothing", async () => {
    const made = await management(emulator, "POST", "/object-storage/buckets", {
      name: "go-outside",
      storage_class: "Standard",
    });
    const bucket = (await made.json()) as { id: string };
    const key = await management(emulator, "POST", `/object-storage/buckets/${bucket.id}/credentials`);
    const credential = (await key.json()) as { access_key_id: string };
    const adopt = {
      importBucketId: bucket.id,
      importBucketName: "go-outside",
      importCredentialId: `${bucket.id}/${credential.access_key_id}`,
    };
    const imported = await op("up", adopt);
    expect(imported.changes).toEqual({ same: 6, import: 2 });
    expect(value(imported, "adoptedBucketId")).toBe(bucket.id);
    expect(value(imported, "adoptedAccessKeyId")).toBe(credential.access_key_id);
    expect((await op("up")).changes).toEqual({ same: 8 });
  });

  it("writes a folder and an object with a credential of their own; a new note is one update and one PUT", async () => {
    const site = path.join(scratch, "site");
    await mkdir(path.join(site, "css"), { recursive: true });
    await writeFile(path.join(site, "index.html"), "<h1>Go</h1>\n");
    await writeFile(path.join(site, "css", "main.css"), "h1 { color: teal }\n");
    await writeFile(path.join(site, "css", "main.css.map"), "{}");
    const made = await op("up", { siteDir: site, noteContent: "v1" });
    expect(made.changes).toEqual({ same: 8, create: 3 });
    expect(value(made, "siteFileCount")).toBe("2");
    expect(value(made, "noteContentType")).toBe("text/plain; charset=utf-8");
    expect(made.outputs?.["contentsSecretAccessKey"]?.Secret).toBe(true);
    const contents: S3Access = {
      ...access(made),
      accessKeyId: value(made, "contentsAccessKeyId"),
      secretAccessKey: value(made, "contentsSecretAccessKey"),
    };
    expect(await listKeys(contents, "site/")).toEqual(["site/css/main.css", "site/index.html"]);
    expect(await listKeys(contents, "notes/")).toEqual(["notes/hello.txt"]);
    expect((await readObject(contents, "site/index.html")).toString()).toBe("<h1>Go</h1>\n");
    const before = await bucketRequests(emulator, contents.bucket);
    const changed = await op("up", { noteContent: "v2" });
    expect(changed.changes).toEqual({ same: 10, update: 1 });
    expect(requestsBetween(before, await bucketRequests(emulator, contents.bucket))).toEqual({
      "PUT /{bucket}/{key}": 1,
    });
    expect((await readObject(contents, "notes/hello.txt")).toString()).toBe("v2");
    expect((await op("refresh")).changes).toEqual({ same: 11 });
    expect((await op("up", { siteDir: "", noteContent: "" })).changes).toEqual({ same: 8, delete: 3 });
    // Their credential went with them: the writer's key pair lists what is left.
    const writer = access(made);
    expect([...(await listKeys(writer, "site/")), ...(await listKeys(writer, "notes/"))]).toEqual([]);
  });

  it("destroy leaves the emulator empty (but the zone managed elsewhere)", async () => {
    const destroyed = await op("destroy");
    expect(destroyed.changes).toEqual({ delete: 8 });
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, objects: 0, credentials: 0, zones: 1 });
  });
});
