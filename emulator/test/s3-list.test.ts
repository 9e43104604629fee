/**
 * Listings of big buckets, as a folder sync of 10,000 files makes them: ListObjectsV2 and v1 over
 * 12,000 keys with prefixes, delimiters, start-after and continuation tokens, against the order S3
 * uses (UTF-8 bytes), while keys come and go; and what a page costs (index reads, not time).
 */
import {
  DeleteObjectsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPage } from "../src/s3/list-page.js";
import { compareKeys } from "../src/s3/object-store.js";
import { s3Client, startPlane, type RunningPlane } from "./s3-helpers.js";

let p: RunningPlane;
let alpha: S3Client;

const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

// 12 folders of 1,000 files, and keys whose UTF-16 order differs from their UTF-8 order.
const folderKeys = Array.from({ length: 12_000 }, (_, i) => {
  const folder = String(Math.floor(i / 1000)).padStart(2, "0");
  return `site/d${folder}/f${String(i % 1000).padStart(4, "0")}.html`;
});
const oddKeys = [
  "site/u/a",
  "site/u/\u00e4",
  "site/u/\uE000",
  "site/u/\uFFFD",
  "site/u/\u{1F600}",
  "site/u/\u{10FFFF}",
  "site/index.html",
];
let keys: string[] = [];

/** Runs `task` on every item, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

beforeAll(async () => {
  p = await startPlane();
  alpha = s3Client(p.url, p.alpha);
  keys = [...folderKeys, ...oddKeys];
  await pool(keys, 32, (key) => alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: key, Body: "x" })));
}, 300_000);
afterAll(async () => {
  alpha?.destroy();
  await p?.close();
});

/** Every key and common prefix of a V2 listing, page by page, with the page count. */
async function listV2(input: { Prefix?: string; Delimiter?: string; StartAfter?: string; MaxKeys?: number }) {
  const items: string[] = [];
  let pages = 0;
  let token: string | undefined;
  do {
    const page = await alpha.send(new ListObjectsV2Command({ Bucket: "alpha", ...input, ContinuationToken: token }));
    pages++;
    const onPage = [...(page.Contents ?? []).map((o) => o.Key!), ...(page.CommonPrefixes ?? []).map((c) => c.Prefix!)];
    expect(page.KeyCount).toBe(onPage.length);
    expect(onPage.length).toBeLessThanOrEqual(input.MaxKeys ?? 1000);
    items.push(...onPage);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
    if (page.IsTruncated) expect(token).toBeTruthy();
  } while (token);
  return { items, pages };
}

/** What S3 answers for a listing, computed from the key set. */
function expected(all: readonly string[], prefix = "", delimiter = "", startAfter = ""): string[] {
  const out = new Set<string>();
  for (const key of [...all].sort(byUtf8)) {
    if (!key.startsWith(prefix) || byUtf8(key, startAfter) <= 0) continue;
    const at = delimiter === "" ? -1 : key.indexOf(delimiter, prefix.length);
    out.add(at < 0 ? key : key.slice(0, at + delimiter.length));
  }
  return [...out];
}

describe("ListObjectsV2 over 12,007 keys", () => {
  it("pages through every key in UTF-8 byte order, 1,000 a page", async () => {
    const { items, pages } = await listV2({ Prefix: "site/" });
    expect(items).toEqual(expected(keys, "site/"));
    expect(items).toHaveLength(12_007);
    expect(pages).toBe(13);
  });

  it("rolls folders into common prefixes, also across pages of a few items", async () => {
    const { items, pages } = await listV2({ Prefix: "site/", Delimiter: "/", MaxKeys: 4 });
    expect(items).toEqual(expected(keys, "site/", "/"));
    expect(items).toEqual(
      [
        ...Array.from({ length: 12 }, (_, i) => `site/d${String(i).padStart(2, "0")}/`),
        "site/index.html",
        "site/u/",
      ].sort(byUtf8),
    );
    expect(pages).toBe(4);
  });

  it("answers a prefix, a start-after inside it, and a delimiter under a prefix", async () => {
    const after = await listV2({ Prefix: "site/d05/", StartAfter: "site/d05/f0100.html", MaxKeys: 300 });
    expect(after.items).toEqual(expected(keys, "site/d05/", "", "site/d05/f0100.html"));
    expect(after.items).toHaveLength(899);
    expect(after.pages).toBe(3);
    const odd = await listV2({ Prefix: "site/u/", Delimiter: "/" });
    expect(odd.items).toEqual(expected(keys, "site/u/", "/"));
    // U+E000 and U+FFFD come before the characters above U+FFFF in UTF-8, not after as in UTF-16.
    expect(odd.items.slice(-4)).toEqual(["site/u/\uE000", "site/u/\uFFFD", "site/u/\u{1F600}", "site/u/\u{10FFFF}"]);
    const none = await listV2({ Prefix: "site/d99/" });
    expect(none).toEqual({ items: [], pages: 1 });
  });

  it("stays complete and ordered while keys are added and deleted between pages", async () => {
    const first = await alpha.send(new ListObjectsV2Command({ Bucket: "alpha", Prefix: "site/d03/", MaxKeys: 500 }));
    const added = ["site/d03/f0499a.html", "site/d03/f0750a.html", "site/d03/\u{1F600}.html"];
    const removed = ["site/d03/f0800.html", "site/d03/f0801.html"];
    for (const key of added) await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: key, Body: "y" }));
    await alpha.send(
      new DeleteObjectsCommand({ Bucket: "alpha", Delete: { Objects: removed.map((Key) => ({ Key })) } }),
    );
    const rest = await alpha.send(
      new ListObjectsV2Command({
        Bucket: "alpha",
        Prefix: "site/d03/",
        ContinuationToken: first.NextContinuationToken,
      }),
    );
    keys = [...keys.filter((k) => !removed.includes(k)), ...added];
    const now = expected(keys, "site/d03/");
    // The second page continues after the first page's last key, in the bucket as it is now.
    const last = first.Contents!.at(-1)!.Key!;
    expect(rest.Contents!.map((o) => o.Key)).toEqual(now.filter((k) => byUtf8(k, last) > 0));
    expect((await listV2({ Prefix: "site/" })).items).toEqual(expected(keys, "site/"));
  });
});

describe("ListObjects (v1) over the same keys", () => {
  it("pages with markers through every key", async () => {
    const items: string[] = [];
    let marker: string | undefined;
    let pages = 0;
    do {
      const page = await alpha.send(new ListObjectsCommand({ Bucket: "alpha", Prefix: "site/", Marker: marker }));
      pages++;
      items.push(...(page.Contents ?? []).map((o) => o.Key!));
      marker = page.IsTruncated ? page.NextMarker : undefined;
    } while (marker);
    expect(items).toEqual(expected(keys, "site/"));
    expect(pages).toBe(13);
  });
});

describe("the cost of a page", () => {
  /** The keys, behind a proxy that counts how many times a listing reads one. */
  function counted(all: string[]): { sorted: readonly string[]; reads: () => number } {
    let reads = 0;
    const sorted = new Proxy(all, {
      get(target, property, receiver) {
        if (typeof property === "string" && /^\d+$/.test(property)) reads++;
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    return { sorted, reads: () => reads };
  }

  // 100,000 keys in 10 folders of 10,000.
  const many = Array.from(
    { length: 100_000 },
    (_, i) => `f${Math.floor(i / 10_000)}/k${String(i).padStart(6, "0")}`,
  ).sort(byUtf8);

  /** Pages through a listing as a client does; the item count and the keys read. */
  function pageThrough(query: { prefix: string; delimiter: string; maxKeys: number }) {
    const { sorted, reads } = counted(many);
    let after = "";
    let items = 0;
    for (;;) {
      const page = listPage(sorted, { ...query, after });
      items += page.keys.length + page.commonPrefixes.length;
      if (!page.isTruncated) break;
      after = page.last!;
    }
    return { items, reads: reads() };
  }

  it("steps over the keys under a common prefix instead of reading them one by one", () => {
    // 10 pages of one folder each: a few binary searches of 17 steps per page (about 600 reads in
    // all), where reading the keys under each folder would be 100,000.
    const { items, reads } = pageThrough({ prefix: "", delimiter: "/", maxKeys: 1 });
    expect(items).toBe(10);
    expect(reads).toBeLessThan(2_000);
  });

  it("reads each key about once when paging through all of them", () => {
    const { items, reads } = pageThrough({ prefix: "", delimiter: "", maxKeys: 1000 });
    expect(items).toBe(100_000);
    expect(reads).toBeLessThan(100_000 + 100 * 20 * 2);
  });
});

describe("compareKeys", () => {
  it("orders keys as their UTF-8 bytes do, surrogate pairs included", () => {
    const alphabet = [
      "a",
      "z",
      "/",
      "\u00e4",
      "\u07ff",
      "\u0800",
      "\uD7FF",
      "\uE000",
      "\uFFFD",
      "\uFFFF",
      "\u{10000}",
      "\u{1F600}",
      "\u{10FFFF}",
    ];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () =>
      Array.from({ length: 1 + Math.floor(random() * 4) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(
        "",
      );
    for (let i = 0; i < 5000; i++) {
      const a = word();
      const b = random() < 0.3 ? a + word() : word();
      expect([a, b, Math.sign(compareKeys(a, b))]).toEqual([a, b, Math.sign(byUtf8(a, b))]);
    }
  });
});
