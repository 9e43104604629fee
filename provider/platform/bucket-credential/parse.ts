/** Readers of the S3 credential answers (docs/api-contract.md §6), by the rules of provider/answers/ (§2.3). */
import { createdNames, findObject, hasAny, reader } from "../../answers/find.js";
import { AnswerObject } from "../../answers/object.js";
import { listOf } from "../../answers/paging.js";
import { flag, identifier, text, timestamp } from "../../answers/values.js";

export interface Credential {
  readonly access_key_id: string;
  /** Undefined when the answer does not say. */
  readonly active: boolean | undefined;
  readonly bucket_id: string | undefined;
  readonly created_at: string | undefined;
}

export interface CredentialWithSecret extends Credential {
  readonly secret_access_key: string;
}

const credentialKinds = ["credential", "s3_credential", "access_key", "key", "credentials"];
/** Never a bare `key`: on some platforms that is the secret, which must never become an id. */
const accessKeyNames = ["access_key_id", "access_key", "key_id", "access_id", "application_key_id"];
const secretNames = [
  "secret_access_key",
  "secret_key",
  "secret",
  "access_secret",
  "secret_access",
  "key_secret",
  "application_key",
];

const onWords = new Set(["active", "enabled", "on", "ok", "valid", "live"]);
const offWords = new Set([
  "deactivated",
  "inactive",
  "disabled",
  "suspended",
  "revoked",
  "off",
  "paused",
  "blocked",
  "expired",
]);

function stateWord(v: unknown): boolean | undefined {
  const s = text(v)?.trim().toLowerCase();
  if (s === undefined) return undefined;
  if (onWords.has(s)) return true;
  return offWords.has(s) ? false : undefined;
}

/** Whether a credential is active, from whichever flag or state word the answer carries; undefined if none. */
function activeOf(f: AnswerObject): boolean | undefined {
  const on = f.read(["active", "enabled", "is_active", "is_enabled"], flag);
  if (on !== undefined) return on;
  const off = f.read(["disabled", "is_disabled", "deactivated", "inactive", "suspended", "revoked"], flag);
  if (off !== undefined) return !off;
  return f.read(["status", "state"], stateWord);
}

function readCredential(raw: unknown, needSecret: boolean): CredentialWithSecret | Credential {
  const accessKey = hasAny(accessKeyNames, text);
  const secret = hasAny(secretNames, text);
  const tests = needSecret ? [(f: AnswerObject) => accessKey(f) && secret(f), secret, accessKey] : [accessKey];
  const f = findObject(raw, credentialKinds, [...tests, hasAny(["id"], identifier)]);
  const credential: Credential = {
    access_key_id: f.read(accessKeyNames, text) ?? f.need(["id"], identifier, "access key id (access_key_id, id)"),
    active: activeOf(f),
    bucket_id: f.read(["bucket_id", "bucket_uuid", "bucket", "bucket_name"], identifier),
    created_at: f.read(createdNames, timestamp),
  };
  if (!needSecret) return credential;
  return {
    ...credential,
    secret_access_key: f.need(secretNames, text, "secret (secret_access_key, secret_key, secret)"),
  };
}

export const credentialListSchema = reader(
  listOf(["credentials", "keys", "access_keys"], (raw) => readCredential(raw, false)),
);
/** The answer of create and regenerate: the secret is what the operation needs. */
export const credentialWithSecretSchema = reader((raw) => readCredential(raw, true) as CredentialWithSecret);
