import type { CallContext, CheckResult } from "../../contract.js";
import { SourceMissingError } from "../../errors.js";
import { unknownInputs } from "../../tables.js";
import { isUnknown, type CheckFailure, type Json, type Props } from "../../vocabulary.js";
import { checkAccess, checkBucket, optionalText, requiredText } from "../bucket-contents.js";
import { resolveLocalPath } from "../local-files.js";
import { optionalBoolean } from "../validate.js";
import { syncedFolderTable, type SyncedFolderInputs } from "./fields.js";
import { fileFilter, globProblem } from "./globs.js";
import { keyOf, normalPrefix } from "./manifest.js";
import { scanFolder, type ScannedFolder, type ScanResult } from "./scan.js";

const { fields } = syncedFolderTable;
const maxKeyBytes = 1024;

/**
 * Validates a SyncedFolder's inputs and reads its folder: every file the patterns keep, hashed (or
 * its hash taken from this machine's cache), summed up as `manifestDigest`. No network. The scan
 * stays in the process for diff, create and update (`scannedFolder`): one provider process serves
 * a whole deployment, so the folder is walked once per operation. Values unknown at preview pass
 * through; with an unknown folder or pattern the digest is unknown too.
 */
export function checkSyncedFolderInputs(ctx: CallContext, news: Props): CheckResult<SyncedFolderInputs> {
  const failures: CheckFailure[] = unknownInputs(syncedFolderTable, news);
  const bucket = checkBucket(news["bucket"], failures);
  const rawPrefix = optionalText("prefix", news["prefix"], failures) ?? fields.prefix.default;
  const prefix = isUnknown(rawPrefix) ? rawPrefix : normalPrefix(rawPrefix);
  const path = requiredText("path", news["path"], failures, 'give the local folder to sync, e.g. "./www"');
  const include = patterns("include", news["include"], failures);
  const exclude = patterns("exclude", news["exclude"], failures);
  const deleteRemoved =
    optionalBoolean("deleteRemoved", news["deleteRemoved"], failures) ?? fields.deleteRemoved.default;
  const inputs: SyncedFolderInputs = {
    bucket,
    prefix,
    path,
    deleteRemoved,
    ...checkAccess(news, failures),
    manifestDigest: "",
  };
  if (include !== undefined) inputs.include = include;
  if (exclude !== undefined) inputs.exclude = exclude;
  const cacheControl = optionalText("cacheControl", news["cacheControl"], failures);
  if (cacheControl !== undefined) inputs.cacheControl = cacheControl;

  const unknown = [path, prefix, ...(include ?? []), ...(exclude ?? [])].some(isUnknown);
  if (unknown) {
    inputs.manifestDigest = path;
  } else if (path !== "" && failures.length === 0) {
    const scanned = scan(ctx, inputs);
    if (scanned.kind === "files") {
      inputs.manifestDigest = scanned.digest;
      scans(ctx).set(scanKey(inputs, scanned.digest), scanned);
      const long = [...scanned.files.keys()].find((p) => Buffer.byteLength(keyOf(prefix, p)) > maxKeyBytes);
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

type FolderInputs = Pick<SyncedFolderInputs, "path" | "include" | "exclude">;

function scan(ctx: CallContext, inputs: FolderInputs): ScanResult {
  return scanFolder(resolveLocalPath(inputs.path), fileFilter(inputs.include ?? [], inputs.exclude ?? []), {
    onProblem: (m) => ctx.log.debug(m),
  });
}

/** The scans check made in this process, by folder, patterns and digest. */
const scans = (ctx: CallContext) => ctx.memo("synced-folder scans", () => new Map<string, ScannedFolder>());

const scanKey = (inputs: FolderInputs, digest: string) =>
  JSON.stringify([resolveLocalPath(inputs.path), inputs.include ?? [], inputs.exclude ?? [], digest]);

/** The scan check made of these inputs' folder in this process, if it did. */
export function checkedScan(ctx: CallContext, inputs: SyncedFolderInputs): ScannedFolder | undefined {
  return scans(ctx).get(scanKey(inputs, inputs.manifestDigest));
}

/**
 * The folder's files for an operation that sends them: check's scan, or (a process whose check did
 * not see these inputs) a scan now. Either may differ from the digest of the inputs when the folder
 * changed meanwhile: what is sent and recorded is what the scan found.
 */
export function scannedFolder(ctx: CallContext, inputs: SyncedFolderInputs): ScannedFolder {
  const checked = checkedScan(ctx, inputs);
  if (checked !== undefined) return checked;
  const scanned = scan(ctx, inputs);
  if (scanned.kind !== "files") {
    throw new SourceMissingError(
      `folder "${inputs.path}" is gone or no longer a folder`,
      "Restore it, or change `path`.",
    );
  }
  return scanned;
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
