// examples/gitops as an infra repository lives it, its pipeline run step by step from the workflow
// file as written (support/workflow.ts: the jobs an event starts, their `run:` steps through bash,
// each job in a fresh checkout with the runner's variables), against an emulator playing the
// platform: the one-time setup of its README, a pull request (check, preview and its summary), the
// merge (check, up), a scheduled drift check passing, a credential deactivated behind Pulumi's
// back, the check failing with the drift named and the state untouched, why --preview-only, a fix
// (up), the check passing again; no secret in any log, summary or state.
//
// What stands in for GitHub: the `uses:` steps (the checkout is the fresh copy; the setup is an
// install of the packed pulumi-cloudplatform and cloudplatform-emulator, and the Pulumi CLI v3.259.0
// on PATH) and the Node.js language host, which these machines lack (support/language-host.mts).
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, management, type Emulator } from "../support/emulator.js";
import { emulatorState, Platform } from "../support/platform.mts";
import { npmEnv, npmPack, plainPath } from "./support/packages.js";
import { pulumiBinDir, repoRoot } from "./support/plugin-cli.js";
import { readerScript, readmeBlocks } from "./support/readme.js";
import {
  readWorkflow,
  readYaml,
  runEvent,
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

let scratch: string;
let repository: string;
let backend: string;
let platform: Emulator;
let workflow: Workflow;
let options: RunnerOptions;
/** Every job run, for the checks of what logs and summaries show. */
const jobs: JobResult[] = [];

async function pipeline(event: WorkflowEvent, overrides: Partial<RunnerOptions> = {}): Promise<JobResult[]> {
  const results = await runEvent(workflow, event, { ...options, ...overrides });
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

/** The Pulumi CLI in the repository's folder, with the secrets' environment (as a maintainer runs it). */
async function pulumi(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run("pulumi", [...args], {
    cwd: repository,
    env: { HOME: path.join(scratch, "maintainer"), PATH: options.path, ...options.secrets, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** A digest of every file of a file:// backend: equal digests, nothing written. */
async function digest(dir: string): Promise<string> {
  const hash = createHash("sha256");
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  for (const file of files.map((e) => path.join(e.parentPath, e.name)).sort()) {
    hash.update(file).update(await readFile(file));
  }
  return hash.digest("hex");
}

async function credentialOnPlatform(): Promise<{ bucket_id: string; access_key_id: string; active: boolean }> {
  const inventory = await new Platform(platform).objects();
  expect(inventory.credentials).toHaveLength(1);
  return inventory.credentials[0]!;
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-gitops-"));
  const [provider, emulatorPackage, binDir] = await Promise.all([
    npmPack(".", scratch),
    npmPack("emulator", scratch),
    pulumiBinDir(),
  ]);
  // The repository, as the example is copied into one: its packages come from the packed tarballs
  // (neither is on npm yet), everything else from the registry as for any user.
  repository = path.join(scratch, "repository");
  await cp(example, repository, { recursive: true, filter: (source) => !source.endsWith("node_modules") });
  const manifestFile = path.join(repository, "package.json");
  const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  manifest.dependencies["pulumi-cloudplatform"] = `file:${provider}`;
  // The version this repository is tested with (the range would take the newest from the registry).
  manifest.dependencies["@pulumi/pulumi"] = (
    createRequire(path.join(repoRoot, "package.json"))("@pulumi/pulumi/package.json") as { version: string }
  ).version;
  manifest.devDependencies["cloudplatform-emulator"] = `file:${emulatorPackage}`;
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: repository,
    env: npmEnv(),
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  // The Node.js language host's stand-in, where the CLI looks for it.
  const hostDir = path.join(scratch, "language-host");
  await mkdir(hostDir);
  const host = path.join(hostDir, "pulumi-language-nodejs");
  const standIn = path.join(repoRoot, "test", "e2e", "support", "language-host.mts");
  await writeFile(host, `#!/bin/sh\nexec "${process.execPath}" "${standIn}" "$@"\n`);
  await chmod(host, 0o755);

  backend = path.join(scratch, "state");
  await mkdir(backend);
  platform = await launchEmulator();
  workflow = await readWorkflow(path.join(example, ".github", "workflows", "infrastructure.yml"));
  options = {
    repository,
    nodeModules: path.join(repository, "node_modules"),
    path: plainPath([hostDir, binDir]),
    secrets: {
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
      CLOUDPLATFORM_API_KEY: platform.apiKey,
    },
    uses: {
      "actions/checkout@v6": "the job's fresh copy of the repository",
      "./.github/actions/setup": "Node.js 24, node_modules installed above, the Pulumi CLI v3.259.0 on PATH",
    },
    scratch,
  };
}, 600_000);
afterAll(async () => {
  await platform?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

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

  it("the one-time setup, run as the README says: the prod stack, its config in git, nothing secret in it", async () => {
    const [block] = await readmeBlocks("Set it up once", "examples/gitops/README.md", 2);
    if (block?.language !== "sh")
      throw new Error("examples/gitops/README.md: expected a sh block under Set it up once");
    const script = readerScript(
      block,
      { repository: repoRoot, baseUrl: platform.baseUrl, s3Url: platform.s3Url },
      // Installed above, from the packed tarballs; the folder is what later checkouts copy.
      { "npm install": ":", 'git add Pulumi.prod.yaml package-lock.json && git commit -m "The prod stack"': ":" },
    );
    await run("bash", ["-c", script], {
      cwd: repository,
      env: { HOME: path.join(scratch, "maintainer"), PATH: options.path, ...options.secrets },
    });
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
  });

  it("a pull request: check deploys to the emulator (npx cloudplatform-emulator) and back; preview's summary says what merging creates", async () => {
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
    // A preview changes nothing: the platform is still empty.
    expect(await emulatorState(platform)).toMatchObject({ buckets: 0, credentials: 0, zones: 0 });
  });

  it("the merge: check, then up creates the stack's objects on the platform", async () => {
    const results = await pipeline(merge);
    expect(results.map((r) => r.id)).toEqual(["check", "up"]);
    const up = job(results, "up");
    expect(up.ok, failure(up)).toBe(true);
    expect(up.summary).toBe("### `pulumi up` of `prod`\n\n```\nResources:\n    + 4 created\n```\n");
    expect(await emulatorState(platform)).toMatchObject({ buckets: 1, credentials: 1, zones: 1 });
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
    drifted = await digest(backend);
  });

  it("the scheduled check fails, names the drift in its summary, and writes nothing to the state", async () => {
    const drift = job(await pipeline(schedule), "drift");
    expect(drift.ok).toBe(false);
    expect(drift.steps.at(-1)?.name).toBe("pulumi refresh --preview-only --expect-no-changes");
    expect(drift.summary).toContain("### Drift: `prod` differs from what the platform holds");
    expect(drift.summary).toMatch(/~ pulumi-nodejs:dynamic\/cloudplatform:BucketCredential: \(update\)/);
    expect(drift.summary).toContain("cloudplatform:BucketCredential::assets-writer");
    expect(drift.summary).toMatch(/~ active\s*: true => false/);
    expect(drift.log).toContain("::error title=Drift on prod::");
    expect(await digest(backend)).toBe(drifted);
    // Still failing on the next run: nothing was accepted.
    expect(job(await pipeline(schedule), "drift").ok).toBe(false);
  });

  it("why --preview-only: `pulumi refresh --yes --expect-no-changes` would save the drift, and the next check would pass", async () => {
    const copy = path.join(scratch, "state-copy");
    await cp(backend, copy, { recursive: true });
    const secrets = { ...options.secrets, PULUMI_BACKEND_URL: `file://${copy}` };
    const plain = await pulumi(
      ["refresh", "--stack", "prod", "--yes", "--expect-no-changes", "--non-interactive"],
      secrets,
    ).then(
      () => "passed",
      () => "failed",
    );
    expect(plain).toBe("failed");
    expect(await digest(copy)).not.toBe(drifted);
    // The file's own check, on the state that refresh saved: the drift is no longer seen.
    const hidden = job(await pipeline(schedule, { secrets }), "drift");
    expect(hidden.ok).toBe(true);
    expect((await credentialOnPlatform()).active).toBe(false);
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

  it("no secret in any log, summary or state: the API key and the credential's secret", async () => {
    const s3Secret = (await pulumi(["stack", "output", "secretAccessKey", "--show-secrets", "--stack", "prod"])).trim();
    expect(s3Secret.length).toBeGreaterThan(20);
    const exported = await pulumi(["stack", "export", "--stack", "prod"]);
    expect(exported).toContain("assets-writer");
    for (const secret of [platform.apiKey, s3Secret]) {
      expect(exported.includes(secret)).toBe(false);
      for (const result of jobs) {
        expect(result.log.includes(secret), result.id).toBe(false);
        expect(result.summary.includes(secret), result.id).toBe(false);
      }
    }
    expect(jobs.length).toBeGreaterThanOrEqual(10);
  });
});
