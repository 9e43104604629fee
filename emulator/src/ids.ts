import { randomBytes, randomInt } from "node:crypto";

const UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";

function randomFrom(alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export const newBucketId = (): string => `bkt_${randomFrom(LOWER_ALNUM, 20)}`;
export const newZoneId = (): string => `zone_${randomFrom(LOWER_ALNUM, 20)}`;

/** Shaped like an AWS access key id (20 upper-case characters) so S3 clients accept it. */
export const newAccessKeyId = (): string => `CPAK${randomFrom(UPPER_ALNUM, 16)}`;

/** 40 characters like an AWS secret; `/` is avoided so the secret is safe in shell and URL contexts. */
export const newSecretAccessKey = (): string => randomBytes(30).toString("base64").replace(/\//g, "x");

/** `cp-` + 40 base64url characters: the `<prefix>-<rest>` form of docs/api-contract.md §2. */
export const newApiKey = (): string => `cp-${randomBytes(30).toString("base64url")}`;

/** 256-bit HS256 signing secret. */
export const newJwtSecret = (): string => randomBytes(32).toString("base64url");

/** Transcript ids and upload keys: a prefix and 24 hex characters (96 random bits). */
export const newTranscriptId = (): string => `tr_${randomBytes(12).toString("hex")}`;
export const newUploadKey = (): string => `upl_${randomBytes(12).toString("hex")}`;
