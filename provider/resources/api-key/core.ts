/**
 * ApiKey: the project's API key (docs/api-contract.md §3). A project has one key: create and every
 * rotation call POST /security/apikey, which invalidates the previous key at once. There is no read
 * or revoke endpoint, so refresh keeps the state and destroy only forgets the key (with a warning).
 */
import { randomUUID } from "node:crypto";
import type { CallContext, ResourceCore } from "../../contract.js";
import { withHint } from "../../errors.js";
import { fingerprint } from "../../redact.js";
import { diffInputs, inputsFrom, sameJson, unknownInputs } from "../../tables.js";
import { stringMap } from "../validate.js";
import { rotateApiKey } from "../../platform/api-key/api.js";
import { apiKeyTable, type ApiKeyInputs, type ApiKeyOutputs } from "./fields.js";

export type { ApiKeyInputs, ApiKeyOutputs };

type ApiKeyCore = ResourceCore<ApiKeyInputs, ApiKeyOutputs>;

async function generate(ctx: CallContext): Promise<{ key: string; secretFingerprint: string; createdAt?: string }> {
  const client = ctx.client;
  const selfAuth = client.settings.auth.kind === "apiKey";
  let res;
  try {
    // Authenticating with the key it rotates, a lost answer cannot simply be repeated (api.ts).
    res = await rotateApiKey(client, selfAuth);
  } catch (err) {
    if (!selfAuth) throw err;
    throw withHint(
      err,
      "CLOUDPLATFORM_UNAUTHORIZED",
      "The provider authenticates with the key it rotates, and the platform refused that key: it was rotated or " +
        "revoked before this run. Generate a key in the dashboard and set it with " +
        "`pulumi config set --secret cloudplatform:apiKey <key>`.",
    );
  }
  if (selfAuth) {
    // One key per project: the key this provider authenticates with has just stopped working.
    ctx.useApiKey(res.api_key);
    ctx.log.warn(
      "the provider authenticated with the project API key, which this rotation replaced; " +
        "the rest of this run uses the new key. Update the stack config before the next run, e.g. export the key " +
        'as a stack output and run `pulumi config set --secret cloudplatform:apiKey "$(pulumi stack output <output> --show-secrets)"` ' +
        "(or set CLOUDPLATFORM_API_KEY).",
    );
  }
  return {
    key: res.api_key,
    secretFingerprint: fingerprint(res.api_key),
    ...(res.created_at === undefined ? {} : { createdAt: res.created_at }),
  };
}

const check: ApiKeyCore["check"] = (_ctx, _olds, news) => {
  const failures = unknownInputs(apiKeyTable, news);
  const rotate = stringMap("rotateWhenChanged", news["rotateWhenChanged"], failures);
  return { inputs: rotate === undefined ? {} : { rotateWhenChanged: rotate }, failures };
};

const diff: ApiKeyCore["diff"] = (_ctx, _id, olds, news) => {
  return diffInputs(apiKeyTable, olds, news);
};

const create: ApiKeyCore["create"] = async (ctx, inputs) => {
  const generated = await generate(ctx);
  // The id must not be the key (ids are never secret): a random UUID names this resource.
  return {
    id: randomUUID(),
    outs: { ...generated, ...(inputs.rotateWhenChanged ? { rotateWhenChanged: inputs.rotateWhenChanged } : {}) },
  };
};

const read: ApiKeyCore["read"] = async (_ctx, id, state) => {
  // No endpoint reads the key back: the state is the only truth.
  return { id, outs: state, inputs: inputsFrom(apiKeyTable, state) };
};

const update: ApiKeyCore["update"] = async (ctx, _id, olds, news) => {
  if (sameJson(olds.rotateWhenChanged, news.rotateWhenChanged)) {
    return { ...olds, ...(news.rotateWhenChanged ? { rotateWhenChanged: news.rotateWhenChanged } : {}) };
  }
  const generated = await generate(ctx);
  return { ...generated, ...(news.rotateWhenChanged ? { rotateWhenChanged: news.rotateWhenChanged } : {}) };
};

const remove: ApiKeyCore["delete"] = async (ctx) => {
  ctx.log.warn(
    "the platform has no endpoint to revoke an API key, so the key stays valid after this " +
      "resource is deleted. Rotate it (create an ApiKey again, or use the dashboard) if it must stop working.",
  );
};

const importing: ApiKeyCore["importing"] = {
  supported: false,
  reason:
    "the platform has no endpoint that reads an API key back; create an ApiKey resource instead (it rotates the key)",
};

const operations = { check, diff, create, read, update, delete: remove };

export const apiKeyCore: ApiKeyCore = { table: apiKeyTable, importing, ...operations };
