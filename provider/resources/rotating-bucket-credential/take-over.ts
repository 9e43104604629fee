/**
 * A slot taken over from an existing credential of the bucket (`takeOver`), as BucketCredential's
 * `accessKeyId` takes one over: the credential is kept as it is, its secret unknown to Pulumi
 * (`secretKnown` false, no secret, no fingerprint) until a rotation regenerates it. The one place
 * where a slot is taken over.
 */
import type { CallContext } from "../../contract.js";
import { NotFoundError } from "../../errors.js";
import { listCredentials } from "../bucket-credential/api.js";
import type { Held } from "./slots.js";

export async function takeOverSlot(ctx: CallContext, bucketId: string, accessKeyId: string): Promise<Held> {
  const live = (await listCredentials(ctx.client, bucketId)).find((c) => c.access_key_id === accessKeyId);
  if (live === undefined) {
    throw new NotFoundError(
      `bucket ${bucketId} has no credential ${accessKeyId} to take over`,
      "Check takeOver: `getBucketCredentials({ bucketId })` lists the bucket's credentials.",
    );
  }
  ctx.log.info(`took over credential ${accessKeyId} unchanged; its secret stays unknown to Pulumi until rotated.`);
  return {
    accessKeyId,
    secretAccessKey: "",
    secretKnown: false,
    status: live.active === false ? "inactive" : "active",
  };
}
