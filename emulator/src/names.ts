/**
 * Name rules of docs/api-contract.md §4 (zones) and §5 (buckets). Each check returns the
 * reason a name is refused, or undefined when it is valid; the reason goes into the 400 message.
 */

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return "must be 3 to 63 characters long";
  if (!/^[a-z0-9.-]+$/.test(name)) return "may contain only lower-case letters, digits, '.' and '-'";
  if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)) return "must start and end with a letter or digit";
  if (name.includes("..")) return "must not contain '..'";
  if (IPV4.test(name)) return "must not be formatted as an IPv4 address";
  if (name.startsWith("xn--") || name.startsWith("sthree-")) return "must not start with 'xn--' or 'sthree-'";
  if (name.endsWith("-s3alias") || name.endsWith("--ol-s3")) return "must not end with '-s3alias' or '--ol-s3'";
  return undefined;
}

/** Lower-cases and strips one trailing dot, as the emulator stores zone names. */
export function normalizeZoneName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** Checks a normalized zone name: a fully qualified ASCII domain name (use punycode for IDNs). */
export function zoneNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 253) return "must be 1 to 253 characters long";
  const labels = name.split(".");
  if (labels.length < 2) return "must be a fully qualified domain name such as example.com";
  for (const label of labels) {
    if (label.length === 0 || label.length > 63) return "each label must be 1 to 63 characters long";
    if (!/^[a-z0-9-]+$/.test(label)) return "labels may contain only letters, digits and '-' (use punycode for IDNs)";
    if (label.startsWith("-") || label.endsWith("-")) return "labels must not start or end with '-'";
  }
  if (/^\d+$/.test(labels[labels.length - 1]!)) return "the top-level label must not be numeric";
  return undefined;
}

export const STORAGE_CLASSES = ["Standard", "InfrequentAccess", "Archive"] as const;
export type StorageClass = (typeof STORAGE_CLASSES)[number];
