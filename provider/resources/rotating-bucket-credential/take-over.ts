/**
 * A slot taken over from an existing credential of the bucket (`takeOver`), found as
 * BucketCredential's `accessKeyId` finds one (takeOverCredential): the credential is kept as it is,
 * its secret unknown to Pulumi (`secretKnown` false, no secret, no fingerprint) until a rotation
 * regenerates it. The one place where a slot is taken over.
 */
import type { CallContext } from "../../contract.js";
import { takeOverCredential } from "../credential-take-over.js";
import type { Held } from "./slots.js";

export async function takeOverSlot(ctx: CallContext, bucketId: string, accessKeyId: string): Promise<Held> {
  const { credential: live } = await takeOverCredential(ctx, bucketId, accessKeyId);
  ctx.log.info(`took over credential ${accessKeyId} unchanged; its secret stays unknown to Pulumi until rotated.`);
  return {
    accessKeyId,
    secretAccessKey: "",
    secretKnown: false,
    status: live.active === false ? "inactive" : "active",
  };
}
