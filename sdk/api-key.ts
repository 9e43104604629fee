import * as pulumi from "@pulumi/pulumi";
import { apiKeyTable } from "../provider/resources/api-key/fields.js";
import { customResourceArgs, registration } from "./resource.js";

export interface ApiKeyArgs {
  /**
   * Any change to this map rotates the key in place (POST /security/apikey again): the previous key stops working at
   * once and `key` holds the new one.
   * @default {}
   * @example { rotatedOn: "2026-01" }
   */
  rotateWhenChanged?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

/**
 * The project's API key. A project has exactly one key: creating this resource generates it, or
 * rotates the existing one (which then stops working). So it cannot have two slots, as a
 * `RotatingBucketCredential` has for a bucket: a rotation is an outage for whatever still holds the
 * old key until it is given the new one (`secretFingerprint` tells which key it holds). The platform
 * cannot revoke a key: deleting the resource leaves the key valid (a warning says so).
 *
 * If the provider itself authenticates with the project API key, creating or rotating this resource
 * replaces that key: the provider switches to the new key for the rest of the run, and you must then
 * update the config, e.g. `pulumi config set --secret cloudplatform:apiKey "$(pulumi stack output apiKey --show-secrets)"`.
 *
 * @example
 * const key = new cloudplatform.ApiKey("ci", { rotateWhenChanged: { quarter: "2026-Q1" } });
 * export const apiKey = key.key; // a secret
 */
export class ApiKey extends pulumi.CustomResource {
  /** The key, `<prefix>-<rest>` (secret). */
  declare public readonly key: pulumi.Output<string>;
  /**
   * A fingerprint of `key`: the first 16 hex digits of its SHA-256, not secret. It changes when the secret does, so a
   * diff shows which secret changed without showing it. Empty when the secret is unknown.
   */
  declare public readonly secretFingerprint: pulumi.Output<string | undefined>;
  /** When the platform created the key, when it says. */
  declare public readonly createdAt: pulumi.Output<string | undefined>;
  /**
   * Any change to this map rotates the key in place (POST /security/apikey again): the previous key stops working at
   * once and `key` holds the new one.
   */
  declare public readonly rotateWhenChanged: pulumi.Output<Record<string, string> | undefined>;

  constructor(name: string, args: ApiKeyArgs = {}, opts?: pulumi.CustomResourceOptions) {
    const registering = registration();
    try {
      super(...customResourceArgs(apiKeyTable, name, args, opts));
    } catch (error) {
      throw registering.failed(error);
    } finally {
      registering.end();
    }
  }
}
