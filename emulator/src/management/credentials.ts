import { z } from "zod";
import { notFound } from "../api-error.js";
import { newAccessKeyId, newSecretAccessKey } from "../ids.js";
import type { CredentialRecord, StateStore } from "../state.js";
import { parseBody } from "./body.js";
import type { HandlerContext, Route } from "./router.js";

const BASE = "/object-storage/buckets/{bucketId}/credentials";
const noBody = z.strictObject({});

/** What list, activate and deactivate show: never the secret (spec §2). */
function publicView(c: CredentialRecord): Omit<CredentialRecord, "secret_access_key"> {
  return { access_key_id: c.access_key_id, active: c.active, bucket_id: c.bucket_id, created_at: c.created_at };
}

/** Per-bucket S3 credentials (docs/api-contract.md §6). */
export function credentialRoutes(state: StateStore): Route[] {
  const bucketOf = (ctx: HandlerContext): string => {
    const id = ctx.params["bucketId"]!;
    if (state.getBucket(id) === undefined) throw notFound(`bucket ${id}`);
    return id;
  };
  /** A credential of another bucket is reported exactly like an unknown one. */
  const credentialOf = (ctx: HandlerContext): CredentialRecord => {
    const bucketId = bucketOf(ctx);
    const key = ctx.params["accessKeyId"]!;
    const cred = state.getCredential(key);
    if (cred === undefined || cred.bucket_id !== bucketId) throw notFound(`credential ${key} of bucket ${bucketId}`);
    return cred;
  };
  const setActive = (active: boolean) => async (ctx: HandlerContext) => {
    await parseBody(ctx.req, noBody, {});
    const cred = credentialOf(ctx);
    const next = cred.active === active ? cred : state.updateCredential(cred.access_key_id, { active });
    return { status: 200, body: publicView(next) };
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
          bucket_id: bucketOf(ctx),
          created_at: new Date().toISOString(),
        };
        state.addCredential(cred);
        return { status: 201, body: cred };
      },
    },
    {
      method: "GET",
      path: BASE,
      async handle(ctx) {
        return { status: 200, body: state.listCredentials(bucketOf(ctx)).map(publicView) };
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
        return {
          status: 200,
          body: state.updateCredential(cred.access_key_id, { secret_access_key: newSecretAccessKey() }),
        };
      },
    },
    {
      method: "DELETE",
      path: `${BASE}/{accessKeyId}`,
      async handle(ctx) {
        state.deleteCredential(credentialOf(ctx).access_key_id);
        return { status: 204 };
      },
    },
  ];
}
