/**
 * Lists over pages (docs/api-contract.md §2.3), in one place: what a page's body says of the next
 * page (a link, a cursor, a page number, an offset, a "more" flag), the Link header, and the loop
 * that follows them.
 */
import { UnexpectedResponseError } from "../errors.js";
import { findList, type Reader } from "./find.js";
import { AnswerObject, isObj, keyForm, ShapeProblem } from "./object.js";
import { amount, flag, identifier, text, wholeNumber } from "./values.js";

/**
 * What reading lists and single objects needs of the API client (client.ts): its base URL, and a
 * GET read with a reader. Declared here because the client sits above this folder (it reads every
 * answer with the readers of this folder), so this folder cannot import it.
 */
export interface ReadingClient {
  readonly settings: { readonly baseUrl: string };
  request<T>(opts: {
    readonly method: "GET";
    readonly path: string;
    readonly query?: Readonly<Record<string, string | undefined>>;
    readonly schema: Reader<T>;
  }): Promise<{
    readonly status: number;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
    readonly data: T;
  }>;
}

/** One page of a list answer. */
export interface Page<T> {
  readonly items: T[];
  /** A link to the next page given in the body (absolute, or relative to the request). */
  readonly next: string | undefined;
  /**
   * The query that asks for the next page, where the body gives a cursor, a page number or an
   * offset instead of a link: added to the first request's query, on the same path.
   */
  readonly nextQuery: Readonly<Record<string, string>> | undefined;
  /** The body says that more items exist (with or without a way to ask for them). */
  readonly more: boolean;
}

/** Where a body keeps its paging: at the top or in one of these objects. */
const pagingHolders = ["links", "_links", "meta", "pagination", "paging", "page", "page_info", "response_metadata"];
const nextNames = ["next", "next_url", "next_page_url", "next_link", "odata_next_link", "next_page", "next_href"];
const moreFlags = ["has_more", "has_next", "has_next_page", "more"];
const totalNames = ["total", "total_count", "total_items", "total_results", "total_size", "total_elements"];
const pageCountNames = ["total_pages", "page_count", "pages", "last_page"];
/** A cursor or token in the body, and the query parameter that sends it back (Slack, Google, AWS, S3…). */
const cursorParams: ReadonlyArray<readonly [readonly string[], string]> = [
  [["next_cursor"], "cursor"],
  [["next_page_token"], "page_token"],
  [["next_token"], "next_token"],
  [["next_continuation_token", "continuation_token"], "continuation_token"],
  [["cursor"], "cursor"],
];

function link(v: unknown): string | undefined {
  const s = text(v) ?? (isObj(v) ? new AnswerObject(v).read(["href", "url"], text) : undefined);
  return s !== undefined && /^(https?:\/\/|\/|\?)/i.test(s) ? s : undefined;
}

/** `name` (snake_case) spelled as the body spells `sample`: `page_token` beside `nextPageToken` is `pageToken`. */
function spelledLike(sample: string, name: string): string {
  const words = name.split("_");
  if (sample.includes("_") || !/[A-Z]/.test(sample)) return name;
  const capital = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);
  const camel = words.map((w, i) => (i === 0 ? w : capital(w))).join("");
  return /^[A-Z]/.test(sample) ? capital(camel) : camel;
}

/**
 * How to ask for the page after this one without a link, from one paging holder: a cursor or token
 * (sent back under the matching parameter), a page number below the page count (1-based, or
 * Spring's 0-based `page.number`), or an offset below the total (with the body's page size).
 * `"last"`: the page number or offset says this is the last page, whatever a total says (a total
 * counts every page's items, not this one's).
 */
function continuation(f: AnswerObject, holder: string, held: number): Record<string, string> | "last" | undefined {
  for (const [names, param] of cursorParams) {
    const cursor = f.entry(names, text);
    if (cursor !== undefined) return { [spelledLike(cursor.key, param)]: cursor.value };
  }
  const pages = f.read(pageCountNames, wholeNumber);
  const page = f.entry(["page", "current_page", "page_number"], wholeNumber);
  if (page !== undefined && pages !== undefined) {
    if (page.value >= pages) return "last";
    const param = keyForm(page.key) === "pagenumber" ? "page_number" : "page";
    return { [spelledLike(page.key, param)]: String(page.value + 1) };
  }
  const zeroBased = holder === "page" ? f.read(["number"], wholeNumber) : undefined;
  if (zeroBased !== undefined && pages !== undefined) {
    return zeroBased + 1 >= pages ? "last" : { page: String(zeroBased + 1) };
  }
  const offset = f.entry(["offset", "skip", "start"], wholeNumber);
  const total = f.read(totalNames, wholeNumber);
  if (offset !== undefined && total !== undefined) {
    if (offset.value + held >= total) return "last";
    // An empty page before the total is reached: asking from the same offset again would loop.
    if (held === 0) return undefined;
    const limit = f.entry(["limit", "per_page", "page_size"], wholeNumber);
    return {
      [offset.key]: String(offset.value + held),
      ...(limit !== undefined && limit.value > 0 ? { [limit.key]: String(limit.value) } : {}),
    };
  }
  return undefined;
}

/**
 * Whether the body says there is more than it holds, once no link or continuation was found (cursors
 * and page counts always yield one): a flag, a next page that is not a link, a total above the items.
 */
function moreSignalled(f: AnswerObject, held: number): boolean {
  if (f.read(moreFlags, flag) === true) return true;
  if (f.read(nextNames, text)) return true;
  const total = f.read(totalNames, amount);
  return total !== undefined && total > held;
}

function pageOf<T>(raw: unknown, items: T[], rawItems: readonly unknown[]): Page<T> {
  const none = { items, next: undefined, nextQuery: undefined };
  if (!isObj(raw)) return { ...none, more: false };
  const top = new AnswerObject(raw);
  const holders: Array<{ name: string; object: AnswerObject }> = [
    { name: "", object: top },
    ...pagingHolders.flatMap(
      (h) => top.read([h], (v) => (isObj(v) ? [{ name: h, object: new AnswerObject(v) }] : undefined)) ?? [],
    ),
  ];
  for (const { object } of holders) {
    const next = object.read(nextNames, link);
    if (next !== undefined) return { ...none, next, more: true };
  }
  // A flag that says this is the last page wins over a cursor some platforms always send.
  if (holders.some(({ object }) => object.read(moreFlags, flag) === false)) return { ...none, more: false };
  const flagged = holders.some(({ object }) => object.read(moreFlags, flag) === true);
  for (const { name, object } of holders) {
    const nextQuery = continuation(object, name, items.length);
    // A page count or total that says "last" beside a flag that says "more": not read as the end.
    if (nextQuery === "last" && !flagged) return { ...none, more: false };
    if (nextQuery !== undefined && nextQuery !== "last") return { ...none, nextQuery, more: true };
  }
  // Stripe: `has_more` alone, and the next page starts after the last item's id.
  const last = rawItems[rawItems.length - 1];
  const lastId = isObj(last) ? new AnswerObject(last).read(["id"], identifier) : undefined;
  if (top.read(moreFlags, flag) === true && lastId !== undefined) {
    return { ...none, nextQuery: { starting_after: lastId }, more: true };
  }
  return { ...none, more: holders.some(({ object }) => moreSignalled(object, items.length)) };
}

/** A list reader: every item must be readable (an item skipped could be taken for an object that is gone). */
export function listOf<T>(plurals: readonly string[], item: (raw: unknown) => T): (raw: unknown) => Page<T> {
  return (raw) => {
    const rawItems = findList(raw, plurals);
    const items = rawItems.map((entry, index) => {
      try {
        return item(entry);
      } catch (err) {
        if (err instanceof ShapeProblem) throw new ShapeProblem(`list item ${index}: ${err.message}`);
        throw err;
      }
    });
    return pageOf(raw, items, rawItems);
  };
}

/** More pages than any project has objects: a platform that keeps linking to pages is broken. */
const maxPages = 1000;

/** `rel="next"` of an RFC 8288 Link header. */
function linkHeaderNext(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(",") : header;
  for (const part of value?.split(/,(?=\s*<)/) ?? []) {
    const match = /^\s*<([^>]*)>(.*)$/s.exec(part);
    const rel = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(match?.[2] ?? "")?.[1];
    if (match && rel?.toLowerCase().split(/\s+/).includes("next")) return match[1];
  }
  return undefined;
}

/** The path (after the base URL) of the next page, or why it cannot be requested. */
function nextPath(
  base: string,
  current: string,
  next: string | undefined,
  seen: Set<string>,
): string | { why: string } {
  if (next === undefined) return { why: "it gives no link to them, nor a cursor, page number or offset" };
  const href = new URL(next, base + current).href;
  if (!href.startsWith(base)) return { why: "its next page is not under the base URL" };
  if (seen.has(href) || seen.size >= maxPages) return { why: "its pages do not end" };
  seen.add(href);
  return href.slice(base.length) || "/";
}

/** `path` with the first request's query and then the continuation's parameters. */
function withQuery(path: string, ...queries: ReadonlyArray<Readonly<Record<string, string | undefined>>>): string {
  const params = new URLSearchParams();
  for (const query of queries) for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
  const search = params.toString();
  return search === "" ? path : `${path}?${search}`;
}

/**
 * Every item of a list, following its pages: the Link header's `next`, else a next link in the
 * body, else the body's cursor, page number or offset sent back as a query parameter (§2.3). The
 * next page must be under the base URL (the credential is sent to no other address); a list that
 * says it continues without any of these fails, rather than hide objects that exist, and so does
 * one whose pages repeat (a platform that ignores the parameter answers the same page again).
 */
export async function listAll<T>(
  client: ReadingClient,
  path: string,
  query: Record<string, string | undefined>,
  schema: Reader<Page<T>>,
): Promise<T[]> {
  // As URL spells it (default port dropped, host in lower case), so that next links compare with it.
  const base = new URL(client.settings.baseUrl).href.replace(/\/$/, "");
  const items: T[] = [];
  const seen = new Set<string>([new URL(base + withQuery(path, query)).href]);
  let current = path;
  for (let first = true; ; first = false) {
    const res = await client.request({ method: "GET", path: current, ...(first ? { query } : {}), schema });
    items.push(...res.data.items);
    const link = linkHeaderNext(res.headers["link"]) ?? res.data.next;
    if (link === undefined && !res.data.more) return items;
    const continued = res.data.nextQuery && base + withQuery(path, query, res.data.nextQuery);
    const step = nextPath(base, current, link ?? continued, seen);
    if (typeof step !== "string") {
      throw new UnexpectedResponseError(
        `GET ${path}`,
        [],
        `the list continues on further pages, but ${step.why}`,
        res.status,
      );
    }
    current = step;
  }
}
