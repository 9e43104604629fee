/**
 * What a RotatingBucketCredential asks S3 besides the credential calls it shares with
 * BucketCredential (platform/bucket-credential/api.ts): one request signed with a stored secret
 * that tells whether the secret still works (docs/api-contract.md §7), which is how a refresh sees
 * a secret regenerated outside Pulumi. The management API never shows a secret again, so nothing
 * else can.
 */
import { s3Client, s3Sdk } from "../s3-client.js";

/**
 * Asks S3 for the bucket's location (`GET /<bucket>?location`, the cheapest request whose error has
 * a body) signed with the pair. Tried three times before a failure counts as `untold`.
 */
export async function probeSecret(
  s3Url: string,
  region: string,
  bucketName: string,
  pair: { readonly accessKeyId: string; readonly secretAccessKey: string },
): Promise<SecretVerdict> {
  const s3 = s3Client(s3Url, region, pair, 3);
  try {
    await s3.send(new (s3Sdk().GetBucketLocationCommand)({ Bucket: bucketName }));
    return "works";
  } catch (err) {
    return verdictOfRefusal(err);
  } finally {
    s3.destroy();
  }
}

/**
 * `works`: S3 accepted the secret. `superseded`: S3 refused its signature (`SignatureDoesNotMatch`),
 * so the credential's secret is no longer the stored one. `untold`: anything else (the credential
 * deactivated or deleted, which its bucket's list says better; a network failure; a busy server).
 */
export type SecretVerdict = "works" | "superseded" | "untold";

/** The verdict of an S3 error, from the error code of its XML body (the SDK's exception name). */
export function verdictOfRefusal(err: unknown): SecretVerdict {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "SignatureDoesNotMatch" ? "superseded" : "untold";
}
