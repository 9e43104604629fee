// examples/yaml-* deployed as a user would: the plugin installed from its tarball with `pulumi plugin
// install --file`, the YAML language host on PATH, and plain `pulumi` commands in the example's folder
// (no Automation API), against the emulator. Nothing of this repository is on PATH. And the CLI's
// `pulumi import` in a YAML project: it needs the project's language host, and YAML's is the one
// these machines have. And the YAML programs of docs/languages.md, docs/executable-provider.md and
// docs/_index.md, run exactly as their text says.
import { execFile } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, management, type Emulator } from "../support/emulator.js";
import { emulatorState, Platform } from "../support/platform.mts";
import { packPlugin, PluginSandbox, repoRoot, yamlHostDir } from "./support/plugin-cli.js";
import { readerScript, readmeBlocks } from "./support/readme.js";
import { bucketRequests, listKeys, readObject } from "./support/objects.js";
import { roundTrip, type S3Access } from "./support/s3.js";

const run = promisify(execFile);

let emulator: Emulator;
let sandbox: PluginSandbox;
let outDir: string;

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), "cloudplatform-pack-"));
  const tarball = await packPlugin(outDir);
  sandbox = await PluginSandbox.create(tarball, [await yamlHostDir()]);
  emulator = await launchEmulator();
});
afterAll(async () => {
  await emulator?.close();
  await sandbox?.dispose();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

type Cli = (args: readonly string[], input?: string) => Promise<string>;

/** A copy of the example with a stack whose config points the provider at the emulator. */
async function exampleStack(example: string): Promise<Cli> {
  return stackIn(await sandbox.copyExample(example));
}

/** A stack of the project in `dir`, its config pointing the provider at the emulator. */
async function stackIn(dir: string): Promise<Cli> {
  const pulumi = async (args: readonly string[], input?: string): Promise<string> =>
    (await sandbox.cli(dir, args, input)).stdout;
  await pulumi(["stack", "init", "e2e"]);
  await pulumi(["config", "set", "cloudplatform:baseUrl", emulator.baseUrl]);
  await pulumi(["config", "set", "cloudplatform:s3Url", emulator.s3Url]);
  await pulumi(["config", "set", "--secret", "cloudplatform:apiKey"], emulator.apiKey);
  return pulumi;
}

type Outputs = Record<string, unknown>;

describe("examples/yaml-bucket", () => {
  let pulumi: Cli;
  let upOutput: string;
  let secret: string;

  beforeAll(async () => {
    pulumi = await exampleStack("yaml-bucket");
  });

  it("`pulumi up` creates the bucket and a working credential", async () => {
    upOutput = await pulumi(["up", "--yes"]);
    expect(upOutput).toMatch(/\+ 3 created/);
    const outputs = JSON.parse(await pulumi(["stack", "output", "--json", "--show-secrets"])) as Outputs;
    secret = String(outputs["secretAccessKey"]);
    expect(secret.length).toBeGreaterThan(20);
    const access = {
      endpoint: String(outputs["s3Endpoint"]),
      region: String(outputs["region"]),
      bucket: String(outputs["bucketName"]),
      accessKeyId: String(outputs["accessKeyId"]),
      secretAccessKey: secret,
    };
    expect(access.endpoint).toBe(emulator.s3Url);
    expect(await roundTrip(access)).toBe("ok");
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 1 });
  });

  it("the fn::invoke lookup lists the bucket's credential as the platform has it, without its secret", async () => {
    const outputs = JSON.parse(await pulumi(["stack", "output", "--json", "--show-secrets"])) as Outputs;
    expect(outputs["credentials"]).toEqual([
      {
        accessKeyId: outputs["accessKeyId"],
        bucketId: expect.any(String),
        active: true,
        createdAt: expect.any(String),
      },
    ]);
    expect(JSON.stringify(outputs["credentials"])).not.toContain(secret);
  });

  it("masks the secret in the CLI's outputs and keeps it, and the API key, out of the exported state", async () => {
    expect(upOutput).toMatch(/secretAccessKey: \[secret\]/);
    expect(upOutput).not.toContain(secret);
    const outputs = JSON.parse(await pulumi(["stack", "output", "--json"])) as Outputs;
    expect(outputs["secretAccessKey"]).toBe("[secret]");
    expect(String(outputs["accessKeyId"])).toMatch(/^CPAK/);

    const exported = await pulumi(["stack", "export"]);
    expect(exported).not.toContain(secret);
    expect(exported).not.toContain(emulator.apiKey);
    const state = JSON.parse(exported) as {
      deployment: { resources: Array<{ type: string; outputs?: Record<string, unknown> }> };
    };
    const credential = state.deployment.resources.find((r) => r.type === "cloudplatform:index:BucketCredential");
    expect(credential?.outputs?.["secretAccessKey"]).toMatchObject({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: expect.any(String),
    });
  });

  it("a second `pulumi up` changes nothing", async () => {
    const again = await pulumi(["up", "--yes", "--expect-no-changes"]);
    expect(again).toMatch(/3 unchanged/);
  });

  it("program configuration reaches the resources: credentialActive=false deactivates the credential in place", async () => {
    await pulumi(["config", "set", "credentialActive", "false"]);
    const update = await pulumi(["up", "--yes"]);
    expect(update).toMatch(/~ 1 updated/);
    expect(update).not.toMatch(/\d+ (replaced|created)/);
    // The lookup runs after the update: the platform lists the credential deactivated.
    const outputs = JSON.parse(await pulumi(["stack", "output", "--json"])) as Outputs;
    expect(outputs["credentials"]).toMatchObject([{ accessKeyId: outputs["accessKeyId"], active: false }]);
    await pulumi(["config", "rm", "credentialActive"]);
  });

  it("`pulumi destroy` leaves the emulator empty", async () => {
    const destroyed = await pulumi(["destroy", "--yes"]);
    expect(destroyed).toMatch(/- 3 deleted/);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, objects: 0, credentials: 0, zones: 0 });
  });
});

describe("examples/yaml-site", () => {
  let pulumi: Cli;
  let dir: string;
  let access: S3Access;

  beforeAll(async () => {
    dir = await sandbox.copyExample("yaml-site");
    pulumi = await stackIn(dir);
  });

  const objectRequests = async (): Promise<Record<string, number>> => bucketRequests(emulator, access.bucket);

  it("`pulumi up` syncs the folder and writes the settings object through the plugin", async () => {
    expect(await pulumi(["up", "--yes"])).toMatch(/\+ 5 created/);
    const outputs = JSON.parse(await pulumi(["stack", "output", "--json", "--show-secrets"])) as Outputs;
    access = {
      endpoint: String(outputs["s3Endpoint"]),
      region: String(outputs["region"]),
      bucket: String(outputs["bucketName"]),
      accessKeyId: String(outputs["accessKeyId"]),
      secretAccessKey: String(outputs["secretAccessKey"]),
    };
    expect(outputs["fileCount"]).toBe(4);
    expect(await listKeys(access, "site/")).toEqual([
      "site/assets/site.css",
      "site/assets/site.js",
      "site/index.html",
      "site/robots.txt",
      "site/settings.json",
    ]);
    expect(await readObject(access, "site/index.html")).toEqual(await readFile(path.join(dir, "www", "index.html")));
    expect(JSON.parse((await readObject(access, "site/settings.json")).toString())).toEqual({
      title: "Hello from the Cloud Platform",
    });
    const exported = await pulumi(["stack", "export"]);
    expect(exported).not.toContain(access.secretAccessKey);
  });

  it("a second `pulumi up` changes nothing and sends no object request", async () => {
    const before = await objectRequests();
    expect(await pulumi(["up", "--yes"])).not.toMatch(/updated|created|deleted/);
    expect(await objectRequests()).toEqual(before);
  });

  it("an edited file is one PUT; `pulumi preview --diff` shows the folder's digest change in one line", async () => {
    await appendFile(path.join(dir, "www", "robots.txt"), "Disallow: /drafts/\n");
    // The plugin's log lines (which name the files) stay in its stderr; the diff shows the digest.
    const preview = await pulumi(["preview", "--diff"]);
    expect(preview).toMatch(/~ manifestDigest\s*: "4 files, sha256:[0-9a-f]{64}" => "4 files, sha256:[0-9a-f]{64}"\n/);
    expect(preview).not.toMatch(/manifest\s*:/);
    const before = await objectRequests();
    expect(await pulumi(["up", "--yes"])).toMatch(/~ 1 updated/);
    const after = await objectRequests();
    expect((after["PUT /{bucket}/{key}"] ?? 0) - (before["PUT /{bucket}/{key}"] ?? 0)).toBe(1);
    expect((await readObject(access, "site/robots.txt")).toString()).toContain("Disallow: /drafts/");
  });

  it("`pulumi destroy` deletes the objects and the bucket", async () => {
    await pulumi(["destroy", "--yes"]);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, objects: 0, credentials: 0 });
  });
});

describe("examples/yaml-rotation", () => {
  let pulumi: Cli;
  let first: Outputs;

  beforeAll(async () => {
    pulumi = await exampleStack("yaml-rotation");
  });

  const pairOf = (outputs: Outputs, previous = false) => ({
    endpoint: String(outputs["s3Endpoint"]),
    region: String(outputs["region"]),
    bucket: String(outputs["bucketName"]),
    accessKeyId: String(outputs[previous ? "previousAccessKeyId" : "accessKeyId"]),
    secretAccessKey: String(outputs[previous ? "previousSecretAccessKey" : "secretAccessKey"]),
  });

  it("`pulumi up` creates the bucket and two working credentials, the secrets masked", async () => {
    const up = await pulumi(["up", "--yes"]);
    expect(up).toMatch(/\+ 3 created/);
    expect(up).toMatch(/secretAccessKey\s*: \[secret\]/);
    first = JSON.parse(await pulumi(["stack", "output", "--json", "--show-secrets"])) as Outputs;
    expect(await roundTrip(pairOf(first))).toBe("ok");
    expect(await roundTrip(pairOf(first, true))).toBe("ok");
    expect(String(first["secretFingerprint"])).toMatch(/^[0-9a-f]{16}$/);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 2 });
  });

  it("a changed `rotation` shows in the preview by the fingerprint of the secret it changes, and rotates", async () => {
    await pulumi(["config", "set", "rotation", "2"]);
    const preview = await pulumi(["preview"]);
    expect(preview).toMatch(/~ 1 to update/);
    expect(preview).toContain(
      `secret fingerprint ${String(first["previousSecretFingerprint"])}) and makes slot b current`,
    );
    const up = await pulumi(["up", "--yes"]);
    expect(up).toMatch(/~ 1 updated/);
    const rotated = JSON.parse(await pulumi(["stack", "output", "--json", "--show-secrets"])) as Outputs;
    expect(rotated["accessKeyId"]).toBe(first["previousAccessKeyId"]);
    expect(rotated["previousAccessKeyId"]).toBe(first["accessKeyId"]);
    expect(await roundTrip(pairOf(rotated))).toBe("ok");
    // The pair applications used until this up still works.
    expect(await roundTrip(pairOf(first))).toBe("ok");
    expect(await pulumi(["up", "--yes", "--expect-no-changes"])).toMatch(/3 unchanged/);
  });

  it("`pulumi destroy` leaves the emulator empty", async () => {
    const destroyed = await pulumi(["destroy", "--yes"]);
    expect(destroyed).toMatch(/- 3 deleted/);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, objects: 0, credentials: 0 });
  });
});

describe("examples/yaml-dns", () => {
  let pulumi: Cli;

  beforeAll(async () => {
    pulumi = await exampleStack("yaml-dns");
    await pulumi(["config", "set", "zoneName", "yaml-e2e.example"]);
  });

  it("`pulumi up` creates the zone and exports its nameservers", async () => {
    const up = await pulumi(["up", "--yes"]);
    expect(up).toMatch(/\+ 2 created/);
    const outputs = JSON.parse(await pulumi(["stack", "output", "--json"])) as Outputs;
    expect(String(outputs["zoneId"])).toMatch(/^zone_/);
    expect(outputs["nameservers"]).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(await emulatorState(emulator)).toMatchObject({ zones: 1 });
  });

  it("a second `pulumi up` changes nothing", async () => {
    const again = await pulumi(["up", "--yes", "--expect-no-changes"]);
    expect(again).toMatch(/2 unchanged/);
  });

  it("`pulumi destroy` leaves the emulator empty", async () => {
    const destroyed = await pulumi(["destroy", "--yes"]);
    expect(destroyed).toMatch(/- 2 deleted/);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, objects: 0, credentials: 0, zones: 0 });
  });
});

// Stacks of any language deploying at once with one key pace as one (docs/limits.md, "Rate limits"):
// each plugin process finds the gate the first one serves over a local socket
// (provider/request/shared-gate.ts), as the Node.js programs' provider processes do
// (test/e2e/rate-limit.test.ts). Two YAML stacks, each its own `pulumi up` and plugin process, under
// a limit with no burst, not announced: a token bucket of 1 refuses the second of any two calls
// closer than its interval, whichever process sent them, so two gates that cannot see each other's
// calls are refused far more than one shared gate.
const fleetBuckets = 12;
const fleetRate = 4;
describe(`two YAML stacks of ${fleetBuckets} + ${fleetBuckets} at once, one key, ${fleetRate} requests per second with no burst`, () => {
  const stacks: Cli[] = [];
  let platform: Platform;

  beforeAll(async () => {
    platform = new Platform(emulator);
    for (const fleet of ["north", "south"]) {
      const dir = path.join(sandbox.root, `yaml-fleet-${fleet}`);
      await mkdir(dir);
      const resources = Array.from({ length: fleetBuckets }, (_, i) =>
        [
          `  ${fleet}${i}:`,
          "    type: cloudplatform:index:Bucket",
          "    properties:",
          "      forceDestroy: true",
          `  ${fleet}${i}-writer:`,
          "    type: cloudplatform:index:BucketCredential",
          "    properties:",
          `      bucketId: \${${fleet}${i}.bucketId}`,
        ].join("\n"),
      );
      await writeFile(
        path.join(dir, "Pulumi.yaml"),
        [`name: cloudplatform-yaml-${fleet}`, "runtime: yaml", "resources:", ...resources, ""].join("\n"),
      );
      stacks.push(await stackIn(dir));
    }
    await platform.setRateLimit({ requestsPerSecond: fleetRate, burst: 1 });
  });
  afterAll(async () => {
    await platform.setRateLimit({ requestsPerSecond: 0 });
  });

  it("both first `up`s succeed through one shared gate, with refusals under 25 % of the requests served", async () => {
    const ups = await Promise.all(stacks.map((pulumi) => pulumi(["up", "--yes", "--skip-preview"])));
    for (const up of ups) expect(up).toMatch(new RegExp(`\\+ ${2 * fleetBuckets + 1} created`));
    const limit = await platform.rateLimit();
    // One create per resource: what the platform served is the work.
    expect(limit.allowed).toBe(2 * 2 * fleetBuckets);
    // One gate: 5 and 6 refused of 48 in two runs, most while it learns the limit (2 or 3 of the
    // first calls, one per cut after); 11 when it let 8 go at once on the first answer (pace.ts,
    // `firstWindow`). A gate per process (CLOUDPLATFORM_SHARED_GATE=0): 17 and 19, and 34-43 s
    // instead of 20 s. Room for a CI machine's jitter, under which a limit with no burst refuses
    // calls the gate spaced right.
    expect(limit.refused, JSON.stringify(limit)).toBeLessThanOrEqual(0.25 * limit.allowed);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 2 * fleetBuckets, credentials: 2 * fleetBuckets });
  });

  it("`pulumi destroy` of both leaves the emulator empty", async () => {
    await platform.setRateLimit({ requestsPerSecond: 0 });
    for (const pulumi of stacks)
      expect(await pulumi(["destroy", "--yes"])).toMatch(new RegExp(`- ${2 * fleetBuckets + 1} deleted`));
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0 });
  });
});

describe("`pulumi import` in a YAML project", () => {
  let dir: string;
  let pulumi: Cli;
  let generated: string;
  let made: { bucketId: string; accessKeyId: string };

  beforeAll(async () => {
    dir = path.join(sandbox.root, "yaml-import");
    await mkdir(dir);
    await writeFile(path.join(dir, "Pulumi.yaml"), "name: cloudplatform-yaml-import\nruntime: yaml\n");
    pulumi = await stackIn(dir);
    const bucket = await management(emulator, "POST", "/object-storage/buckets", {
      name: "yaml-outside",
      storage_class: "Standard",
    });
    const bucketId = ((await bucket.json()) as { id: string }).id;
    const key = await management(emulator, "POST", `/object-storage/buckets/${bucketId}/credentials`);
    made = { bucketId, accessKeyId: ((await key.json()) as { access_key_id: string }).access_key_id };
  });

  it("imports a bucket and a credential made outside Pulumi, and writes the YAML that declares them", async () => {
    const resources = [
      { type: "cloudplatform:index:Bucket", name: "logs", id: made.bucketId },
      { type: "cloudplatform:index:BucketCredential", name: "reader", id: `${made.bucketId}/${made.accessKeyId}` },
    ];
    await writeFile(path.join(dir, "import.json"), JSON.stringify({ resources }));
    const imported = await pulumi([
      "import",
      "--file",
      "import.json",
      "--yes",
      "--protect=false",
      "--out",
      "code.yaml",
    ]);
    expect(imported).toMatch(/= 2 imported/);
    generated = await readFile(path.join(dir, "code.yaml"), "utf8");
    // Tokens of the index module are written short; the credential refers to the imported bucket.
    expect(generated).toMatch(/logs:\n\s+type: cloudplatform:Bucket\n/);
    expect(generated).toContain("name: yaml-outside");
    expect(generated).toMatch(/reader:\n\s+type: cloudplatform:BucketCredential\n/);
    expect(generated).toContain("bucketId: ${logs.id}");
    // The platform returns a credential's secret only at create and regenerate: none to write.
    expect(generated).not.toContain("secretAccessKey");
  });

  it("the program with the generated declarations is at rest: `pulumi up` plans no change", async () => {
    await appendFile(path.join(dir, "Pulumi.yaml"), generated);
    const up = await pulumi(["up", "--yes", "--expect-no-changes"]);
    expect(up).toMatch(/3 unchanged/);
  });

  it("`pulumi destroy` deletes the adopted objects", async () => {
    const destroyed = await pulumi(["destroy", "--yes"]);
    expect(destroyed).toMatch(/- 3 deleted/);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0 });
  });
});

/**
 * A page's YAML program and its shell steps, run as a reader runs them from that page alone: the
 * program as Pulumi.yaml of an empty folder, the steps with the reader's values, a prompt answered.
 */
async function readerYamlProject(page: string, heading: string, level: number, name: string): Promise<string> {
  const [program, steps] = await readmeBlocks(heading, page, level);
  if (program?.language !== "yaml" || steps?.language !== "sh")
    throw new Error(`${page} ### ${heading}: expected yaml, sh`);
  const dir = path.join(sandbox.root, name);
  await mkdir(dir);
  await writeFile(path.join(dir, "Pulumi.yaml"), program.text);
  const values = { repository: repoRoot, baseUrl: emulator.baseUrl, s3Url: emulator.s3Url };
  const script = readerScript(steps, values, {
    // A reader answers `pulumi up`'s prompt; a script says --yes.
    "pulumi up": "pulumi up --yes",
    // A reader types the key at the prompt; here it comes on stdin, as the page allows.
    "pulumi config set --secret cloudplatform:apiKey   # prompts for the key (or reads it from stdin)":
      'printf %s "$CLOUDPLATFORM_README_API_KEY" | pulumi config set --secret cloudplatform:apiKey',
  });
  const env = { ...sandbox.env, CLOUDPLATFORM_README_API_KEY: emulator.apiKey };
  await run("bash", ["-c", script], { cwd: dir, env, maxBuffer: 64 << 20, timeout: 300_000 });
  return dir;
}

describe("the YAML program of docs/languages.md, written as a reader would from that page alone", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await readerYamlProject("docs/languages.md", "YAML", 3, "readme-yaml");
  });
  it("`pulumi up` deploys it: a bucket and a credential, the secret masked, the lookup answered", async () => {
    const outputs = JSON.parse((await sandbox.cli(dir, ["stack", "output", "--json"])).stdout) as Outputs;
    expect(String(outputs["accessKeyId"])).toMatch(/^CPAK/);
    expect(outputs["secretAccessKey"]).toBe("[secret]");
    expect(outputs["zones"]).toEqual([]);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 1 });
  });

  it("`pulumi destroy` removes what it made", async () => {
    await sandbox.cli(dir, ["destroy", "--yes"]);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0 });
  });
});

// The Registry's overview gives the program only; the stack and its config are those of
// docs/installation-configuration.md, as every YAML project here has them (stackIn).
describe("the YAML program of docs/_index.md, as written", () => {
  let pulumi: Cli;

  beforeAll(async () => {
    const [program] = await readmeBlocks("YAML", "docs/_index.md");
    if (program?.language !== "yaml") throw new Error("docs/_index.md ### YAML: expected yaml");
    const dir = path.join(sandbox.root, "index-yaml");
    await mkdir(dir);
    await writeFile(path.join(dir, "Pulumi.yaml"), program.text);
    pulumi = await stackIn(dir);
  });

  it("`pulumi up` deploys it, the secret masked; a preview then changes nothing; `pulumi destroy` removes it", async () => {
    await pulumi(["up", "--yes"]);
    const outputs = JSON.parse(await pulumi(["stack", "output", "--json"])) as Outputs;
    expect(String(outputs["accessKeyId"])).toMatch(/^CPAK/);
    expect(outputs["endpoint"]).toBe(emulator.s3Url);
    expect(outputs["secretAccessKey"]).toBe("[secret]");
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 1 });
    await pulumi(["preview", "--expect-no-changes"]);
    await pulumi(["destroy", "--yes"]);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0 });
  });
});

describe("the YAML program of docs/executable-provider.md, written as a reader would from that page alone", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await readerYamlProject("docs/executable-provider.md", "YAML programs", 2, "executable-provider-yaml");
  });

  it("`pulumi up` deploys it: a bucket and an active credential, the secret masked; a preview then changes nothing", async () => {
    const outputs = JSON.parse((await sandbox.cli(dir, ["stack", "output", "--json"])).stdout) as Outputs;
    expect(String(outputs["accessKeyId"])).toMatch(/^CPAK/);
    expect(outputs["secretAccessKey"]).toBe("[secret]");
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 1 });
    await sandbox.cli(dir, ["preview", "--expect-no-changes"]);
  });

  it("`pulumi destroy` removes what it made", async () => {
    await sandbox.cli(dir, ["destroy", "--yes"]);
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0 });
  });
});
