/**
 * The name a Bucket gets when the program gives none: `<resource name>-<7 random characters>`. The
 * recovery command (provider/recover/) also tells such a name from one a person would pick.
 */
import { randomInt } from "node:crypto";

const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";

/** The part of a generated name taken from the resource name, made S3-safe. */
function autoNameBase(resourceName: string): string {
  const base = resourceName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 55)
    .replace(/-+$/, "");
  return base === "" ? "bucket" : base;
}

/** `<resource name>-<7 random lower-case letters or digits>`, made S3-safe. */
export function autoName(resourceName: string): string {
  let suffix = "";
  for (let i = 0; i < 7; i++) suffix += alphabet[randomInt(alphabet.length)];
  return `${autoNameBase(resourceName)}-${suffix}`;
}

/** Whether `name` is one `autoName(resourceName)` can draw: a name no one else would pick. */
export function isAutoNameOf(name: string, resourceName: string): boolean {
  return new RegExp(`^${autoNameBase(resourceName)}-[${alphabet}]{7}$`).test(name);
}
