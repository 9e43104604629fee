import { createdAt, secretFingerprint, type InputsOf, type OutputsOf, type ResourceTable } from "../../tables.js";

export const apiKeyTable = {
  type: "ApiKey",
  description:
    "The project's API key. Creating it, or changing `rotateWhenChanged`, rotates the key (the previous key stops " +
    "working). A project has one key, so it cannot have two slots as a RotatingBucketCredential does: a rotation " +
    "is an outage for whatever still holds the old key. There is no revoke endpoint: deleting only forgets the key.",
  fields: {
    rotateWhenChanged: {
      kind: "stringMap",
      input: "program",
      optional: true,
      description:
        "Any change to this map rotates the key in place (POST /security/apikey again): the previous key stops " +
        "working at once and `key` holds the new one.",
    },
    key: { kind: "string", secret: true, description: "The key, `<prefix>-<rest>` (secret)." },
    secretFingerprint: secretFingerprint("`key`"),
    createdAt: createdAt("key"),
  },
} as const satisfies ResourceTable;

export type ApiKeyInputs = InputsOf<typeof apiKeyTable>;
export type ApiKeyOutputs = OutputsOf<typeof apiKeyTable>;
