/** The reader of the API key answer (docs/api-contract.md §3), by the rules of provider/answers/ (§2.3). */
import { createdNames, findObject, hasAny, reader } from "../../answers/find.js";
import { text, timestamp } from "../../answers/values.js";

export interface ApiKeyResponse {
  readonly api_key: string;
  readonly created_at: string | undefined;
}

const apiKeyNames = ["api_key", "key", "token", "api_token", "access_token", "value", "secret"];
/** Spec §2: `<prefix>-<rest>`; a value of that form is preferred over another string field. */
const apiKeyForm = /^[A-Za-z0-9]+-\S+$/;

export const apiKeySchema = reader((raw): ApiKeyResponse => {
  const prefixed = (v: unknown) => (typeof v === "string" && apiKeyForm.test(v) ? v : undefined);
  const f = findObject(raw, ["api_key", "key", "token"], [hasAny(apiKeyNames, prefixed), hasAny(apiKeyNames, text)]);
  return {
    api_key: f.read(apiKeyNames, prefixed) ?? f.need(apiKeyNames, text, "API key (api_key, key, token)"),
    created_at: f.read(createdNames, timestamp),
  };
});
