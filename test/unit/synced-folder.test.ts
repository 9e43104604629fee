// SyncedFolder's core without the engine: check reads and hashes the folder (include/exclude,
// errors said at preview), the manifest's plan and its description, globs, content types, diff,
// and a sync against an in-memory S3 that counts requests: only what the plan names is sent, a
// resumed sync skips what an interrupted run's progress log recorded and the bucket still holds.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ObjectStore } from "../../provider/resources/bucket-object/api.js";
import { contentTypeOf } from "../../provider/resources/content-types.js";
import { syncedFolderCore } from "../../provider/resources/synced-folder/core.js";
import { anyOf, fileFilter, globProblem } from "../../provider/resources/synced-folder/globs.js";
import { describePlan, normalPrefix, planSync } from "../../provider/resources/synced-folder/manifest.js";
import { runSync, type Synced } from "../../provider/resources/synced-folder/sync.js";
import type { SyncedFolderOutputs } from "../../provider/resources/synced-folder/fields.js";
import { unknownValue } from "../../provider/vocabulary.js";
import { ctx, journal, useApi, type Logged } from "./support.js";

useApi();

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const entry = (text: string) => `${sha(text)} ${Buffer.byteLength(text)}`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-folder-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function files(tree: Record<string, string>): void {
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const access = { accessKeyId: "AK", secretAccessKey: "secret-of-the-test" };
const check = (news: Record<string, unknown>) =>
  syncedFolderCore.check(ctx(), undefined, { bucket: "site", path: dir, ...access, ...news } as never);

describe("check", () => {
  it("hashes every file by its path with /, sorted, and applies the defaults", () => {
    files({ "index.html": "<h1>hi</h1>", "assets/app.js": "x()", "assets/img/logo.svg": "<svg/>" });
    const { inputs, failures } = check({});
    expect(failures).toEqual([]);
    expect(inputs.files).toEqual({
      "assets/app.js": entry("x()"),
      "assets/img/logo.svg": entry("<svg/>"),
      "index.html": entry("<h1>hi</h1>"),
    });
    expect(Object.keys(inputs.files)).toEqual(["assets/app.js", "assets/img/logo.svg", "index.html"]);
    expect(inputs).toMatchObject({ prefix: "", deleteRemoved: true });
  });

  it("keeps only what include names, less what exclude names", () => {
    files({ "a.html": "a", "a.js.map": "m", "drafts/b.html": "b", "img/c.png": "c", "img/deep/d.png": "d" });
    expect(Object.keys(check({ exclude: ["*.map", "drafts/**"] }).inputs.files)).toEqual([
      "a.html",
      "img/c.png",
      "img/deep/d.png",
    ]);
    expect(Object.keys(check({ include: ["img/*.png", "*.html"], exclude: ["drafts/**"] }).inputs.files)).toEqual([
      "a.html",
      "img/c.png",
    ]);
  });

  it("refuses at preview what it cannot sync, saying what to fix", () => {
    const failures = (news: Record<string, unknown>) =>
      syncedFolderCore.check(ctx(), undefined, news as never).failures.map((f) => `${f.property}: ${f.reason}`);
    expect(failures({ path: dir })).toEqual([
      "bucket: bucket is required: pass a Bucket's `name` output",
      "accessKeyId: accessKeyId is required: pass the `accessKeyId` output of a BucketCredential of this bucket",
      "secretAccessKey: secretAccessKey is required: pass the `secretAccessKey` output of the same BucketCredential",
    ]);
    expect(failures({ bucket: "site", ...access, path: join(dir, "nope") })).toEqual([
      `path: folder "${join(dir, "nope")}" does not exist (relative paths start from the program directory)`,
    ]);
    files({ "f.txt": "x" });
    expect(failures({ bucket: "site", ...access, path: join(dir, "f.txt") })[0]).toContain("is not a folder");
    expect(failures({ bucket: "site", ...access, path: dir, exclude: ["[abc"] })).toEqual([
      'exclude: exclude glob "[abc" has a "[" without its "]"',
    ]);
    expect(failures({ bucket: "Bad_Name", ...access, path: dir })[0]).toContain("bucket name");
    expect(failures({ bucket: "site", ...access, path: dir, colour: "red" })[0]).toContain('no property "colour"');
  });

  it("passes unknown values of preview through, the manifest unknown with them", () => {
    const { inputs, failures } = check({ path: unknownValue });
    expect(failures).toEqual([]);
    expect(inputs.files).toBe(unknownValue);
  });

  it("normalizes the prefix: no leading slash, one trailing", () => {
    expect(["", "site", "site/", "/site", "a/b"].map(normalPrefix)).toEqual(["", "site/", "site/", "site/", "a/b/"]);
  });
});

describe("globs and content types", () => {
  it("matches names anywhere without a slash, paths from the root with one", () => {
    const m = anyOf(["*.map", "drafts/**", "img/?.{png,jpg}", "[ab]*.txt"]);
    expect(["x.map", "deep/y.map", "drafts/a/b.html", "img/a.png", "img/b.jpg", "a1.txt", "sub/b.txt"].every(m)).toBe(
      true,
    );
    expect(["map", "x.mapx", "notdrafts/a", "img/ab.png", "img/a.gif", "deep/img/a.png", "c.txt"].some(m)).toBe(false);
    expect(fileFilter([], ["*.map"])("a.map")).toBe(false);
    expect(fileFilter([], [])("anything")).toBe(true);
    expect(globProblem("{a,b")).toBe('has a "{" without its "}"');
    expect(globProblem(" ")).toBe("is empty");
  });

  it("gives the web's types by extension, octet-stream otherwise", () => {
    expect(contentTypeOf("index.html")).toBe("text/html; charset=utf-8");
    expect(contentTypeOf("a/b/APP.JS")).toBe("text/javascript; charset=utf-8");
    expect(contentTypeOf("logo.svg")).toBe("image/svg+xml");
    expect(contentTypeOf("font.woff2")).toBe("font/woff2");
    expect(contentTypeOf("data.json")).toBe("application/json");
    expect(contentTypeOf("Makefile")).toBe("application/octet-stream");
    expect(contentTypeOf(".env")).toBe("application/octet-stream");
    expect(contentTypeOf("archive.unknownext")).toBe("application/octet-stream");
  });
});

describe("the manifest's plan", () => {
  const synced = { "a.html": entry("a"), "b.css": entry("b"), "c.js": entry("c") };
  const etags = { "a.html": "e1", "b.css": "e2", "c.js": "e3" };

  it("adds new files, changes edited ones, removes deleted ones, and leaves the rest", () => {
    const plan = planSync(synced, etags, { "a.html": entry("a"), "b.css": entry("b2"), "d.png": entry("d") });
    expect(plan).toEqual({ add: ["d.png"], change: ["b.css"], remove: ["c.js"] });
    expect(describePlan(plan, true)).toBe("1 to add, 1 to change, 1 to delete: + d.png, ~ b.css, - c.js");
    expect(describePlan(plan, false)).toContain("1 to forget (kept in the bucket, deleteRemoved is false)");
  });

  it("is empty for an unchanged folder, and sends everything when the headers change", () => {
    expect(planSync(synced, etags, synced)).toEqual({ add: [], change: [], remove: [] });
    expect(planSync(synced, etags, synced, true).change).toEqual(["a.html", "b.css", "c.js"]);
  });

  it("names the paths only when few", () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}.txt`, entry(String(i))]));
    expect(describePlan(planSync({}, {}, many), true)).toBe(
      "25 to add, 0 to change, 0 to delete (more than 20 files: paths not listed)",
    );
  });
});

describe("diff", () => {
  const state = (files: Record<string, string>): SyncedFolderOutputs => ({
    bucket: "site",
    prefix: "",
    path: dir,
    deleteRemoved: true,
    ...access,
    files,
    etags: Object.fromEntries(Object.keys(files).map((p) => [p, "etag"])),
    fileCount: Object.keys(files).length,
    totalBytes: 0,
    s3Endpoint: "http://s3",
    region: "us-east-1",
  });

  it("shows no change for the same files, an update naming the files for others, a replace for a new prefix", () => {
    files({ "a.html": "a" });
    const news = check({}).inputs;
    expect(syncedFolderCore.diff(ctx(), "id", state({ "a.html": entry("a") }), news).changes).toBe(false);
    const logs: Logged[] = [];
    const d = syncedFolderCore.diff(ctx("www", logs), "id", state({ "a.html": entry("old") }), news);
    expect(d).toMatchObject({ changes: true, replaces: [], changed: ["files"] });
    expect(logs.map((l) => l.message)).toEqual(['Test "www": 0 to add, 1 to change, 0 to delete: ~ a.html']);
    expect(
      syncedFolderCore.diff(ctx(), "id", state({ "a.html": entry("a") }), { ...news, prefix: "v2/" }).replaces,
    ).toEqual(["prefix"]);
  });

  it("updates without any file for a new key pair (recorded, nothing sent)", () => {
    files({ "a.html": "a" });
    const d = syncedFolderCore.diff(ctx(), "id", state({ "a.html": entry("a") }), {
      ...check({}).inputs,
      accessKeyId: "AK2",
    });
    expect(d).toMatchObject({ changes: true, replaces: [], changed: ["accessKeyId"] });
  });
});

/** An in-memory bucket behind the S3 client's `send`, counting requests by command. */
function fakeStore(bucket = "site"): ObjectStore & { objects: Map<string, string>; counts: Record<string, number> } {
  const objects = new Map<string, string>();
  const counts: Record<string, number> = {};
  let n = 0;
  const send = async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const name = command.constructor.name.replace(/Command$/, "");
    counts[name] = (counts[name] ?? 0) + 1;
    const input = command.input;
    switch (name) {
      case "PutObject": {
        const etag = `etag-${++n}`;
        objects.set(input["Key"] as string, etag);
        return { ETag: `"${etag}"` };
      }
      case "DeleteObject":
        objects.delete(input["Key"] as string);
        return {};
      case "ListObjectsV2":
        return {
          Contents: [...objects].map(([Key, ETag]) => ({ Key, ETag: `"${ETag}"`, Size: 1 })),
          IsTruncated: false,
        };
      default:
        throw new Error(`the fake S3 does not serve ${name}`);
    }
  };
  const sdk = new Proxy(
    {},
    {
      get: (_t, prop: string) =>
        class {
          static readonly name = prop;
          constructor(readonly input: Record<string, unknown>) {}
        },
    },
  );
  return { sdk, s3: { send }, bucket, close: () => undefined, objects, counts } as never;
}

describe("sync", () => {
  const job = (store: ObjectStore, local: Record<string, string>, synced: Synced) => ({
    store,
    prefix: "site/",
    root: dir,
    local,
    plan: planSync(synced.files, synced.etags, local),
    deleteRemoved: true,
    cacheControl: undefined,
    progress: journal().progress("SyncedFolder", "www"),
  });

  it("sends only the plan's files, and clears its progress log once done", async () => {
    files({ "a.html": "a", "b.css": "b", "c.js": "c" });
    const store = fakeStore();
    const local = check({}).inputs.files;
    const synced: Synced = { files: {}, etags: {} };
    await runSync(ctx(), job(store, local, synced), synced);
    expect(store.counts).toEqual({ PutObject: 3 });
    expect(Object.keys(synced.etags).sort()).toEqual(["a.html", "b.css", "c.js"]);
    expect(journal().progress("SyncedFolder", "www").lines()).toEqual([]);

    writeFileSync(join(dir, "b.css"), "b2");
    rmSync(join(dir, "c.js"));
    const again = check({}).inputs.files;
    const store2 = fakeStore();
    await runSync(ctx(), job(store2, again, synced), synced);
    expect(store2.counts).toEqual({ PutObject: 1, DeleteObject: 1 });
    expect(Object.keys(synced.files).sort()).toEqual(["a.html", "b.css"]);
  });

  it("after an interrupted run, sends only what its progress log lacks or the bucket no longer holds", async () => {
    files({ "a.html": "a", "b.css": "b", "c.js": "c", "d.txt": "d" });
    const local = check({}).inputs.files;
    const store = fakeStore();
    // The interrupted run: a and b arrived and were logged, c arrived but its line was lost with the
    // process; then someone rewrote b outside Pulumi.
    store.objects.set("site/a.html", "etag-a");
    store.objects.set("site/b.css", "etag-b2");
    store.objects.set("site/c.js", "etag-c");
    const line = (key: string, text: string, etag: string) => JSON.stringify(["site", key, sha(text), etag]);
    journal()
      .progress("SyncedFolder", "www")
      .append([line("site/a.html", "a", "etag-a"), line("site/b.css", "b", "etag-b"), '["site","cut sho']);
    const synced: Synced = { files: {}, etags: {} };
    const logs: Logged[] = [];
    await runSync(ctx("www", logs), job(store, local, synced), synced);
    // One listing, then b (changed since), c (not logged) and d (never sent).
    expect(store.counts).toEqual({ ListObjectsV2: 1, PutObject: 3 });
    expect(synced.etags["a.html"]).toBe("etag-a");
    expect(Object.keys(synced.files).sort()).toEqual(["a.html", "b.css", "c.js", "d.txt"]);
    expect(logs.map((l) => l.message)).toContain(
      'Test "www": 1 of 4 files arrived in an interrupted run and are not sent again',
    );
  });

  it("a log of another bucket is not trusted", async () => {
    files({ "a.html": "a" });
    const store = fakeStore();
    store.objects.set("site/a.html", "etag-a");
    journal()
      .progress("SyncedFolder", "www")
      .append([JSON.stringify(["other", "site/a.html", sha("a"), "etag-a"])]);
    const synced: Synced = { files: {}, etags: {} };
    await runSync(ctx(), job(store, check({}).inputs.files, synced), synced);
    expect(store.counts).toEqual({ PutObject: 1 });
  });
});
