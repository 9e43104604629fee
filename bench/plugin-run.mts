// One timed step of bench/plugin.mts, in a process of its own (the Automation API hosts the Node
// runtime of an inline program in the calling process, and each `up` must start from a clean one):
//   node bench/plugin-run.mts '<request JSON>'
// prints one JSON line: the step's wall time and, after `up`, the state's size.
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import type * as pulumiSdk from "@pulumi/pulumi";
import type * as automation from "@pulumi/pulumi/automation/index.js";

const run = promisify(execFile);

/** What is deployed: the engine's floor, the dynamic SDK's resources, the plugin's resources. */
export type Variant = "floor" | "dynamic" | "plugin";

export interface StepRequest {
  readonly variant: Variant;
  readonly op: "up" | "destroy";
  /** Resources in the program; the bucket variants declare n/2 buckets and n/2 credentials. */
  readonly n: number;
  /** Holds Pulumi.yaml and the node_modules link of the packed package. */
  readonly workDir: string;
  readonly pulumiBinDir: string;
  /** The engine's variables: backend, PULUMI_HOME (with the plugin installed for "plugin"), PATH. */
  readonly env: Readonly<Record<string, string>>;
  readonly config: Readonly<Record<string, { readonly value: string; readonly secret: boolean }>>;
}

export interface StepAnswer {
  readonly ok: boolean;
  readonly seconds?: number;
  readonly changes?: Record<string, number>;
  /** `pulumi stack export` (no secrets shown): bytes in all, and the resources it holds. */
  readonly stateBytes?: number;
  readonly stateResources?: number;
  readonly error?: string;
}

type Sdk = typeof pulumiSdk;
type Outputs = Record<string, pulumiSdk.Output<unknown>>;

function program(request: StepRequest, pulumi: Sdk, load: NodeJS.Require): () => Promise<void> {
  const pairs = request.n / 2;
  if (request.variant === "floor") {
    // The cheapest resource the engine can manage: a dynamic resource whose create does nothing.
    const noop: pulumiSdk.dynamic.ResourceProvider = { create: async () => ({ id: "noop", outs: {} }) };
    class Noop extends pulumi.dynamic.Resource {}
    return async () => {
      for (let i = 0; i < request.n; i++) new Noop(noop, `noop-${i}`, {}, {});
    };
  }
  if (request.variant === "dynamic") {
    // Loaded by name from the packed install, as a program's `import` would.
    const cloudplatform = load("pulumi-cloudplatform") as typeof import("pulumi-cloudplatform");
    return async () => {
      for (let i = 0; i < pairs; i++) {
        const bucket = new cloudplatform.Bucket(`b-${i}`, { forceDestroy: true });
        new cloudplatform.BucketCredential(`c-${i}`, { bucketId: bucket.bucketId });
      }
    };
  }
  // What a generated SDK's classes are: custom resources of the plugin's type tokens.
  class TokenResource extends pulumi.CustomResource {}
  return async () => {
    for (let i = 0; i < pairs; i++) {
      const props = { forceDestroy: true, bucketId: undefined };
      const bucket = new TokenResource("cloudplatform:index:Bucket", `b-${i}`, props) as unknown as Outputs;
      new TokenResource("cloudplatform:index:BucketCredential", `c-${i}`, { bucketId: bucket["bucketId"] });
    }
  };
}

async function main(request: StepRequest): Promise<StepAnswer> {
  Object.assign(process.env, request.env);
  const load = createRequire(path.join(request.workDir, "index.js"));
  const pulumi = load("@pulumi/pulumi") as Sdk;
  const auto = load("@pulumi/pulumi/automation") as typeof automation;
  const pulumiCommand = await auto.PulumiCommand.get({
    root: path.dirname(request.pulumiBinDir),
    skipVersionCheck: true,
  });
  const stack = await auto.LocalWorkspace.createOrSelectStack(
    { stackName: request.variant, projectName: "cloudplatform-bench", program: program(request, pulumi, load) },
    { workDir: request.workDir, envVars: { ...request.env }, pulumiCommand },
  );
  await stack.setAllConfig({ ...request.config });
  const started = process.hrtime.bigint();
  const result = request.op === "up" ? await stack.up() : await stack.destroy();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const changes = { ...result.summary.resourceChanges };
  if (request.op === "destroy") return { ok: true, seconds, changes };
  const { stdout } = await run(
    path.join(request.pulumiBinDir, "pulumi"),
    ["stack", "export", "--stack", request.variant],
    {
      cwd: request.workDir,
      env: { ...process.env },
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const resources = (JSON.parse(stdout) as { deployment: { resources?: unknown[] } }).deployment.resources ?? [];
  return { ok: true, seconds, changes, stateBytes: Buffer.byteLength(stdout), stateResources: resources.length };
}

main(JSON.parse(process.argv[2] ?? "{}") as StepRequest).then(
  (answer) => {
    process.stdout.write(`\n${JSON.stringify(answer)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stdout.write(
      `\n${JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) })}\n`,
    );
    process.exit(0);
  },
);
