// A Pulumi program that knows the cloudplatform resources only by type token, as a generated SDK of
// any language does: no code of this repository is loaded, so the engine must start the provider
// plugin it finds installed. Run by plugin-install.test.ts as `node token-program.mts <request JSON>`
// in a plain child process (the Automation API hosts the Node runtime itself, so no language host is
// needed), with the environment the test chose; prints one JSON answer line.
import { createRequire } from "node:module";
import path from "node:path";
import type * as pulumiSdk from "@pulumi/pulumi";
import type * as automation from "@pulumi/pulumi/automation/index.js";

export interface TokenProgramRequest {
  readonly op: "preview" | "up" | "destroy";
  /** The repository, whose node_modules holds @pulumi/pulumi for the program (never for the plugin). */
  readonly repoRoot: string;
  readonly pulumiBinDir: string;
  readonly workDir: string;
  readonly config: Readonly<Record<string, { readonly value: string; readonly secret?: boolean }>>;
  readonly zoneName: string;
}

export interface TokenProgramAnswer {
  readonly ok: boolean;
  readonly changes?: Record<string, number>;
  readonly outputs?: Record<string, { value: unknown; secret: boolean }>;
  readonly error?: string;
}

type Outputs = Record<string, pulumiSdk.Output<unknown>>;

async function main(request: TokenProgramRequest): Promise<TokenProgramAnswer> {
  const load = createRequire(path.join(request.repoRoot, "package.json"));
  const pulumi = load("@pulumi/pulumi") as typeof pulumiSdk;
  const auto = load("@pulumi/pulumi/automation") as typeof automation;

  // What a generated SDK's class is: a custom resource of a type token. Properties given as
  // undefined are the outputs the program reads back.
  class TokenResource extends pulumi.CustomResource {}
  const declare = (type: string, name: string, props: Record<string, unknown>): Outputs =>
    new TokenResource(`cloudplatform:index:${type}`, name, props) as unknown as Outputs;
  const program = async (): Promise<Record<string, unknown>> => {
    const bucket = declare("Bucket", "assets", { forceDestroy: true, bucketId: undefined, name: undefined });
    const credential = declare("BucketCredential", "writer", {
      bucketId: bucket.bucketId,
      accessKeyId: undefined,
      secretAccessKey: undefined,
    });
    const zone = declare("DnsZone", "zone", { name: request.zoneName, zoneId: undefined });
    return {
      bucketName: bucket.name,
      accessKeyId: credential.accessKeyId,
      secretAccessKey: credential.secretAccessKey,
      zoneId: zone.zoneId,
    };
  };

  const pulumiCommand = await auto.PulumiCommand.get({
    root: path.dirname(request.pulumiBinDir),
    skipVersionCheck: true,
  });
  const stack = await auto.LocalWorkspace.createOrSelectStack(
    { stackName: "tokens", projectName: "cloudplatform-plugin-install", program },
    { workDir: request.workDir, pulumiCommand },
  );
  await stack.setAllConfig(
    Object.fromEntries(
      Object.entries(request.config).map(([k, v]) => [k, { value: v.value, secret: v.secret ?? false }]),
    ),
  );
  if (request.op === "preview") {
    const result = await stack.preview();
    return { ok: true, changes: { ...result.changeSummary } };
  }
  if (request.op === "up") {
    const result = await stack.up();
    return { ok: true, changes: { ...result.summary.resourceChanges }, outputs: result.outputs };
  }
  const result = await stack.destroy();
  return { ok: true, changes: { ...result.summary.resourceChanges } };
}

const request = JSON.parse(process.argv[2] ?? "{}") as TokenProgramRequest;
main(request).then(
  (answer) => console.log(JSON.stringify(answer)),
  (error: unknown) =>
    console.log(JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) })),
);
