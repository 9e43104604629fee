// examples/rotation as its tests drive it: its config keys, and the pairs an S3 client takes from
// its outputs.
import type { Pair } from "../../../scripts/lib/s3-reader.mts";
import type { Platform } from "../../support/platform.mts";
import { output, type Config, type RunResult } from "../../support/runner.js";

const project = "cloudplatform-rotation";

/** Stack config of the example's own keys (`rotation`, `rotateAfter`, `bucketId`, …). */
export const setting = (values: Record<string, string>): Config =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [`${project}:${key}`, { value }]));

/** The current pair of an `up`'s outputs, or the previous one: what an S3 client needs. */
export function pairOf(up: RunResult, role: "current" | "previous" = "current"): Pair {
  const named = (name: string) => (role === "current" ? name : `previous${name[0]?.toUpperCase()}${name.slice(1)}`);
  return {
    endpoint: output(up, "s3Endpoint"),
    region: output(up, "region"),
    bucket: output(up, "bucketName"),
    accessKeyId: output(up, named("accessKeyId")),
    secretAccessKey: output(up, named("secretAccessKey")),
  };
}

/** The credentials of the bucket named `bucketName` on the platform. */
export async function credentialsOn(platform: Platform, bucketName: string): Promise<string[]> {
  const bucket = (await platform.inventory()).buckets.find((b) => b.name === bucketName);
  return [...(bucket?.credentials ?? [])].sort();
}
