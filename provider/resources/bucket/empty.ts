/**
 * Empties a bucket for `forceDestroy`: the management API cannot delete objects (spec §1), so a
 * temporary credential is created, the bucket is emptied through S3 with it (s3/empty.ts), and the
 * credential is deleted again.
 */
import type { ApiClient } from "../../client.js";
import { createCredential, deleteCredential } from "../../platform/bucket-credential/api.js";
import { emptyWith, type EmptyResult } from "../../s3/empty.js";

export type { EmptyResult };

export async function emptyBucket(
  client: ApiClient,
  s3Url: string,
  bucketId: string,
  bucketName: string,
): Promise<EmptyResult> {
  // Repeated blindly after an unknown outcome: a second temporary credential goes with the bucket.
  const cred = (await createCredential(client, bucketId, "repeat")).value;
  try {
    return await emptyWith(s3Url, bucketName, {
      accessKeyId: cred.access_key_id,
      secretAccessKey: cred.secret_access_key,
    });
  } finally {
    // A failure here must not hide the outcome above, and it leaks nothing: deleting the bucket
    // deletes its credentials (contract §5).
    await deleteCredential(client, bucketId, cred.access_key_id).catch(() => false);
  }
}
