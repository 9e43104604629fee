/**
 * Taking over a credential that exists already (`accessKeyId` of a BucketCredential, and any
 * resource that holds a credential it did not make): it is found on its bucket and kept exactly as
 * it is. Nothing is written: no create, no regenerate, no activate. Its secret stays unknown, since
 * the platform shows a secret only when it creates or regenerates it (docs/api-contract.md §6).
 */
import type { CallContext } from "../contract.js";
import { NotFoundError } from "../errors.js";
import { cachedCredentialList, nameOfBucket } from "./bucket-facts.js";
import { listCredentials } from "../platform/bucket-credential/api.js";
import type { Credential } from "../platform/bucket-credential/parse.js";

export interface TakenOver {
  /** The credential as its bucket lists it (never with a secret). */
  readonly credential: Credential;
  readonly bucketName: string;
}

/**
 * The existing credential `accessKeyId` of `bucketId`, to be held from now on as it is. Throws a
 * `CLOUDPLATFORM_NOT_FOUND` error naming both when the bucket does not exist or does not hold it.
 * A list read a moment ago by another call of this process is used when it shows the credential
 * (a take-over of many credentials of one bucket costs one list); one that does not is read again.
 */
export async function takeOverCredential(ctx: CallContext, bucketId: string, accessKeyId: string): Promise<TakenOver> {
  const bucketName = await nameOfBucket(ctx, bucketId);
  const find = (list: readonly Credential[]) => list.find((c) => c.access_key_id === accessKeyId);
  const credential =
    find(await cachedCredentialList(ctx, bucketId)) ?? find(await listCredentials(ctx.client, bucketId));
  if (credential === undefined) {
    throw new NotFoundError(
      `no credential ${accessKeyId} exists on bucket ${bucketId} ("${bucketName}") to take over`,
      "Check the access key id and bucketId (`getBucketCredentials({ bucketId })` lists a bucket's credentials), " +
        "or leave the access key id out to create a new credential.",
    );
  }
  return { credential, bucketName };
}
