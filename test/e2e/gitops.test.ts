// examples/gitops as an infra repository lives it, its pipeline run step by step from the workflow
// file as written (support/workflow.ts: the jobs an event starts, their `run:` steps through bash,
// each job in a fresh checkout with the runner's variables), against an emulator playing the
// platform, with the state on the emulator's own S3 (a bucket and a credential made as
// docs/state-backend.md says, the pair only in the secret store): the README's set-up from an empty
// folder with the packages from vendor/ (neither is on the npm registry), a pull request (check,
// preview and its summary), the merge (check, up), a scheduled drift check passing, a credential
// deactivated behind Pulumi's back, the check failing with the drift named and the state untouched,
// why --preview-only, a fix (up), the check passing again, a zone and a bucket deleted by hand
// (named, re-created by up), `up` waiting out a lock held by someone else (held until the up has
// met it, whatever the machine's load), the check with a broken state pair and with a revoked API
// key (could not run, never drift); the concurrency groups read from the file; no secret in any
// log, summary or state.
//
// What stands in for GitHub: the `uses:` steps (the checkout is the fresh copy; the setup's `npm ci`
// is run once, as the action writes it, in a clone of what the set-up committed, and its
// node_modules linked into each checkout; the Pulumi CLI v3.259.0 is put on PATH) and the Node.js
// language host, which these machines lack (support/language-host.mts). The README's lines that pack the two tarballs from a checkout are
// replaced by copies of the tarballs this run packed with the same `npm pack` (support/packages.ts).
import {
  DeleteObjectCommand,
  GetObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { execFile } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { access, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, management, type Emulator } from "../support/emulator.js";
import { Platform } from "../support/platform.mts";
import { languageHostFolder, npmEnv, npmPack, plainPath } from "./support/packages.js";
import { pulumiBinDir, repoRoot } from "./support/plugin-cli.js";
import { readerScript, readmeBlocks } from "./support/readme.js";
import {
  evaluateIf,
  readWorkflow,
  readYaml,
  runEvent,
  runJob,
  type JobResult,
  type RunnerOptions,
  type Workflow,
  type WorkflowEvent,
} from "./support/workflow.js";

const run = promisify(execFile);
const example = path.join(repoRoot, "examples", "gitops");

const pullRequest: WorkflowEvent = { name: "pull_request", ref: "refs/pull/1/merge" };
const merge: WorkflowEvent = { name: "push", ref: "refs/heads/main" };
const schedule: WorkflowEvent = { name: "schedule", ref: "refs/heads/main" };
const events = [pullRequest, merge, schedule, { name: "workflow_dispatch", ref: "refs/heads/main" }] as const;

/** The state bucket, made before anything else as docs/state-backend.md says. */
const STATE_BUCKET = "site-infra-state";

let scratch: string;
let repository: string;
let platform: Emulator;
let workflow: Workflow;
let options: RunnerOptions;
let tarballs: { provider: string; emulator: string };
let statePair: { accessKeyId: string; secretAccessKey: string };
/** Every job run, for the checks of what logs and summaries show. */
const jobs: JobResult[] = [];
/** Every secret a job was given at some point. */
const secretsSeen = new Set<string>();

async function pipeline(event: WorkflowEvent, overrides: Partial<RunnerOptions> = {}): Promise<JobResult[]> {
  const used = { ...options, ...overrides };
  for (const value of Object.values(used.secrets)) secretsSeen.add(value);
  const results = await runEvent(workflow, event, used);
  jobs.push(...results);
  return results;
}

const job = (results: JobResult[], id: string): JobResult => {
  const found = results.find((r) => r.id === id);
  if (!found) throw new Error(`job ${id} did not run (ran: ${results.map((r) => r.id).join(", ")})`);
  return found;
};

/** Why a job failed: its last step's output. */
const failure = (result: JobResult): string => {
  const last = result.steps.at(-1);
  return `${result.id} failed at "${last?.name}" (exit ${last?.exitCode}):\n${last?.stdout}\n${last?.stderr}`;
};

/** What a maintainer's shell has: the secrets' values, the machine's tools, a HOME of its own. */
function maintainerEnv(env: Record<string, string> = {}): Record<string, string> {
  return { HOME: path.join(scratch, "maintainer"), PATH: options.path, ...options.secrets, ...env };
}

/** The Pulumi CLI in the repository's folder, with the secrets' environment (as a maintainer runs it). */
async function pulumi(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run("pulumi", [...args], {
    cwd: repository,
    env: maintainerEnv(env),
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

function stateClient(): S3Client {
  return new S3Client({
    endpoint: platform.s3Url,
    region: "us-east-1",
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: statePair,
  });
}

/** Every object of the state bucket, by key. */
async function stateObjects(): Promise<Map<string, Buffer>> {
  const client = stateClient();
  const objects = new Map<string, Buffer>();
  try {
    for await (const page of paginateListObjectsV2({ client }, { Bucket: STATE_BUCKET })) {
      for (const { Key } of page.Contents ?? []) {
        const got = await client.send(new GetObjectCommand({ Bucket: STATE_BUCKET, Key }));
        objects.set(Key!, Buffer.from(await got.Body!.transformToByteArray()));
      }
    }
  } finally {
    client.destroy();
  }
  return objects;
}

/** A digest of every object of the state bucket: equal digests, nothing written. */
async function digest(): Promise<string> {
  const hash = createHash("sha256");
  for (const [key, body] of [...(await stateObjects())].sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(key).update(body);
  }
  return hash.digest("hex");
}

/** The stack's objects on the platform: everything but the state bucket and its credential. */
async function stackObjects(): Promise<{ buckets: number; credentials: number; zones: number }> {
  const inventory = await new Platform(platform).objects();
  const state = inventory.buckets.find((b) => b.name === STATE_BUCKET)?.id;
  return {
    buckets: inventory.buckets.filter((b) => b.id !== state).length,
    credentials: inventory.credentials.filter((c) => c.bucket_id !== state).length,
    zones: inventory.zones.length,
  };
}

async function credentialOnPlatform(): Promise<{ bucket_id: string; access_key_id: string; active: boolean }> {
  const inventory = await new Platform(platform).objects();
  const state = inventory.buckets.find((b) => b.name === STATE_BUCKET)?.id;
  const credentials = inventory.credentials.filter((c) => c.bucket_id !== state);
  expect(credentials).toHaveLength(1);
  return credentials[0]!;
}

/** docs/state-backend.md §1 "By hand, with the management API": the state bucket and its credential. */
async function bootstrapState(): Promise<{ accessKeyId: string; secretAccessKey: string }> {
  const call = async (at: string, body: object): Promise<Record<string, string>> => {
    const response = await fetch(`${platform.baseUrl}${at}`, {
      method: "POST",
      headers: { authorization: platform.apiKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${at}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, string>;
  };
  const bucket = await call("/object-storage/buckets", { name: STATE_BUCKET, storage_class: "Standard" });
  const credential = await call(`/object-storage/buckets/${bucket["id"]}/credentials`, {});
  return { accessKeyId: credential["access_key_id"]!, secretAccessKey: credential["secret_access_key"]! };
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-gitops-"));
  const packed = path.join(scratch, "packed");
  await mkdir(packed);
  const [provider, emulatorPackage, binDir] = await Promise.all([
    npmPack(".", packed),
    npmPack("emulator", packed),
    pulumiBinDir(),
  ]);
  tarballs = { provider, emulator: emulatorPackage };
  // The Node.js language host's stand-in, where the CLI looks for it.
  const hostDir = await languageHostFolder(scratch);

  platform = await launchEmulator();
  statePair = await bootstrapState();
  const endpoint = new URL(platform.s3Url).host;
  workflow = await readWorkflow(path.join(example, ".github", "workflows", "infrastructure.yml"));
  repository = path.join(scratch, "repository");
  options = {
    repository,
    // What the setup's `npm ci` installs in a clone of the committed repository (the set-up's test).
    nodeModules: path.join(scratch, "clone", "node_modules"),
    path: plainPath([hostDir, binDir]),
    secrets: {
      // docs/state-backend.md §2: path-style, us-east-1; disableSSL for the emulator's http:// only.
      PULUMI_BACKEND_URL: `s3://${STATE_BUCKET}?endpoint=${endpoint}&s3ForcePathStyle=true&region=us-east-1&disableSSL=true`,
      AWS_ACCESS_KEY_ID: statePair.accessKeyId,
      AWS_SECRET_ACCESS_KEY: statePair.secretAccessKey,
      PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
      CLOUDPLATFORM_API_KEY: platform.apiKey,
    },
    uses: {
      "actions/checkout@v6": "the job's fresh copy of the repository",
      "./.github/actions/setup": "Node.js 24, node_modules of its npm ci in a clone, the Pulumi CLI v3.259.0 on PATH",
    },
    scratch,
  };
}, 600_000);
afterAll(async () => {
  await platform?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface Concurrency {
  readonly group: string;
  readonly "cancel-in-progress"?: boolean;
}
interface WorkflowDocument {
  readonly concurrency?: Concurrency;
  readonly jobs: Record<
    string,
    { readonly if?: string; readonly concurrency?: Concurrency; readonly env?: Record<string, string> }
  >;
}

/** A concurrency group with the run's values in place of the expressions the file may use. */
function resolveGroup(group: string, event: WorkflowEvent): string {
  const values: Record<string, string> = {
    "github.ref": event.ref,
    "github.event_name": event.name,
    "github.workflow": "infrastructure",
  };
  return group.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
    const value = values[expression];
    if (value === undefined) throw new Error(`the test cannot resolve \${{ ${expression} }} in a concurrency group`);
    return value;
  });
}

/**
 * What could cancel a merge's pending `up` (GitHub cancels the pending job or run of a group when
 * another one queues in it, whatever cancel-in-progress says): any job or run of any event whose
 * group is the group the merge's `up` waits in. Empty when nothing can.
 */
function threatsToUp(document: WorkflowDocument): string[] {
  const threats: string[] = [];
  const groupOf = (event: WorkflowEvent, id: string): string | undefined => {
    // A workflow-level group holds the whole run, so each of its jobs waits in it.
    const group = document.concurrency?.group ?? document.jobs[id]?.concurrency?.group;
    return group === undefined ? undefined : resolveGroup(group, event);
  };
  const upGroup = groupOf(merge, "up");
  if (upGroup === undefined) return ["up has no concurrency group: two merges' ups would race for the lock"];
  const up = document.jobs["up"]!;
  if ((document.concurrency ?? up.concurrency)?.["cancel-in-progress"] === true) {
    threats.push("up's group cancels a running up");
  }
  for (const event of events) {
    for (const id of Object.keys(document.jobs)) {
      const condition = document.jobs[id]!.if;
      if (condition !== undefined && !evaluateIf(condition, event)) continue;
      if (id === "up" && event === merge) continue;
      if (groupOf(event, id) === upGroup) threats.push(`${id} on ${event.name} queues in up's group ${upGroup}`);
    }
  }
  return threats;
}

/** Whether the up job under `jobRoot` was refused for the lock: its step writes `pulumi up`'s output to up.txt. */
async function refusedForTheLock(jobRoot: string): Promise<boolean> {
  for (const folder of await readdir(jobRoot)) {
    const output = await readFile(path.join(jobRoot, folder, "checkout", "up.txt"), "utf8").catch(() => "");
    if (output.includes("the stack is currently locked")) return true;
  }
  return false;
}

describe("examples/gitops: the pipeline of an infra repository, run from its workflow file", () => {
  it("runs on pull requests and pushes to main, daily and by hand; its setup is what this test provides", async () => {
    expect(Object.keys(workflow.on).sort()).toEqual(["pull_request", "push", "schedule", "workflow_dispatch"]);
    expect(workflow.on["push"]).toEqual({ branches: ["main"] });
    for (const [id, steps] of Object.entries(workflow.jobs).map(([id, j]) => [id, j.steps] as const)) {
      expect(
        steps.slice(0, 2).map((s) => s.uses),
        id,
      ).toEqual(["actions/checkout@v6", "./.github/actions/setup"]);
    }
    const setup = await readYaml<{
      runs: { steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }> };
    }>(path.join(example, ".github", "actions", "setup", "action.yml"));
    expect(setup.runs.steps.map((s) => s.uses ?? s.run)).toEqual([
      "actions/setup-node@v6",
      "npm ci --no-audit --no-fund",
      "pulumi/actions@v6",
    ]);
    // The CLI version the setup installs is the one this test runs.
    const version = String(setup.runs.steps[2]?.with?.["pulumi-version"]);
    expect((await run(path.join(await pulumiBinDir(), "pulumi"), ["version"])).stdout.trim()).toBe(`v${version}`);
  });

  it("every job that touches the state has the state's address, its S3 pair and the passphrase from the secret store", () => {
    const stateJobs = Object.entries(workflow.jobs).filter(([, j]) => j.env?.["PULUMI_BACKEND_URL"] !== undefined);
    expect(stateJobs.map(([id]) => id).sort()).toEqual(["drift", "preview", "up"]);
    for (const [id, j] of stateJobs) {
      expect(j.env, id).toMatchObject({
        PULUMI_BACKEND_URL: "${{ secrets.PULUMI_BACKEND_URL }}",
        AWS_ACCESS_KEY_ID: "${{ secrets.AWS_ACCESS_KEY_ID }}",
        AWS_SECRET_ACCESS_KEY: "${{ secrets.AWS_SECRET_ACCESS_KEY }}",
        PULUMI_CONFIG_PASSPHRASE: "${{ secrets.PULUMI_CONFIG_PASSPHRASE }}",
        CLOUDPLATFORM_API_KEY: "${{ secrets.CLOUDPLATFORM_API_KEY }}",
      });
    }
  });

  it("nothing can cancel a merge's pending up: up is alone in its group, which no other job or event reaches", async () => {
    const document = await readYaml<WorkflowDocument>(path.join(example, ".github", "workflows", "infrastructure.yml"));
    expect(document.concurrency).toBeUndefined();
    expect(threatsToUp(document)).toEqual([]);
    // Only pushes to main run up, and the jobs that share the stack wait in groups of their own.
    expect(events.filter((e) => evaluateIf(document.jobs["up"]!.if!, e))).toEqual([merge]);
    expect(evaluateIf(document.jobs["up"]!.if!, { name: "push", ref: "refs/heads/feature" })).toBe(false);
    for (const id of ["preview", "drift"]) expect(document.jobs[id]?.concurrency?.group, id).toBeDefined();
    // The check fails the file this replaced: one workflow-level group for every event.
    const single: WorkflowDocument = {
      concurrency: { group: "infrastructure", "cancel-in-progress": false },
      jobs: Object.fromEntries(Object.entries(document.jobs).map(([id, j]) => [id, { ...j, concurrency: undefined }])),
    };
    expect(threatsToUp(single)).toContain("preview on pull_request queues in up's group infrastructure");
    expect(threatsToUp(single)).toContain("drift on schedule queues in up's group infrastructure");
    // And a group per ref alone: the nightly check runs on main's ref too.
    const perRef: WorkflowDocument = {
      jobs: Object.fromEntries(
        Object.entries(document.jobs).map(([id, j]) => [
          id,
          { ...j, concurrency: { group: "infra-${{ github.ref }}" } },
        ]),
      ),
    };
    expect(threatsToUp(perRef)).toContain("drift on schedule queues in up's group infra-refs/heads/main");
  });

  it("the README's set-up, from an empty folder: the packages from vendor/ (none from the registry), the prod stack on the state bucket, all of it committed", async () => {
    // The team's new repository, and this folder copied into it.
    await mkdir(repository);
    await run("git", ["init", "--quiet", "--initial-branch=main"], { cwd: repository });
    await cp(example, repository, { recursive: true, filter: (source) => !/[/\\]node_modules$/.test(source) });
    const manifest = JSON.parse(await readFile(path.join(repository, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    // Never a range under names anyone could publish.
    expect(manifest.dependencies["pulumi-cloudplatform"]).toBe("file:vendor/pulumi-cloudplatform-0.1.0.tgz");
    expect(manifest.devDependencies["cloudplatform-emulator"]).toBe("file:vendor/cloudplatform-emulator-0.1.0.tgz");
    expect(path.basename(tarballs.provider)).toBe("pulumi-cloudplatform-0.1.0.tgz");
    expect(path.basename(tarballs.emulator)).toBe("cloudplatform-emulator-0.1.0.tgz");

    const setup = await readYaml<{ runs: { steps: Array<{ name?: string; run?: string }> } }>(
      path.join(example, ".github", "actions", "setup", "action.yml"),
    );
    const setupInstall = setup.runs.steps.find((step) => step.name === "npm ci")?.run;
    if (setupInstall === undefined) throw new Error("the setup action has no npm ci step");
    const blocks = await readmeBlocks("Set it up once", "examples/gitops/README.md", 2);
    expect(blocks.map((b) => b.language)).toEqual(["sh", "sh"]);
    const values = { repository: repoRoot, baseUrl: platform.baseUrl, s3Url: platform.s3Url };
    const pack = readerScript(blocks[0]!, values, {
      // The same `npm pack` of the same folders, made once for this run (support/packages.ts).
      '(cd /path/to/pulumi-cloudplatform && npm ci && npm pack --pack-destination "$OLDPWD/vendor")': `cp "${tarballs.provider}" vendor/`,
      '(cd /path/to/pulumi-cloudplatform/emulator && npm pack --pack-destination "$OLDPWD/vendor")': `cp "${tarballs.emulator}" vendor/`,
    });
    const env = {
      ...npmEnv(),
      ...maintainerEnv({
        // The machine's npm cache, so that @pulumi/pulumi and the rest come from it when they can.
        npm_config_cache: path.join(process.env["HOME"] ?? tmpdir(), ".npm"),
        npm_config_prefer_offline: "true",
        npm_config_audit: "false",
        npm_config_fund: "false",
        GIT_AUTHOR_NAME: "Maintainer",
        GIT_AUTHOR_EMAIL: "maintainer@example.test",
        GIT_COMMITTER_NAME: "Maintainer",
        GIT_COMMITTER_EMAIL: "maintainer@example.test",
      }),
    };
    for (const script of [pack, readerScript(blocks[1]!, values)]) {
      await run("bash", ["-c", script], { cwd: repository, env, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
    }

    // Both installed from the tarballs in vendor/, as `npm ci` on a runner will.
    const lock = JSON.parse(await readFile(path.join(repository, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; version?: string }>;
    };
    expect(lock.packages["node_modules/pulumi-cloudplatform"]?.resolved).toBe(
      "file:vendor/pulumi-cloudplatform-0.1.0.tgz",
    );
    expect(lock.packages["node_modules/cloudplatform-emulator"]?.resolved).toBe(
      "file:vendor/cloudplatform-emulator-0.1.0.tgz",
    );
    const fromRegistry = Object.entries(lock.packages).filter(
      ([at, entry]) =>
        /(^|\/)(pulumi-cloudplatform|cloudplatform-emulator)$/.test(at) && !entry.resolved?.startsWith("file:"),
    );
    expect(fromRegistry).toEqual([]);
    // Committed: what a runner's checkout needs (vendor/ above all), and no node_modules.
    const committed = (await run("git", ["ls-files"], { cwd: repository })).stdout.split("\n");
    expect(committed).toEqual(
      expect.arrayContaining([
        "vendor/pulumi-cloudplatform-0.1.0.tgz",
        "vendor/cloudplatform-emulator-0.1.0.tgz",
        "package.json",
        "package-lock.json",
        "Pulumi.prod.yaml",
        "index.ts",
        ".github/workflows/infrastructure.yml",
        ".github/actions/setup/action.yml",
        ".github/scripts/pulumi-unlocked.sh",
      ]),
    );
    expect(committed.filter((file) => file.startsWith("node_modules/"))).toEqual([]);
    // A runner's checkout holds only what is committed: the setup's `npm ci` installs from it alone.
    const clone = path.join(scratch, "clone");
    await run("git", ["clone", "--quiet", repository, clone]);
    await run("bash", ["-c", setupInstall], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
    for (const installed of ["pulumi-cloudplatform/package.json", ".bin/cloudplatform-emulator"]) {
      await access(path.join(clone, "node_modules", installed));
    }

    const stackFile = await readYaml<{ encryptionsalt?: string; config: Record<string, string> }>(
      path.join(repository, "Pulumi.prod.yaml"),
    );
    expect(stackFile.config).toEqual({
      "cloudplatform:baseUrl": platform.baseUrl,
      "cloudplatform:s3Url": platform.s3Url,
      "site-infra:zoneName": "example.com",
    });
    expect(stackFile.encryptionsalt).toMatch(/^v1:/);
    expect(await readFile(path.join(repository, "Pulumi.prod.yaml"), "utf8")).not.toContain(platform.apiKey);
    // The stack lives in the state bucket.
    expect([...(await stateObjects()).keys()]).toContain(".pulumi/stacks/site-infra/prod.json");
  });

  it("a pull request: check deploys to the emulator (the installed cloudplatform-emulator) and back; preview's summary says what merging creates", async () => {
    const results = await pipeline(pullRequest);
    expect(results.map((r) => r.id)).toEqual(["check", "preview"]);
    const check = job(results, "check");
    expect(check.ok, failure(check)).toBe(true);
    expect(check.log).toMatch(/\+ 4 created/);
    expect(check.log).toMatch(/- 4 deleted/);
    const preview = job(results, "preview");
    expect(preview.ok, failure(preview)).toBe(true);
    expect(preview.summary).toContain("### `pulumi preview` of `prod`");
    // The counts, then the whole diff.
    expect(preview.summary).toContain("```\nResources:\n    + 4 to create\n```");
    expect(preview.summary).toMatch(/\+ pulumi-nodejs:dynamic\/cloudplatform:BucketCredential: \(create\)/);
    expect(preview.summary).toContain("assets-writer");
    // A preview changes nothing: the platform holds only the state bucket.
    expect(await stackObjects()).toEqual({ buckets: 0, credentials: 0, zones: 0 });
  });

  it("the merge: check, then up creates the stack's objects on the platform", async () => {
    const results = await pipeline(merge);
    expect(results.map((r) => r.id)).toEqual(["check", "up"]);
    const up = job(results, "up");
    expect(up.ok, failure(up)).toBe(true);
    expect(up.summary).toBe("### `pulumi up` of `prod`\n\n```\nResources:\n    + 4 created\n```\n");
    expect(await stackObjects()).toEqual({ buckets: 1, credentials: 1, zones: 1 });
    expect((await credentialOnPlatform()).active).toBe(true);
  });

  it("the scheduled drift check passes while nothing changed outside Pulumi", async () => {
    const results = await pipeline(schedule);
    expect(results.map((r) => r.id)).toEqual(["drift"]);
    const drift = job(results, "drift");
    expect(drift.ok, failure(drift)).toBe(true);
    expect(drift.summary).toContain("### No drift: `prod` is what the platform holds");
  });

  let drifted: string;

  it("a change behind Pulumi's back: the credential deactivated with the management API, as from the dashboard", async () => {
    const credential = await credentialOnPlatform();
    const at = `/object-storage/buckets/${credential.bucket_id}/credentials/${credential.access_key_id}/deactivate`;
    expect((await management(platform, "POST", at)).status).toBe(200);
    drifted = await digest();
  });

  it("the scheduled check fails, names the drift in its summary, and writes nothing to the state", async () => {
    const drift = job(await pipeline(schedule), "drift");
    expect(drift.ok).toBe(false);
    expect(drift.steps.at(-1)?.name).toBe("pulumi refresh --preview-only --expect-no-changes");
    expect(drift.summary).toContain("### Drift: `prod` differs from what the platform holds");
    expect(drift.summary).not.toContain("could not run");
    expect(drift.summary).toMatch(/~ pulumi-nodejs:dynamic\/cloudplatform:BucketCredential: \(update\)/);
    expect(drift.summary).toContain("cloudplatform:BucketCredential::assets-writer");
    expect(drift.summary).toMatch(/~ active\s*: true => false/);
    expect(drift.log).toContain("::error title=Drift on prod::");
    expect(await digest()).toBe(drifted);
    // Still failing on the next run: nothing was accepted.
    expect(job(await pipeline(schedule), "drift").summary).toContain("### Drift:");
  });

  it("why --preview-only: `pulumi refresh --yes --expect-no-changes` would save the drift, and the next check would pass", async () => {
    // A copy of the state bucket in a folder: a file:// backend holds the same objects.
    const copy = path.join(scratch, "state-copy");
    for (const [key, body] of await stateObjects()) {
      await mkdir(path.dirname(path.join(copy, key)), { recursive: true });
      await writeFile(path.join(copy, key), body);
    }
    const secrets = { ...options.secrets, PULUMI_BACKEND_URL: `file://${copy}` };
    const plain = await pulumi(
      ["refresh", "--stack", "prod", "--yes", "--expect-no-changes", "--non-interactive"],
      secrets,
    ).then(
      () => "passed",
      () => "failed",
    );
    expect(plain).toBe("failed");
    // The file's own check, on the state that refresh saved: the drift is no longer seen.
    const hidden = job(await pipeline(schedule, { secrets }), "drift");
    expect(hidden.ok, failure(hidden)).toBe(true);
    expect((await credentialOnPlatform()).active).toBe(false);
    expect(await digest()).toBe(drifted);
  });

  it("the fix: up again (the main pipeline re-run; it refreshes first) puts the program's value back on the platform", async () => {
    const up = job(await pipeline(merge), "up");
    expect(up.ok, failure(up)).toBe(true);
    expect(up.summary).toContain("```\nResources:\n    ~ 1 updated\n    3 unchanged\n```");
    expect((await credentialOnPlatform()).active).toBe(true);
  });

  it("the scheduled check passes again", async () => {
    const drift = job(await pipeline(schedule), "drift");
    expect(drift.ok, failure(drift)).toBe(true);
    expect(drift.summary).toContain("### No drift");
  });

  it("a zone and the bucket deleted by hand: the check names both as gone, up puts them back, the check passes", async () => {
    const inventory = await new Platform(platform).objects();
    const assets = inventory.buckets.find((b) => b.name !== STATE_BUCKET)!;
    for (const at of [`/object-storage/buckets/${assets.id}`, `/dns/zones/${inventory.zones[0]!.id}`]) {
      expect((await management(platform, "DELETE", at)).status, at).toBeLessThan(300);
    }
    const before = await digest();
    const drift = job(await pipeline(schedule), "drift");
    expect(drift.ok).toBe(false);
    expect(drift.summary).toContain("### Drift: `prod` differs from what the platform holds");
    expect(drift.summary).toMatch(/- pulumi-nodejs:dynamic\/cloudplatform:DnsZone: \(delete\)/);
    expect(drift.summary).toMatch(/- pulumi-nodejs:dynamic\/cloudplatform:Bucket: \(delete\)/);
    expect(await digest()).toBe(before);

    const up = job(await pipeline(merge), "up");
    expect(up.ok, failure(up)).toBe(true);
    expect(up.summary).toMatch(/\+ 3 created/);
    expect(await stackObjects()).toEqual({ buckets: 1, credentials: 1, zones: 1 });
    const again = job(await pipeline(schedule), "drift");
    expect(again.ok, failure(again)).toBe(true);
  });

  it("up waits while someone else holds the stack's lock (a maintainer's `pulumi up` by hand), then applies", async () => {
    const lock = `.pulumi/locks/organization/site-infra/prod/${randomUUID()}.json`;
    const client = stateClient();
    try {
      const held = { pid: 1, username: "runner", hostname: "maintainers-laptop", timestamp: new Date().toISOString() };
      await client.send(new PutObjectCommand({ Bucket: STATE_BUCKET, Key: lock, Body: JSON.stringify(held) }));
      // The up job alone (its check passed above), so that it meets the lock; in a folder of its own,
      // so that its checkout's up.txt is the only one there. The lock is let go once that file says
      // the up was refused (or the job ended), not after a fixed time: however slow the machine is
      // to start the job, the up meets the lock, and this file can share the cores with others.
      const jobRoot = await mkdtemp(path.join(scratch, "locked-up-"));
      let ended = false;
      const running = runJob(workflow, "up", merge, { ...options, scratch: jobRoot });
      running.then(
        () => (ended = true),
        () => (ended = true),
      );
      while (!ended && !(await refusedForTheLock(jobRoot))) await sleep(250);
      await client.send(new DeleteObjectCommand({ Bucket: STATE_BUCKET, Key: lock }));
      const up = await running;
      jobs.push(up);
      expect(up.ok, failure(up)).toBe(true);
      expect(up.log).toMatch(/The stack is locked by another run \(attempt 1 of \d+\)/);
      expect(up.summary).toContain("Resources:\n    4 unchanged");
    } finally {
      client.destroy();
    }
  });

  it("the nightly check with a wrong state pair: could not run, with the error, never drift", async () => {
    const secrets = { ...options.secrets, AWS_SECRET_ACCESS_KEY: randomBytes(30).toString("base64") };
    const drift = job(await pipeline(schedule, { secrets }), "drift");
    expect(drift.ok).toBe(false);
    expect(drift.summary).toContain("### The drift check could not run: `prod` was not compared with the platform");
    expect(drift.summary).not.toContain("### Drift:");
    expect(drift.summary).toMatch(/SignatureDoesNotMatch|InvalidAccessKeyId|403/);
    expect(drift.log).toContain("::error title=Drift check could not run on prod::");
    expect(drift.log).not.toContain("::error title=Drift on prod::");
  });

  it("the nightly check with a revoked API key: could not run, with the platform's answer, never drift", async () => {
    // The key rotated from the dashboard (POST /security/apikey): the one in the secret store is revoked.
    const rotated = await management(platform, "POST", "/security/apikey", {});
    expect(rotated.status).toBe(200);
    const { api_key: current } = (await rotated.json()) as { api_key: string };
    secretsSeen.add(current);
    const drift = job(await pipeline(schedule), "drift");
    expect(drift.ok).toBe(false);
    expect(drift.summary).toContain("### The drift check could not run: `prod` was not compared with the platform");
    expect(drift.summary).not.toContain("### Drift:");
    expect(drift.summary).not.toContain("```diff");
    expect(drift.summary).toMatch(/401|unauthori[sz]ed/i);
    expect(drift.log).toContain("::error title=Drift check could not run on prod::");
    expect(drift.log).not.toContain("::error title=Drift on prod::");
    expect(await stackObjects()).toEqual({ buckets: 1, credentials: 1, zones: 1 });
  });

  it("no secret in any log, summary or state: the keys, the state pair, the passphrase, the credential's secret", async () => {
    const s3Secret = (await pulumi(["stack", "output", "secretAccessKey", "--show-secrets", "--stack", "prod"])).trim();
    expect(s3Secret.length).toBeGreaterThan(20);
    const exported = await pulumi(["stack", "export", "--stack", "prod"]);
    expect(exported).toContain("assets-writer");
    const stateText = [...(await stateObjects()).values()].map((b) => b.toString("latin1")).join("\n");
    const secrets = [s3Secret, ...[...secretsSeen].filter((s) => !s.startsWith("s3://") && !s.startsWith("file://"))];
    expect(secrets).toContain(options.secrets["AWS_SECRET_ACCESS_KEY"]);
    for (const secret of secrets) {
      expect(exported.includes(secret)).toBe(false);
      expect(stateText.includes(secret)).toBe(false);
      for (const result of jobs) {
        expect(result.log.includes(secret), result.id).toBe(false);
        expect(result.summary.includes(secret), result.id).toBe(false);
      }
    }
    expect(jobs.length).toBeGreaterThanOrEqual(16);
  });
});
