/**
 * The calls a RotatingBucketCredential makes besides the credential calls it shares with
 * BucketCredential (../bucket-credential/api.ts): one signed S3 request that tells whether a stored
 * secret still works (docs/api-contract.md §7).
 */
import { s3Client, s3Sdk } from "../../s3-client.js";
import { verdictOfRefusal, type SecretVerdict } from "./parse.js";

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
