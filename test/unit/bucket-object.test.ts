// BucketObject's core without the network: check hashes a file or a string at preview (never a
// URL), derives the content type, refuses bad input saying what to fix; diff compares hashes (never
// ETags), replaces on a new bucket or key, and treats a URL's unknown hash right; the shared hashing
// of local files streams through one buffer and caches per file version.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bucketObjectCore } from "../../provider/resources/bucket-object/core.js";
import type { BucketObjectOutputs } from "../../provider/resources/bucket-object/fields.js";
import { readHead } from "../../provider/s3/answers.js";
import { hashLocalFile, statLocal } from "../../provider/resources/local-files.js";
import { unknownValue } from "../../provider/vocabulary.js";
import { ctx, useApi } from "./support.js";

useApi();

const sha = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");
const access = { accessKeyId: "AK", secretAccessKey: "secret-of-the-test" };
const base = { bucket: "assets", key: "config/app.json", ...access };
const check = (news: Record<string, unknown>) =>
  bucketObjectCore.check(ctx(), undefined, { ...base, ...news } as never);
const reasons = (news: Record<string, unknown>) => check(news).failures.map((f) => `${f.property}: ${f.reason}`);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-object-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("check", () => {
  it("hashes a file at preview and takes the content type from the key", () => {
    const file = join(dir, "app.json");
    writeFileSync(file, '{"a":1}');
    const { inputs, failures } = check({ sourcePath: file });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ sha256: sha('{"a":1}'), contentType: "application/json", sourcePath: file });
  });

  it("hashes a string as UTF-8; a URL's hash waits for its download", () => {
    expect(check({ content: "héllo" }).inputs.sha256).toBe(sha(Buffer.from("héllo", "utf8")));
    const remote = check({ sourceUrl: "https://example.com/model.bin" }).inputs;
    expect(remote.sha256).toBeUndefined();
  });

  it("keeps a given content type; a key without an extension takes the file's", () => {
    const file = join(dir, "page.html");
    writeFileSync(file, "<p>");
    expect(check({ content: "x", contentType: "text/x-custom" }).inputs.contentType).toBe("text/x-custom");
    expect(check({ key: "latest", sourcePath: file }).inputs.contentType).toBe("text/html; charset=utf-8");
    expect(check({ key: "blob", content: "x" }).inputs.contentType).toBe("application/octet-stream");
  });

  it("refuses what S3 would refuse, or what cannot be uploaded, saying what to fix", () => {
    expect(reasons({})).toEqual([
      "source: give the content: `source` (a FileAsset, StringAsset or RemoteAsset), `content` or `sourceUrl`",
    ]);
    expect(reasons({ content: "a", sourceUrl: "https://x.test/a" })[0]).toContain("exactly one of");
    expect(reasons({ sourcePath: join(dir, "missing.txt") })[0]).toContain("does not exist");
    expect(reasons({ sourcePath: dir })[0]).toContain("is not a regular file (a folder is a SyncedFolder)");
    expect(reasons({ sourceUrl: "ftp://x.test/a" })[0]).toContain("must be an http(s) URL");
    expect(reasons({ content: "a", key: "/abs" })[0]).toContain('starts with "/"');
    expect(reasons({ content: "a", key: "k".repeat(1025) })[0]).toContain("S3 takes at most 1024");
    expect(reasons({ content: "a", metadata: { Owner: "x" } })[0]).toContain("must be lower-case");
    expect(reasons({ content: "a", metadata: { sha256: "x" } })[0]).toContain("the provider's own");
    expect(reasons({ content: "a", metadata: { big: "x".repeat(3000) } })[0]).toContain("S3 keeps at most");
    expect(reasons({ content: "a", accessKeyId: undefined })[0]).toContain("accessKeyId is required");
  });

  it("passes unknown values through at preview", () => {
    const { inputs, failures } = check({ sourcePath: unknownValue, key: unknownValue });
    expect(failures).toEqual([]);
    expect(inputs.sha256).toBeUndefined();
    expect(inputs.contentType).toBe(unknownValue);
  });
});

describe("diff", () => {
  const state = (over: Partial<BucketObjectOutputs> = {}): BucketObjectOutputs => ({
    ...base,
    content: "a",
    contentType: "application/json",
    sha256: sha("a"),
    size: 1,
    etag: "e1",
    s3Endpoint: "http://s3",
    region: "us-east-1",
    ...over,
  });
  const diff = (olds: BucketObjectOutputs, news: Record<string, unknown>) =>
    bucketObjectCore.diff(ctx(), "id", olds, check(news).inputs);

  it("sees no change for the same content, whatever the ETag", () => {
    expect(diff(state({ etag: "anything-3" }), { content: "a" }).changes).toBe(false);
  });

  it("updates for new content or headers, replaces for a new bucket or key", () => {
    expect(diff(state(), { content: "b" })).toMatchObject({
      changes: true,
      replaces: [],
      changed: ["content", "sha256"],
    });
    expect(diff(state(), { content: "a", cacheControl: "no-cache" }).changed).toEqual(["cacheControl"]);
    expect(diff(state(), { content: "a", key: "other.json" }).replaces).toEqual(["key"]);
    expect(diff(state(), { content: "a", bucket: "elsewhere" }).replaces).toEqual(["bucket"]);
  });

  it("a URL stands for its content, unless a refresh emptied the hash", () => {
    const remote = state({ content: undefined, sourceUrl: "https://x.test/a" });
    expect(diff(remote, { sourceUrl: "https://x.test/a" }).changes).toBe(false);
    expect(diff(remote, { sourceUrl: "https://x.test/b" }).changed).toEqual(["sourceUrl"]);
    expect(diff({ ...remote, sha256: "" }, { sourceUrl: "https://x.test/a" }).changed).toEqual(["sha256"]);
  });

  it("an object changed outside Pulumi (its hash from the refresh) is written again", () => {
    expect(diff(state({ sha256: sha("defaced") }), { content: "a" }).changed).toEqual(["sha256"]);
  });
});

describe("reading a HEAD and hashing files", () => {
  it("reads the provider's hash out of the user metadata", () => {
    expect(
      readHead({ ETag: '"e"', ContentLength: 3, ContentType: "text/plain", Metadata: { SHA256: "ABC", build: "7" } }),
    ).toEqual({
      etag: "e",
      size: 3,
      contentType: "text/plain",
      cacheControl: undefined,
      contentDisposition: undefined,
      metadata: { build: "7" },
      sha256: "abc",
    });
  });

  it("hashes a file larger than its buffer, and a new version of it again", () => {
    const file = join(dir, "big.bin");
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 1);
    writeFileSync(file, bytes);
    const stat = statLocal(file);
    if (stat.kind !== "file") throw new Error("not a file");
    expect(hashLocalFile(file, stat.stats)).toBe(sha(bytes));
    writeFileSync(file, "changed");
    const again = statLocal(file);
    if (again.kind !== "file") throw new Error("not a file");
    expect(hashLocalFile(file, again.stats)).toBe(sha("changed"));
  });
});
