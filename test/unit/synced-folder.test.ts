// SyncedFolder's core without the engine: check reads and hashes the folder (include/exclude,
// errors said at preview) down to one digest, the manifest's string and the maps of states written
// before it, the plan and its description, globs, content types, diff, and a sync against an
// in-memory S3 that counts requests: only what the plan names is sent, a resumed sync skips what an
// interrupted run's progress log recorded and the bucket still holds. The hash cache has its own
// file (synced-folder-hash-cache.test.ts).
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ObjectStore } from "../../provider/s3/objects.js";
import { contentTypeOf } from "../../provider/resources/content-types.js";
import { syncedFolderCore } from "../../provider/resources/synced-folder/core.js";
import { anyOf, fileFilter, globProblem } from "../../provider/resources/synced-folder/globs.js";
import { checkedScan } from "../../provider/resources/synced-folder/check.js";
import {
  decodeManifest,
  describePlan,
  digestOf,
  encodeManifest,
  inputDigest,
  manifestOf,
  normalPrefix,
  planSync,
  type LocalFiles,
  type Manifest,
} from "../../provider/resources/synced-folder/manifest.js";
import { runSync } from "../../provider/resources/synced-folder/sync.js";
import type { SyncedFolderOutputs } from "../../provider/resources/synced-folder/fields.js";
import { unknownValue } from "../../provider/vocabulary.js";
import { ctx, journal, useApi, type Logged } from "./support.js";

useApi();

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const local = (text: string) => ({ sha256: sha(text), size: Buffer.byteLength(text) });
const localFiles = (tree: Record<string, string>): LocalFiles =>
  new Map(Object.entries(tree).map(([path, text]) => [path, local(text)]));
/** A state's manifest: each file's content, written with ETag `e-<path>`. */
const manifestOfTexts = (tree: Record<string, string>): Manifest =>
  new Map(Object.entries(tree).map(([path, text]) => [path, { ...local(text), etag: `e-${path}` }]));

let dir: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-folder-"));
  // The hash cache lives under PULUMI_HOME: never the real one.
  home = mkdtempSync(join(tmpdir(), "cloudplatform-home-"));
  process.env["PULUMI_HOME"] = home;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
  delete process.env["PULUMI_HOME"];
});

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
  it("hashes every file by its path with /, sorted, sums them up in one digest, and applies the defaults", () => {
    files({ "index.html": "<h1>hi</h1>", "assets/app.js": "x()", "assets/img/logo.svg": "<svg/>" });
    const c = ctx();
    const { inputs, failures } = syncedFolderCore.check(c, undefined, { bucket: "site", path: dir, ...access });
    expect(failures).toEqual([]);
    const expected = localFiles({
      "assets/app.js": "x()",
      "assets/img/logo.svg": "<svg/>",
      "index.html": "<h1>hi</h1>",
    });
    const scanned = checkedScan(c, inputs)?.files;
    expect(scanned).toEqual(expected);
    expect([...(scanned?.keys() ?? [])]).toEqual(["assets/app.js", "assets/img/logo.svg", "index.html"]);
    expect(inputs.manifestDigest).toBe(digestOf(expected));
    expect(inputs.manifestDigest).toMatch(/^3 files, sha256:[0-9a-f]{64}$/);
    expect(inputs).toMatchObject({ prefix: "", deleteRemoved: true });
  });

  it("changes the digest when a file is added, edited or removed, and only then", () => {
    files({ "a.html": "a", "b.css": "b" });
    const first = check({}).inputs.manifestDigest;
    expect(check({}).inputs.manifestDigest).toBe(first);
    files({ "b.css": "B" });
    const edited = check({}).inputs.manifestDigest;
    files({ "c.js": "c" });
    const added = check({}).inputs.manifestDigest;
    rmSync(join(dir, "c.js"));
    expect(new Set([first, edited, added]).size).toBe(3);
    expect(check({}).inputs.manifestDigest).toBe(edited);
  });

  it("keeps only what include names, less what exclude names", () => {
    files({ "a.html": "a", "a.js.map": "m", "drafts/b.html": "b", "img/c.png": "c", "img/deep/d.png": "d" });
    const kept = (news: Record<string, unknown>) => {
      const c = ctx();
      const { inputs } = syncedFolderCore.check(c, undefined, {
        bucket: "site",
        path: dir,
        ...access,
        ...news,
      } as never);
      return [...(checkedScan(c, inputs)?.files.keys() ?? [])];
    };
    expect(kept({ exclude: ["*.map", "drafts/**"] })).toEqual(["a.html", "img/c.png", "img/deep/d.png"]);
    expect(kept({ include: ["img/*.png", "*.html"], exclude: ["drafts/**"] })).toEqual(["a.html", "img/c.png"]);
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

  it("passes unknown values of preview through, the digest unknown with them", () => {
    const { inputs, failures } = check({ path: unknownValue });
    expect(failures).toEqual([]);
    expect(inputs.manifestDigest).toBe(unknownValue);
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

describe("the manifest", () => {
  it("is one string in the state, read back entry for entry, paths with tabs and line ends included", () => {
    const manifest: Manifest = new Map([
      ["a.html", { sha256: sha("a"), size: 1, etag: "e1" }],
      ["odd\tname\nwith \\ in it.txt", { sha256: sha("b"), size: 22, etag: "e2-3" }],
      ["z/deep/é.css", { sha256: "changed-outside-pulumi", size: 0, etag: "e3" }],
    ]);
    const text = encodeManifest(manifest);
    expect(text).toMatch(/^1:[A-Za-z0-9+/]+=*$/);
    expect(decodeManifest(text)).toEqual(manifest);
    expect(manifestOf({ manifest: text })).toEqual(manifest);
    expect(() => decodeManifest("9:abc")).toThrow(/unknown version "9:abc"/);
  });

  it("takes about a third of the state the two maps took for 10,000 files", () => {
    const many: Manifest = new Map(
      Array.from({ length: 10_000 }, (_, i) => [
        `d${i % 100}/f${i}.txt`,
        { sha256: sha(String(i)), size: 4096, etag: createHash("md5").update(String(i)).digest("hex") },
      ]),
    );
    const files = JSON.stringify(Object.fromEntries([...many].map(([p, f]) => [p, `${f.sha256} ${f.size}`])));
    const etags = JSON.stringify(Object.fromEntries([...many].map(([p, f]) => [p, f.etag])));
    // Before: `files` as an input and an output, `etags` as an output.
    const before = 2 * files.length + etags.length;
    const now = encodeManifest(many).length + digestOf(many).length * 2;
    expect(now / before).toBeLessThan(0.35);
  });

  it("reads the files and etags maps of states written before, and their digest is the same", () => {
    const legacy = {
      files: { "b.css": `${sha("b")} 1`, "a.html": `${sha("a")} 1` },
      etags: { "a.html": "e-a.html", "b.css": "e-b.css" },
    };
    const manifest = manifestOf(legacy);
    expect([...manifest.keys()]).toEqual(["a.html", "b.css"]);
    expect(manifest.get("a.html")).toEqual({ ...local("a"), etag: "e-a.html" });
    expect(inputDigest({ files: legacy.files })).toBe(digestOf(localFiles({ "a.html": "a", "b.css": "b" })));
    expect(inputDigest({ manifestDigest: "1 files, sha256:x" })).toBe("1 files, sha256:x");
    expect(inputDigest({ files: unknownValue })).toBe(unknownValue);
  });
});

describe("the manifest's plan", () => {
  const synced = manifestOfTexts({ "a.html": "a", "b.css": "b", "c.js": "c" });

  it("adds new files, changes edited ones, removes deleted ones, and leaves the rest", () => {
    const plan = planSync(synced, localFiles({ "a.html": "a", "b.css": "b2", "d.png": "d" }));
    expect(plan).toEqual({ add: ["d.png"], change: ["b.css"], remove: ["c.js"] });
    expect(describePlan(plan, true)).toBe("1 to add, 1 to change, 1 to delete: + d.png, ~ b.css, - c.js");
    expect(describePlan(plan, false)).toContain("1 to forget (kept in the bucket, deleteRemoved is false)");
  });

  it("is empty for an unchanged folder, and sends everything when the headers change", () => {
    const same = localFiles({ "a.html": "a", "b.css": "b", "c.js": "c" });
    expect(planSync(synced, same)).toEqual({ add: [], change: [], remove: [] });
    expect(planSync(synced, same, true).change).toEqual(["a.html", "b.css", "c.js"]);
  });

  it("names the paths only when few", () => {
    const many = localFiles(Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}.txt`, String(i)])));
    expect(describePlan(planSync(new Map(), many), true)).toBe(
      "25 to add, 0 to change, 0 to delete (more than 20 files: paths not listed)",
    );
  });
});

describe("diff", () => {
  const state = (tree: Record<string, string>): SyncedFolderOutputs => {
    const manifest = manifestOfTexts(tree);
    return {
      bucket: "site",
      prefix: "",
      path: dir,
      deleteRemoved: true,
      ...access,
      manifestDigest: digestOf(manifest),
      manifest: encodeManifest(manifest),
      fileCount: manifest.size,
      totalBytes: 0,
      s3Endpoint: "http://s3",
      region: "us-east-1",
    };
  };
  /** The same state as the version before wrote it: two maps, no digest. */
  const legacyState = (tree: Record<string, string>) => {
    const { manifest: _m, manifestDigest: _d, ...rest } = state(tree);
    const files = Object.fromEntries(Object.entries(tree).map(([p, t]) => [p, `${sha(t)} ${Buffer.byteLength(t)}`]));
    const etags = Object.fromEntries(Object.keys(tree).map((p) => [p, `e-${p}`]));
    return { ...rest, files, etags } as unknown as SyncedFolderOutputs;
  };

  it("shows no change for the same files, an update naming the files for others, a replace for a new prefix", () => {
    files({ "a.html": "a" });
    const news = check({}).inputs;
    expect(syncedFolderCore.diff(ctx(), "id", state({ "a.html": "a" }), news).changes).toBe(false);
    const logs: Logged[] = [];
    const d = syncedFolderCore.diff(ctx("www", logs), "id", state({ "a.html": "old" }), news);
    expect(d).toMatchObject({ changes: true, replaces: [], changed: ["manifestDigest"] });
    expect(logs.map((l) => l.message)).toEqual(['Test "www": 0 to add, 1 to change, 0 to delete: ~ a.html']);
    expect(syncedFolderCore.diff(ctx(), "id", state({ "a.html": "a" }), { ...news, prefix: "v2/" }).replaces).toEqual([
      "prefix",
    ]);
  });

  it("reads a state written before the manifest string: no change for the same files, an update for others", () => {
    files({ "a.html": "a", "b/c.css": "c" });
    const news = check({}).inputs;
    expect(syncedFolderCore.diff(ctx(), "id", legacyState({ "a.html": "a", "b/c.css": "c" }), news).changes).toBe(
      false,
    );
    const logs: Logged[] = [];
    const d = syncedFolderCore.diff(ctx("www", logs), "id", legacyState({ "a.html": "a" }), news);
    expect(d).toMatchObject({ changes: true, changed: ["manifestDigest"] });
    expect(logs.map((l) => l.message)).toEqual(['Test "www": 1 to add, 0 to change, 0 to delete: + b/c.css']);
  });

  it("compares a refreshed state with inputs of either version, and names no file when check did not run", () => {
    // A refresh hands the state's inputs as `news`, without a check: the folder is not looked at.
    const legacyInputs = { ...legacyState({ "a.html": "a" }) } as unknown as Record<string, unknown>;
    const logs: Logged[] = [];
    const refreshed = state({ "a.html": "a" });
    expect(syncedFolderCore.diff(ctx("www", logs), "id", refreshed, legacyInputs as never).changes).toBe(false);
    const drifted = syncedFolderCore.diff(
      ctx("www", logs),
      "id",
      state({ "a.html": "changed" }),
      legacyInputs as never,
    );
    expect(drifted).toMatchObject({ changes: true, changed: ["manifestDigest"] });
    expect(logs).toEqual([]);
  });

  it("updates without any file for a new key pair (recorded, nothing sent)", () => {
    files({ "a.html": "a" });
    const d = syncedFolderCore.diff(ctx(), "id", state({ "a.html": "a" }), {
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
  /** The folder's files as check scans them. */
  const scan = (): LocalFiles => {
    const c = ctx();
    const { inputs } = syncedFolderCore.check(c, undefined, { bucket: "site", path: dir, ...access });
    return checkedScan(c, inputs)?.files ?? new Map();
  };
  const job = (store: ObjectStore, local: LocalFiles, synced: Manifest) => ({
    store,
    prefix: "site/",
    root: dir,
    local,
    plan: planSync(synced, local),
    deleteRemoved: true,
    cacheControl: undefined,
    progress: journal().progress("SyncedFolder", "www"),
  });

  it("sends only the plan's files, and clears its progress log once done", async () => {
    files({ "a.html": "a", "b.css": "b", "c.js": "c" });
    const store = fakeStore();
    const synced: Manifest = new Map();
    await runSync(ctx(), job(store, scan(), synced), synced);
    expect(store.counts).toEqual({ PutObject: 3 });
    expect([...synced.keys()].sort()).toEqual(["a.html", "b.css", "c.js"]);
    expect(journal().progress("SyncedFolder", "www").lines()).toEqual([]);

    writeFileSync(join(dir, "b.css"), "b2");
    rmSync(join(dir, "c.js"));
    const store2 = fakeStore();
    await runSync(ctx(), job(store2, scan(), synced), synced);
    expect(store2.counts).toEqual({ PutObject: 1, DeleteObject: 1 });
    expect([...synced.keys()].sort()).toEqual(["a.html", "b.css"]);
  });

  it("after an interrupted run, sends only what its progress log lacks or the bucket no longer holds", async () => {
    files({ "a.html": "a", "b.css": "b", "c.js": "c", "d.txt": "d" });
    const local = scan();
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
    const synced: Manifest = new Map();
    const logs: Logged[] = [];
    await runSync(ctx("www", logs), job(store, local, synced), synced);
    // One listing, then b (changed since), c (not logged) and d (never sent).
    expect(store.counts).toEqual({ ListObjectsV2: 1, PutObject: 3 });
    expect(synced.get("a.html")?.etag).toBe("etag-a");
    expect([...synced.keys()].sort()).toEqual(["a.html", "b.css", "c.js", "d.txt"]);
    expect(logs.map((l) => l.message)).toContain(
      'Test "www": 1 of 4 files arrived in an interrupted run and are not sent again',
    );
  });

  it("logs each upload the moment it completes, so a kill loses at most those in flight", async () => {
    files(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}.txt`, `file ${i}`])));
    const store = fakeStore();
    const synced: Manifest = new Map();
    const log = journal().progress("SyncedFolder", "www");
    // What the log held each time an upload was recorded, and how many uploads had completed then.
    const appends: { lines: number; completed: number }[] = [];
    const progress = {
      ...log,
      append: (lines: readonly string[]) => {
        log.append(lines);
        appends.push({ lines: lines.length, completed: synced.size });
      },
    };
    await runSync(ctx(), { ...job(store, scan(), synced), progress }, synced);
    expect(store.counts).toEqual({ PutObject: 40 });
    // One line per upload, written as it completes: never a batch waiting for the next write.
    expect(appends.length).toBe(40);
    expect(appends.every((a, i) => a.lines === 1 && a.completed === i + 1)).toBe(true);
  });

  it("a log of another bucket is not trusted", async () => {
    files({ "a.html": "a" });
    const store = fakeStore();
    store.objects.set("site/a.html", "etag-a");
    journal()
      .progress("SyncedFolder", "www")
      .append([JSON.stringify(["other", "site/a.html", sha("a"), "etag-a"])]);
    const synced: Manifest = new Map();
    await runSync(ctx(), job(store, scan(), synced), synced);
    expect(store.counts).toEqual({ PutObject: 1 });
  });
});
