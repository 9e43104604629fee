import type { CheckResult } from "../../contract.js";
import { unknownInputs } from "../../tables.js";
import { isUnknown, type CheckFailure, type Json, type Props } from "../../vocabulary.js";
import { checkAccess, checkBucket, optionalText, requiredText } from "../bucket-contents.js";
import { resolveLocalPath } from "../local-files.js";
import { optionalBoolean } from "../validate.js";
import { syncedFolderTable, type SyncedFolderInputs } from "./fields.js";
import { fileFilter, globProblem } from "./globs.js";
import { keyOf, normalPrefix } from "./manifest.js";
import { scanFolder } from "./scan.js";

const { fields } = syncedFolderTable;
const maxKeyBytes = 1024;

/**
 * Validates a SyncedFolder's inputs and reads its folder: every file the patterns keep, hashed
 * (`files`, the manifest of the folder now). No network. Values unknown at preview pass through;
 * with an unknown folder or pattern the manifest is unknown too.
 */
export function checkSyncedFolderInputs(news: Props): CheckResult<SyncedFolderInputs> {
  const failures: CheckFailure[] = unknownInputs(syncedFolderTable, news);
  const bucket = checkBucket(news["bucket"], failures);
  const rawPrefix = optionalText("prefix", news["prefix"], failures) ?? fields.prefix.default;
  const prefix = isUnknown(rawPrefix) ? rawPrefix : normalPrefix(rawPrefix);
  const path = requiredText("path", news["path"], failures, 'give the local folder to sync, e.g. "./www"');
  const include = patterns("include", news["include"], failures);
  const exclude = patterns("exclude", news["exclude"], failures);
  const deleteRemoved =
    optionalBoolean("deleteRemoved", news["deleteRemoved"], failures) ?? fields.deleteRemoved.default;
  const inputs: SyncedFolderInputs = { bucket, prefix, path, deleteRemoved, ...checkAccess(news, failures), files: {} };
  if (include !== undefined) inputs.include = include;
  if (exclude !== undefined) inputs.exclude = exclude;
  const cacheControl = optionalText("cacheControl", news["cacheControl"], failures);
  if (cacheControl !== undefined) inputs.cacheControl = cacheControl;

  const unknown = [path, prefix, ...(include ?? []), ...(exclude ?? [])].some(isUnknown);
  if (unknown) {
    inputs.files = path as unknown as Record<string, string>;
  } else if (path !== "" && failures.length === 0) {
    const scanned = scanFolder(resolveLocalPath(path), fileFilter(include ?? [], exclude ?? []));
    if (scanned.kind === "files") {
      inputs.files = scanned.files;
      const long = Object.keys(scanned.files).find((p) => Buffer.byteLength(keyOf(prefix, p)) > maxKeyBytes);
      if (long !== undefined) {
        failures.push({
          property: "path",
          reason: `the key of "${long}" is over ${maxKeyBytes} bytes of UTF-8, S3's limit`,
        });
      }
    } else if (scanned.kind === "missing") {
      failures.push({
        property: "path",
        reason: `folder "${path}" does not exist (relative paths start from the program directory)`,
      });
    } else {
      failures.push({ property: "path", reason: `"${path}" is not a folder (one file is a BucketObject)` });
    }
  }
  return { inputs, failures };
}

/** A list of globs; unknown ones pass as they are. */
function patterns(property: string, value: Json | undefined, failures: CheckFailure[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (isUnknown(value)) return [value as string];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    failures.push({ property, reason: `${property} must be a list of globs, e.g. ["*.html", "assets/**"]` });
    return undefined;
  }
  for (const glob of value) {
    const problem = isUnknown(glob) ? undefined : globProblem(glob);
    if (problem !== undefined) failures.push({ property, reason: `${property} glob "${glob}" ${problem}` });
  }
  return value;
}
