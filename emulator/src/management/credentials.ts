import { z } from "zod";
import { missing } from "../api-error.js";
import { newAccessKeyId, newSecretAccessKey } from "../ids.js";
import type { BucketRecord, CredentialRecord, StateStore } from "../state.js";
import { parseBody } from "./body.js";
import { findBucket } from "./buckets.js";
import { deletedReply, listReply, objectReply, type Reply } from "../replies.js";
import type { HandlerContext, Route } from "../router.js";

const BASE = "/object-storage/buckets/{bucketId}/credentials";
const noBody = z.strictObject({});

/** What list, activate and deactivate show: never the secret (spec §2). */
function publicView(c: CredentialRecord): Omit<CredentialRecord, "secret_access_key"> {
  return { access_key_id: c.access_key_id, active: c.active, bucket_id: c.bucket_id, created_at: c.created_at };
}

/** Per-bucket S3 credentials (docs/api-contract.md §6). */
export function credentialRoutes(state: StateStore): Route[] {
  const bucketOf = (ctx: HandlerContext): BucketRecord => findBucket(state, ctx.params["bucketId"]!);
  /** A credential of another bucket is reported exactly like an unknown one. */
  const credentialOf = (ctx: HandlerContext): CredentialRecord => {
    const bucket = bucketOf(ctx);
    const key = ctx.params["accessKeyId"]!;
    const cred = state.getCredential(key);
    if (cred === undefined || cred.bucket_id !== bucket.id) missing(`credential ${key} of bucket ${bucket.name}`);
    return cred;
  };
  const setActive =
    (active: boolean) =>
    async (ctx: HandlerContext): Promise<Reply> => {
      await parseBody(ctx.req, noBody, {});
      const cred = credentialOf(ctx);
      const next = cred.active === active ? cred : state.updateCredential(cred.access_key_id, { active });
      return {
        type: "state_set",
        kind: "credential",
        value: publicView(next),
        summary: `credential ${next.access_key_id} ${active ? "activated" : "deactivated"}`,
      };
    };

  return [
    {
      method: "POST",
      path: BASE,
      async handle(ctx) {
        await parseBody(ctx.req, noBody, {});
        const cred: CredentialRecord = {
          access_key_id: newAccessKeyId(),
          secret_access_key: newSecretAccessKey(),
          active: true,
          bucket_id: bucketOf(ctx).id,
          created_at: new Date().toISOString(),
        };
        state.addCredential(cred);
        return objectReply("credential", cred, 201);
      },
    },
    {
      method: "GET",
      path: BASE,
      async handle(ctx) {
        return listReply("credential", state.listCredentials(bucketOf(ctx).id).map(publicView));
      },
    },
    { method: "POST", path: `${BASE}/{accessKeyId}/deactivate`, handle: setActive(false) },
    { method: "POST", path: `${BASE}/{accessKeyId}/activate`, handle: setActive(true) },
    {
      method: "POST",
      path: `${BASE}/{accessKeyId}/regenerate`,
      async handle(ctx) {
        await parseBody(ctx.req, noBody, {});
        const cred = credentialOf(ctx);
        return objectReply(
          "credential",
          state.updateCredential(cred.access_key_id, { secret_access_key: newSecretAccessKey() }),
        );
      },
    },
    {
      method: "DELETE",
      path: `${BASE}/{accessKeyId}`,
      async handle(ctx) {
        const cred = credentialOf(ctx);
        state.deleteCredential(cred.access_key_id);
        return deletedReply("credential", `credential ${cred.access_key_id} deleted`);
      },
    },
  ];
}
