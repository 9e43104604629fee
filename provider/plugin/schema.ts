/**
 * The Pulumi package schema of `cloudplatform` (served by GetSchema): what other languages'
 * SDK generators, `pulumi import` code generation and `pulumi package get-schema` read. Property
 * names are the cores' wire names; descriptions follow docs/api-contract.md.
 */
import { cores, packageName, tokenOf } from "./cores.js";

type Kind = "string" | "boolean" | "integer" | "number" | "stringMap" | "stringList";

interface Prop {
  readonly kind: Kind;
  readonly description: string;
  readonly secret?: boolean;
}

interface ResourceDoc {
  readonly description: string;
  readonly inputs: Record<string, Prop>;
  readonly requiredInputs: readonly string[];
  /** Outputs beyond the inputs (every input is also an output). */
  readonly outputs: Record<string, Prop>;
  readonly requiredOutputs: readonly string[];
}

const rotate: Prop = {
  kind: "stringMap",
  description: "Any change to this map rotates the secret in place (new value, same resource).",
};
const createdAt: Prop = { kind: "string", description: "Creation time (RFC 3339), when the API reports it." };
const s3Endpoint: Prop = { kind: "string", description: "The S3 endpoint (`cloudplatform:s3Url`)." };
const region: Prop = { kind: "string", description: "The S3 region; always `us-east-1`." };

/** Keyed by core type; a test checks that every core has an entry and nothing else does. */
export const resourceDocs: Record<string, ResourceDoc> = {
  ApiKey: {
    description:
      "The project's API key. Creating it, or changing `rotateWhenChanged`, rotates the key (the previous key stops working). " +
      "There is no revoke endpoint: deleting only forgets the key.",
    inputs: { rotateWhenChanged: rotate },
    requiredInputs: [],
    outputs: { key: { kind: "string", description: "The API key.", secret: true }, createdAt },
    requiredOutputs: ["key"],
  },
  DnsZone: {
    description: "A DNS zone. Changing the name replaces the zone (deleted first: zone names are unique).",
    inputs: { name: { kind: "string", description: 'The zone\'s domain name, e.g. "example.com".' } },
    requiredInputs: ["name"],
    outputs: {
      zoneId: { kind: "string", description: "The platform's zone id." },
      status: { kind: "string", description: "The zone's status as the API reports it." },
      nameservers: { kind: "stringList", description: "The nameservers to delegate the domain to." },
      createdAt,
    },
    requiredOutputs: ["zoneId", "name", "nameservers"],
  },
  Bucket: {
    description: "An object-storage bucket, reachable over S3 at `s3Endpoint` (path-style, region `us-east-1`).",
    inputs: {
      name: {
        kind: "string",
        description:
          "The bucket (and S3) name, unique on the platform. Defaults to the resource name plus 7 random characters. Changing it replaces the bucket.",
      },
      storageClass: {
        kind: "string",
        description: "Standard (default), InfrequentAccess or Archive. Changing it replaces the bucket.",
      },
      forceDestroy: {
        kind: "boolean",
        description: "Empty the bucket (objects and unfinished uploads) before deleting it. Defaults to false.",
      },
      adopt: {
        kind: "boolean",
        description: "Take over an existing bucket of this name in the project instead of failing. Defaults to false.",
      },
    },
    requiredInputs: [],
    outputs: {
      bucketId: { kind: "string", description: "The platform's bucket id." },
      s3Endpoint,
      region,
      adopted: { kind: "boolean", description: "True when create adopted an existing bucket." },
      createdAt,
    },
    requiredOutputs: ["bucketId", "name", "storageClass"],
  },
  BucketCredential: {
    description:
      "An S3 key pair scoped to one bucket. `active` switches it on and off in place; a `rotateWhenChanged` change " +
      "regenerates the secret in place. The secret cannot be read back: an imported credential has none until rotated.",
    inputs: {
      bucketId: {
        kind: "string",
        description: "The bucket's id (a Bucket's `bucketId`). Changing it replaces the credential.",
      },
      active: { kind: "boolean", description: "Whether the credential works. Defaults to true." },
      rotateWhenChanged: rotate,
    },
    requiredInputs: ["bucketId"],
    outputs: {
      accessKeyId: { kind: "string", description: "The S3 access key id (also the resource id)." },
      secretAccessKey: { kind: "string", description: "The S3 secret access key.", secret: true },
      bucketName: { kind: "string", description: "The bucket's name, as S3 clients need it." },
      s3Endpoint,
      region,
      createdAt,
    },
    requiredOutputs: ["bucketId", "accessKeyId", "active"],
  },
  Transcript: {
    description:
      "One transcription job run to completion during `pulumi up` (paid when it ends `done`). Give exactly one of `url` and `sourcePath`.",
    inputs: {
      url: { kind: "string", description: "Public http(s) URL of the audio or video." },
      sourcePath: {
        kind: "string",
        description:
          "Local media file (relative paths start from the program directory), uploaded before the job starts.",
      },
      language: { kind: "string", description: 'ISO 639-1 code such as "en", or "auto" (default).' },
      glossary: { kind: "stringMap", description: "What is heard → how it is written." },
      webhookUrl: { kind: "string", description: "URL the platform calls when the job ends." },
      waitForCompletion: {
        kind: "boolean",
        description: "Wait for the job to finish during `pulumi up`. Defaults to true.",
      },
      timeoutMinutes: {
        kind: "number",
        description: "How long to wait for the job before keeping it as partial state.",
      },
    },
    requiredInputs: [],
    outputs: {
      sourceHash: { kind: "string", description: "sha256 of the source file; a change re-runs the job." },
      transcriptId: { kind: "string", description: "The platform's transcript id." },
      status: { kind: "string", description: "queued, processing, done or error." },
      text: { kind: "string", description: "The transcript text." },
      detectedLanguage: { kind: "string", description: "The language the platform reports." },
      audioDurationSeconds: { kind: "number", description: "Duration of the media." },
      priceUsd: { kind: "number", description: "Price of the job in US dollars." },
      errorCode: { kind: "string", description: "Error code of a failed job." },
      errorMessage: { kind: "string", description: "Error message of a failed job." },
      createdAt,
      completedAt: { kind: "string", description: "When the job ended." },
      expiredAt: { kind: "string", description: "Set once a refresh found the result gone after the 7-day retention." },
    },
    requiredOutputs: ["transcriptId", "status", "language"],
  },
};

const configDocs: Record<string, Prop> = {
  baseUrl: { kind: "string", description: "Management API address (or CLOUDPLATFORM_BASE_URL)." },
  s3Url: { kind: "string", description: "S3 endpoint (or CLOUDPLATFORM_S3_URL); needed by buckets and credentials." },
  apiUrl: { kind: "string", description: "Transcription API address; defaults to baseUrl (or CLOUDPLATFORM_API_URL)." },
  apiKey: { kind: "string", description: "Project API key (or CLOUDPLATFORM_API_KEY); wins over token.", secret: true },
  token: { kind: "string", description: "Dashboard token (JWT) (or CLOUDPLATFORM_TOKEN).", secret: true },
};

type Spec = Record<string, unknown>;

function typeSpec(kind: Kind): Spec {
  switch (kind) {
    case "stringMap":
      return { type: "object", additionalProperties: { type: "string" } };
    case "stringList":
      return { type: "array", items: { type: "string" } };
    default:
      return { type: kind };
  }
}

function propertySpec(p: Prop): Spec {
  return { ...typeSpec(p.kind), description: p.description, ...(p.secret ? { secret: true } : {}) };
}

function properties(props: Record<string, Prop>): Record<string, Spec> {
  return Object.fromEntries(Object.entries(props).map(([k, p]) => [k, propertySpec(p)]));
}

export function buildSchema(version: string): Spec {
  const resources: Record<string, Spec> = {};
  for (const core of cores) {
    const doc = resourceDocs[core.type];
    if (doc === undefined) continue;
    const secretOutputs = new Set(core.secretOutputs);
    const outputs = properties({ ...doc.inputs, ...doc.outputs });
    for (const name of secretOutputs)
      if (outputs[name] !== undefined) outputs[name] = { ...outputs[name], secret: true };
    resources[tokenOf(core.type)] = {
      description: doc.description,
      inputProperties: properties(doc.inputs),
      requiredInputs: [...doc.requiredInputs],
      properties: outputs,
      required: [...doc.requiredOutputs],
    };
  }
  return {
    name: packageName,
    displayName: "Cloud Platform",
    version,
    description: "API key, DNS zones, buckets, per-bucket S3 credentials and transcripts of the Cloud Platform.",
    license: "Apache-2.0",
    config: { variables: properties(configDocs) },
    provider: { description: "The Cloud Platform provider.", inputProperties: properties(configDocs) },
    resources,
    language: { nodejs: { packageName: "pulumi-cloudplatform" } },
  };
}

export function schemaJson(version: string): string {
  return JSON.stringify(buildSchema(version));
}
