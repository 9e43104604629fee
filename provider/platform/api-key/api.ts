/** The API key call of the management API (docs/api-contract.md §3). */
import type { ApiClient } from "../../client.js";
import { hasCode, OutcomeUnknownError } from "../../errors.js";
import { registerSecret } from "../../redact.js";
import { listZones } from "../dns-zone/api.js";
import { apiKeySchema, type ApiKeyResponse } from "./parse.js";

/**
 * Generates or rotates the project API key. Repeating it cannot duplicate anything (the last key
 * returned is the valid one), unless the provider authenticates with the key it rotates
 * (`selfAuthenticated`): once a rotation is processed the old key is dead, so a repeat after a lost
 * answer would be refused and the new key would stay unknown. Then an unknown outcome is settled
 * first by asking the platform whether the old key still works.
 */
export async function rotateApiKey(client: ApiClient, selfAuthenticated = false): Promise<ApiKeyResponse> {
  const res = await client.request({
    method: "POST",
    path: "/security/apikey",
    schema: apiKeySchema,
    idempotent: !selfAuthenticated,
    ...(selfAuthenticated ? { reconcile: () => settleLostRotation(client) } : {}),
  });
  registerSecret(res.data.api_key);
  return res.data;
}

/**
 * After a rotation of the key this client authenticates with went unanswered: a request with the
 * old key tells whether it happened. Still accepted: it did not, and the rotation is repeated
 * (undefined). Refused: the platform rotated the key and the answer carrying the new one is lost.
 */
async function settleLostRotation(client: ApiClient): Promise<undefined> {
  try {
    await listZones(client, "cloudplatform-key-check.invalid");
    return undefined;
  } catch (err) {
    if (!hasCode(err, "CLOUDPLATFORM_UNAUTHORIZED")) throw err;
    throw new OutcomeUnknownError(
      "the platform rotated the project API key (POST /security/apikey), but its answer, which carried the new " +
        "key, was lost on the way; the key this provider authenticates with stopped working at that moment, and " +
        "the new one is known only to the platform",
      "Nothing else was changed. To recover: generate a key in the dashboard and set it with `pulumi config set " +
        "--secret cloudplatform:apiKey <key>`, or authenticate with a dashboard token instead (`pulumi config set " +
        "--secret cloudplatform:token <jwt>` and `pulumi config rm cloudplatform:apiKey`); then run `pulumi up` " +
        "again, which rotates the key once more and records it in the state.",
      { endpoint: "POST /security/apikey", cause: err },
    );
  }
}
