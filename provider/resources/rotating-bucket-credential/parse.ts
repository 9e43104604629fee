/**
 * What a RotatingBucketCredential reads besides the credential answers it shares with
 * BucketCredential (../bucket-credential/parse.ts): the S3 plane's answer to a request signed with
 * a stored secret (docs/api-contract.md §7), which is how a refresh sees a secret regenerated
 * outside Pulumi. The management API never shows a secret again, so nothing else can.
 */

/**
 * `works`: S3 accepted the secret. `superseded`: S3 refused its signature (`SignatureDoesNotMatch`),
 * so the credential's secret is no longer the stored one. `untold`: anything else (the credential
 * deactivated or deleted, which its bucket's list says better; a network failure; a busy server).
 */
export type SecretVerdict = "works" | "superseded" | "untold";

/** The verdict of an S3 error, from the error code of its XML body (the SDK's exception name). */
export function verdictOfRefusal(err: unknown): SecretVerdict {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "SignatureDoesNotMatch" ? "superseded" : "untold";
}
