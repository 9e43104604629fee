// A Pulumi program over the generated Node.js SDK (@pulumi-cloudplatform/sdk), as a TypeScript user
// writes one: its classes and lookups, loaded with @pulumi/pulumi from the program folder's own
// node_modules (where the test installed the packed SDK), never from this repository. Run by
// sdk-nodejs.test.ts as `node sdk-program.mts <request JSON>` in a plain child process (the
// Automation API hosts the Node runtime itself, so no language host is needed), with the
// environment the test chose; prints one JSON answer line.
import { createRequire } from "node:module";
import path from "node:path";
import type * as automation from "@pulumi/pulumi/automation/index.js";
// Types only: the SDK is type-checked from sdks/nodejs, and loaded at run time from the program folder.
import type * as cloudplatformSdk from "../../../sdks/nodejs/index.js";

export interface SdkProgramRequest {
  readonly op: "up" | "preview" | "refresh" | "destroy";
  readonly pulumiBinDir: string;
  /** The program folder: @pulumi/pulumi and @pulumi-cloudplatform/sdk are installed in its node_modules. */
  readonly workDir: string;
  readonly config: Readonly<Record<string, { readonly value: string; readonly secret?: boolean }>>;
  readonly zoneName: string;
  readonly credentialActive: boolean;
}

export interface SdkProgramAnswer {
  readonly ok: boolean;
  readonly changes?: Record<string, number>;
  readonly outputs?: Record<string, { value: unknown; secret: boolean }>;
  readonly error?: string;
}

async function main(request: SdkProgramRequest): Promise<SdkProgramAnswer> {
  const load = createRequire(path.join(request.workDir, "package.json"));
  const auto = load("@pulumi/pulumi/automation") as typeof automation;
  const cloudplatform = load("@pulumi-cloudplatform/sdk") as typeof cloudplatformSdk;

  const program = async (): Promise<Record<string, unknown>> => {
    const bucket = new cloudplatform.Bucket("media", { forceDestroy: true });
    const writer = new cloudplatform.BucketCredential("media-writer", {
      bucketId: bucket.bucketId,
      active: request.credentialActive,
    });
    const zone = new cloudplatform.DnsZone("site", { name: request.zoneName });
    // The output form of a lookup runs once its argument is known: after the credential exists.
    const listed = cloudplatform.getBucketCredentialsOutput({ bucketId: writer.bucketId });
    const found = cloudplatform.getDnsZoneOutput({ name: zone.name });
    return {
      bucketId: bucket.bucketId,
      bucketName: writer.bucketName,
      s3Endpoint: writer.s3Endpoint,
      region: writer.region,
      accessKeyId: writer.accessKeyId,
      secretAccessKey: writer.secretAccessKey,
      active: writer.active,
      zoneId: zone.zoneId,
      nameservers: zone.nameservers,
      lookedUpZoneId: found.zoneId,
      listedCredentials: listed.credentials,
    };
  };

  const pulumiCommand = await auto.PulumiCommand.get({
    root: path.dirname(request.pulumiBinDir),
    skipVersionCheck: true,
  });
  const stack = await auto.LocalWorkspace.createOrSelectStack(
    { stackName: "dev", projectName: "cloudplatform-sdk-nodejs", program },
    { workDir: request.workDir, pulumiCommand },
  );
  await stack.setAllConfig(
    Object.fromEntries(
      Object.entries(request.config).map(([k, v]) => [k, { value: v.value, secret: v.secret ?? false }]),
    ),
  );
  switch (request.op) {
    case "preview": {
      const result = await stack.preview();
      return { ok: true, changes: { ...result.changeSummary } };
    }
    case "up": {
      const result = await stack.up();
      return { ok: true, changes: { ...result.summary.resourceChanges }, outputs: result.outputs };
    }
    case "refresh": {
      const result = await stack.refresh();
      return { ok: true, changes: { ...result.summary.resourceChanges } };
    }
    case "destroy": {
      const result = await stack.destroy();
      return { ok: true, changes: { ...result.summary.resourceChanges } };
    }
  }
}

const request = JSON.parse(process.argv[2] ?? "{}") as SdkProgramRequest;
main(request).then(
  (answer) => console.log(JSON.stringify(answer)),
  (error: unknown) =>
    console.log(JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) })),
);
