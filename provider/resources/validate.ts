/**
 * Validation shared by the resource cores' `check`: every failure names the property and says
 * what to fix. Unknown values (preview) are skipped by the callers.
 */
import { isUnknown, type CheckFailure, type Json } from "../vocabulary.js";

/** S3 bucket naming rules (contract §5); returns the problem, or undefined when valid. */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return `must be 3 to 63 characters long (it has ${name.length})`;
  if (!/^[a-z0-9.-]+$/.test(name)) return "may contain only lower-case letters, digits, dots and hyphens";
  if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)) return "must start and end with a letter or a digit";
  if (name.includes("..")) return "must not contain two adjacent dots";
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return "must not be formatted as an IP address";
  if (name.startsWith("xn--") || name.startsWith("sthree-")) return 'must not start with "xn--" or "sthree-"';
  if (name.endsWith("-s3alias") || name.endsWith("--ol-s3")) return 'must not end with "-s3alias" or "--ol-s3"';
  return undefined;
}

/** Lower-cases a domain name and drops one trailing dot, as the API does (contract §4). */
export function normalizeDomain(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}

/** RFC 1035 host name rules for a zone apex (after `normalizeDomain`). */
export function domainProblem(name: string): string | undefined {
  if (name.length === 0) return "must not be empty";
  if (name.length > 253) return "must be at most 253 characters long";
  const labels = name.split(".");
  if (labels.length < 2) return 'must be a fully qualified domain name such as "example.com"';
  for (const label of labels) {
    if (label.length === 0) return "must not contain empty labels (two adjacent dots)";
    if (label.length > 63) return `has a label longer than 63 characters ("${label.slice(0, 20)}…")`;
    if (!/^[a-z0-9-]+$/.test(label))
      return `has an invalid label "${label}": use letters, digits and hyphens (IDN names in punycode, xn--…)`;
    if (label.startsWith("-") || label.endsWith("-"))
      return `has a label starting or ending with a hyphen ("${label}")`;
  }
  if (/^\d+$/.test(labels[labels.length - 1] as string))
    return "must not end with a numeric label (an IP address is not a domain)";
  return undefined;
}

/** A credential's `bucketId`, required: "" with a failure when missing or not a string. */
export function requiredBucketId(value: Json | undefined, failures: CheckFailure[]): string {
  if (typeof value === "string" && value !== "") return value;
  if (value === undefined || value === null || value === "") {
    failures.push({ property: "bucketId", reason: "bucketId is required: pass a Bucket's bucketId output" });
  } else {
    failures.push({
      property: "bucketId",
      reason: `bucketId must be a string, a Bucket's bucketId output (got ${Array.isArray(value) ? "an array" : typeof value})`,
    });
  }
  return "";
}

/** Reads an optional string map such as `rotateWhenChanged`; reports a failure for anything else. */
export function stringMap(
  property: string,
  value: Json | undefined,
  failures: CheckFailure[],
): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (isUnknown(value)) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    failures.push({ property, reason: `${property} must be a map of strings to strings, e.g. { version: "1" }` });
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (isUnknown(v)) {
      out[k] = v as string;
    } else if (typeof v === "string") {
      out[k] = v;
    } else if (typeof v === "number" || typeof v === "boolean") {
      out[k] = String(v);
    } else {
      failures.push({
        property,
        reason: `${property}.${k} must be a string (got ${v === null ? "null" : Array.isArray(v) ? "array" : typeof v})`,
      });
    }
  }
  return out;
}

export function optionalBoolean(
  property: string,
  value: Json | undefined,
  failures: CheckFailure[],
): boolean | undefined {
  if (value === undefined || value === null || isUnknown(value)) return undefined;
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  failures.push({ property, reason: `${property} must be true or false` });
  return undefined;
}
