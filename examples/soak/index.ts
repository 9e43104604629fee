// A program of about a hundred resources, the shape of a real project: buckets (half of them
// auto-named), two S3 credentials per bucket, and DNS zones. `npm run soak` deploys it again and
// again under faults and kills, then compares the platform with the stack (docs/soak.md).
//
// Names the soak relies on to find each declared object on the platform:
//   Bucket "bucket-NN": even NN named "<namePrefix>-bucket-NN", odd NN auto-named ("bucket-NN-" + 7 characters)
//   BucketCredential "bucket-NN-cred-K" (K from 0), on bucket-NN
//   DnsZone "zone-NN", named "zone-NN.<namePrefix>.test"
//
// Stack config (all optional; connection settings as in ../quickstart):
//   buckets               number of buckets                          [30]
//   credentialsPerBucket  credentials on each bucket                 [2]
//   zones                 number of DNS zones                        [8]
//   namePrefix            makes bucket and zone names unique         [soak]
//   adoptBuckets          logical names of buckets to adopt (JSON list), e.g. ["bucket-04"]:
//                         what a user adds when a create fails because the name is taken
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();
const bucketCount = config.getNumber("buckets", { min: 0, max: 1000 }) ?? 30;
const credentialsPerBucket = config.getNumber("credentialsPerBucket", { min: 0, max: 20 }) ?? 2;
const zoneCount = config.getNumber("zones", { min: 0, max: 500 }) ?? 8;
const namePrefix = config.get("namePrefix", { pattern: /^[a-z0-9][a-z0-9-]{0,30}[a-z0-9]$/ }) ?? "soak";
const adopted = new Set(config.getObject<string[]>("adoptBuckets") ?? []);

const pad = (n: number): string => String(n).padStart(2, "0");

const bucketNames: pulumi.Output<string>[] = [];
let credentialCount = 0;
for (let i = 0; i < bucketCount; i++) {
  const logical = `bucket-${pad(i)}`;
  const bucket = new cloudplatform.Bucket(logical, {
    name: i % 2 === 0 ? `${namePrefix}-${logical}` : undefined,
    forceDestroy: true,
    adopt: adopted.has(logical) ? true : undefined,
  });
  bucketNames.push(bucket.name);
  for (let k = 0; k < credentialsPerBucket; k++) {
    new cloudplatform.BucketCredential(`${logical}-cred-${k}`, { bucketId: bucket.bucketId });
    credentialCount++;
  }
}

const zoneNames: pulumi.Output<string>[] = [];
for (let i = 0; i < zoneCount; i++) {
  zoneNames.push(new cloudplatform.DnsZone(`zone-${pad(i)}`, { name: `zone-${pad(i)}.${namePrefix}.test` }).name);
}

export const buckets = pulumi.all(bucketNames);
export const zones = pulumi.all(zoneNames);
export const credentials = credentialCount;
