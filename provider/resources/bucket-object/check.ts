import type { CheckResult } from "../../contract.js";
import { unknownInputs } from "../../tables.js";
import { isUnknown, type CheckFailure, type Props } from "../../vocabulary.js";
import { checkAccess, checkBucket, checkMetadata, optionalText, requiredText } from "../bucket-contents.js";
import { contentTypeOf, defaultContentType } from "../content-types.js";
import { hashLocalFile, hashText, statLocal } from "../local-files.js";
import { bucketObjectTable, type BucketObjectInputs } from "./fields.js";

/** S3 keys are at most 1024 bytes of UTF-8. */
const maxKeyBytes = 1024;

/**
 * Validates a BucketObject's inputs before any request, and computes the content's SHA-256 from
 * the file or the string (no network: a URL's content is hashed when it is downloaded). Values
 * unknown at preview pass through unvalidated.
 */
export function checkBucketObjectInputs(news: Props): CheckResult<BucketObjectInputs> {
  const failures: CheckFailure[] = unknownInputs(bucketObjectTable, news);
  const bucket = checkBucket(news["bucket"], failures);
  const key = checkKey(news["key"], failures);
  const access = checkAccess(news, failures);
  const inputs: BucketObjectInputs = { bucket, key, ...access, contentType: defaultContentType };

  const sourcePath = optionalText("sourcePath", news["sourcePath"], failures);
  const content = optionalText("content", news["content"], failures);
  const sourceUrl = optionalText("sourceUrl", news["sourceUrl"], failures);
  const given = [sourcePath, content, sourceUrl].filter((s) => s !== undefined).length;
  if (given !== 1) {
    failures.push({
      property: "source",
      reason:
        given === 0
          ? "give the content: `source` (a FileAsset, StringAsset or RemoteAsset), `content` or `sourceUrl`"
          : "give exactly one of `source`/`sourcePath`, `content` and `sourceUrl`, not several",
    });
  }
  if (sourcePath !== undefined) {
    inputs.sourcePath = sourcePath;
    if (!isUnknown(sourcePath)) {
      const hash = checkFile(sourcePath, failures);
      if (hash !== undefined) inputs.sha256 = hash;
    }
  }
  if (content !== undefined) {
    inputs.content = content;
    if (!isUnknown(content)) inputs.sha256 = hashText(content);
  }
  if (sourceUrl !== undefined) {
    inputs.sourceUrl = sourceUrl;
    if (!isUnknown(sourceUrl) && !/^https?:\/\/[^/]/i.test(sourceUrl)) {
      failures.push({
        property: "sourceUrl",
        reason: "sourceUrl must be an http(s) URL; give a local file as `source` (a FileAsset) or `sourcePath`",
      });
    }
  }

  const contentType = optionalText("contentType", news["contentType"], failures);
  if (contentType !== undefined && contentType !== "") inputs.contentType = contentType;
  else if (!isUnknown(key)) inputs.contentType = typeByName(key, sourcePath);
  // Unknown at preview until the key is known.
  else inputs.contentType = key;
  const cacheControl = optionalText("cacheControl", news["cacheControl"], failures);
  if (cacheControl !== undefined) inputs.cacheControl = cacheControl;
  const contentDisposition = optionalText("contentDisposition", news["contentDisposition"], failures);
  if (contentDisposition !== undefined) inputs.contentDisposition = contentDisposition;
  const metadata = checkMetadata(news["metadata"], failures);
  if (metadata !== undefined) inputs.metadata = metadata;
  return { inputs, failures };
}

/** The key's extension decides; a key without a known one takes the file's (`latest` from `build/app.js`). */
function typeByName(key: string, sourcePath: string | undefined): string {
  const byKey = contentTypeOf(key);
  if (byKey !== defaultContentType || sourcePath === undefined || isUnknown(sourcePath)) return byKey;
  return contentTypeOf(sourcePath);
}

function checkKey(value: Props[string] | undefined, failures: CheckFailure[]): string {
  const key = requiredText("key", value, failures, 'give the object\'s key, e.g. "config/app.json"');
  if (key === "" || isUnknown(key)) return key;
  if (Buffer.byteLength(key) > maxKeyBytes) {
    failures.push({
      property: "key",
      reason: `key is ${Buffer.byteLength(key)} bytes of UTF-8; S3 takes at most ${maxKeyBytes}`,
    });
  } else if (key.startsWith("/")) {
    failures.push({
      property: "key",
      reason: `key "${key}" starts with "/": S3 keys are relative, write "${key.replace(/^\/+/, "")}"`,
    });
  }
  return key;
}

function checkFile(path: string, failures: CheckFailure[]): string | undefined {
  const stat = statLocal(path);
  if (stat.kind === "missing") {
    failures.push({
      property: "source",
      reason: `file "${path}" does not exist (relative paths start from the program directory)`,
    });
    return undefined;
  }
  if (stat.kind === "not-a-file") {
    failures.push({ property: "source", reason: `"${path}" is not a regular file (a folder is a SyncedFolder)` });
    return undefined;
  }
  return hashLocalFile(path, stat.stats);
}
