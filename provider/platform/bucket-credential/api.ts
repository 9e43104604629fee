/**
 * The S3 credential calls of the management API (docs/api-contract.md §6): lists followed across
 * pages, actions and deletes done on any 2xx.
 */
import { ignoreNotFound, type Created } from "../../answers/outcomes.js";
import { listAll } from "../../answers/paging.js";
import { pathOf, type ApiClient } from "../../client.js";
import { hasCode, withHint } from "../../errors.js";
import { registerSecret } from "../../redact.js";
import {
  credentialListSchema,
  credentialWithSecretSchema,
  type Credential,
  type CredentialWithSecret,
} from "./parse.js";

export async function listCredentials(client: ApiClient, bucketId: string): Promise<Credential[]> {
  return listAll(client, pathOf`/object-storage/buckets/${bucketId}/credentials`, {}, credentialListSchema);
}

/**
 * How a credential create finds its earlier attempt after an unknown outcome: a credential has
 * nothing but an access key id the platform picks, so only the caller, who knows which ids the
 * bucket held before, can tell the new one (docs/api-contract.md §2.4). `"repeat"`: a duplicate is
 * harmless (a temporary credential of a bucket about to be deleted), so the create is just repeated.
 */
export type CredentialReconcile = (() => Promise<CredentialWithSecret | undefined>) | "repeat";

export async function createCredential(
  client: ApiClient,
  bucketId: string,
  reconcile: CredentialReconcile,
): Promise<Created<CredentialWithSecret>> {
  const res = await client.request({
    method: "POST",
    path: pathOf`/object-storage/buckets/${bucketId}/credentials`,
    schema: credentialWithSecretSchema,
    ...(reconcile === "repeat" ? { idempotent: true } : { reconcile }),
  });
  registerSecret(res.data.secret_access_key);
  return { value: res.data, reconciled: res.reconciled === true };
}

/** Activates or deactivates. Nothing of the answer is needed: any 2xx (204, the object, a message) is done. */
export async function setCredentialActive(
  client: ApiClient,
  bucketId: string,
  accessKeyId: string,
  active: boolean,
): Promise<void> {
  const action = active ? "activate" : "deactivate";
  await client.request({
    method: "POST",
    path: pathOf`/object-storage/buckets/${bucketId}/credentials/${accessKeyId}/` + action,
    // Activate and deactivate set a state: repeating them is harmless (contract §6).
    idempotent: true,
  });
}

/**
 * Regenerates the secret. The new secret exists only in the answer, and the old one is dead once
 * the platform processed the request: an answer without the secret is regenerated again once (a
 * repeat only yields a newer secret), then fails with `CLOUDPLATFORM_UNEXPECTED_RESPONSE`.
 */
export async function regenerateCredential(
  client: ApiClient,
  bucketId: string,
  accessKeyId: string,
): Promise<CredentialWithSecret> {
  const regenerate = () =>
    client.request({
      method: "POST",
      path: pathOf`/object-storage/buckets/${bucketId}/credentials/${accessKeyId}/regenerate`,
      schema: credentialWithSecretSchema,
      idempotent: true,
    });
  let res;
  try {
    res = await regenerate();
  } catch (err) {
    if (!hasCode(err, "CLOUDPLATFORM_UNEXPECTED_RESPONSE")) throw err;
    try {
      res = await regenerate();
    } catch (again) {
      throw withHint(
        again,
        "CLOUDPLATFORM_UNEXPECTED_RESPONSE",
        `Two regenerations were answered without a readable secret: the previous secret of ${accessKeyId} no ` +
          "longer works. Run `pulumi up` again to regenerate it.",
      );
    }
  }
  registerSecret(res.data.secret_access_key);
  return res.data;
}

export async function deleteCredential(client: ApiClient, bucketId: string, accessKeyId: string): Promise<boolean> {
  return ignoreNotFound(
    client.request({ method: "DELETE", path: pathOf`/object-storage/buckets/${bucketId}/credentials/${accessKeyId}` }),
  );
}
