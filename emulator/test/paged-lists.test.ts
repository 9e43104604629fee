import { describe, expect, it } from "vitest";
import type { RunningEmulator, ShapeName } from "../src/index.js";
import { call, withEmulator, type ApiResponse } from "./helpers.js";

// Paged lists (docs/api-contract.md §9.3): with `pageSize`, each shape pages its lists in its own
// way, and walking the pages as the shape says yields every object once.

const buckets = "/object-storage/buckets";

/** The items of one page of a bucket list, as each shape holds them. */
const itemsOf: Record<ShapeName, (res: ApiResponse) => Array<{ name: string }>> = {
  canonical: (res) => res.body,
  flat: (res) => res.body,
  envelope: (res) => res.body.data,
  "by-name": (res) => res.body.buckets,
};

/** The path of the next page, as each shape says it, or undefined on the last page. */
const nextOf: Record<ShapeName, (res: ApiResponse, path: string) => string | undefined> = {
  canonical: (res) => /<([^>]+)>;\s*rel="next"/.exec(res.headers.get("link") ?? "")?.[1],
  flat: (res) => /<([^>]+)>;\s*rel="next"/.exec(res.headers.get("link") ?? "")?.[1],
  envelope: (res, path) =>
    res.body.meta.page < res.body.meta.total_pages ? withParam(path, "page", res.body.meta.page + 1) : undefined,
  "by-name": (res, path) =>
    res.body.nextPageToken === undefined ? undefined : withParam(path, "pageToken", res.body.nextPageToken),
};

function withParam(path: string, name: string, value: string | number): string {
  const url = new URL(path, "http://x");
  url.searchParams.set(name, String(value));
  return `${url.pathname}${url.search}`;
}

async function walk(
  emu: RunningEmulator,
  shape: ShapeName,
  first: string,
): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let pages = 0;
  for (let path: string | undefined = first; path !== undefined && pages < 20; pages++) {
    const res = await call(emu, "GET", path);
    expect(res.status, path).toBe(200);
    const items = itemsOf[shape](res);
    expect(items.length, path).toBeLessThanOrEqual(2);
    names.push(...items.map((b) => b.name));
    path = nextOf[shape](res, path);
  }
  return { names, pages };
}

describe.each(["canonical", "envelope", "flat", "by-name"] as const)("paged lists: %s", (shape) => {
  it("answers 2 items a page and leads to every object once", async () => {
    await withEmulator(
      async (emu) => {
        const created = ["p-a", "p-b", "p-c", "p-d", "p-e"];
        for (const name of created) {
          expect((await call(emu, "POST", buckets, { body: { name, storage_class: "Standard" } })).status).toBe(201);
        }
        const { names, pages } = await walk(emu, shape, buckets);
        expect(pages).toBe(3);
        expect(names.sort()).toEqual(created);
        // The lookup's own query is kept on the way.
        const filtered = await walk(emu, shape, `${buckets}?name=p-c`);
        expect(filtered.names).toEqual(["p-c"]);
      },
      { shape, pageSize: 2 },
    );
  });

  it("refuses a page parameter that names no page, and answers past the last page with none", async () => {
    await withEmulator(
      async (emu) => {
        const param = shape === "by-name" ? "pageToken" : "page";
        // Each shape writes its own error body (flat's is plain text): the status is what counts.
        for (const bad of ["zero", "0", "-1"]) {
          const res = await fetch(`${emu.baseUrl}${buckets}?${param}=${bad}`, {
            headers: { authorization: emu.apiKey },
          });
          expect(res.status, bad).toBe(400);
        }
        const past = shape === "by-name" ? Buffer.from("p9").toString("base64url") : "9";
        const res = await call(emu, "GET", `${buckets}?${param}=${past}`);
        expect(res.status).toBe(200);
        expect(itemsOf[shape](res)).toEqual([]);
      },
      { shape, pageSize: 2 },
    );
  });
});

it("answers every list in one page without a page size", async () => {
  await withEmulator(async (emu) => {
    for (const name of ["q-a", "q-b", "q-c"]) {
      await call(emu, "POST", buckets, { body: { name, storage_class: "Standard" } });
    }
    const res = await call(emu, "GET", buckets);
    expect(res.body).toHaveLength(3);
    expect(res.headers.get("link")).toBeNull();
  });
});
