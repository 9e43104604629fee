/**
 * How the provider reads the platform's answers (docs/api-contract.md §2.3). The spec fixes paths
 * and a few field names, not the shapes of answers, so each reader looks for only what its
 * operation needs, under the names and envelopes REST APIs use for it, and tolerates everything
 * else: an unknown field never fails a call, and an optional field that does not parse is dropped.
 *
 * - Keys are compared without their spelling (`created_at`, `createdAt`, `CreatedAt` are one key).
 * - An object is found bare, or under an envelope (`data`, `result`, the kind's name, …), nested up
 *   to twice, with JSON:API `attributes` merged into it; the first candidate that has what the
 *   operation needs wins, the most specific evidence first.
 * - A list is found bare, under a list key or the plural, nested once, or as the body's only array.
 */

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A key without its spelling: `access_key_id`, `accessKeyId` and `AccessKeyId` are one key. */
export function keyForm(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** What a reader throws when the answer lacks what the operation needs; the message names fields, never values. */
export class ShapeProblem extends Error {}

/** One object's fields, looked up by key form. */
export class Fields {
  /** Each key form's value, and the key as the body spells it. */
  private readonly byForm = new Map<string, { readonly key: string; readonly value: unknown }>();

  constructor(readonly raw: Obj) {
    for (const [key, value] of Object.entries(raw)) {
      const form = keyForm(key);
      // A key spelled in its plain form (`id`) wins over other spellings of it (`Id`, `ID`).
      if (!this.byForm.has(form) || key === form) this.byForm.set(form, { key, value });
    }
  }

  /** The value of the first of `names` that `parse` accepts; absent, null and unparseable values are skipped. */
  read<T>(names: readonly string[], parse: (v: unknown) => T | undefined): T | undefined {
    return this.entry(names, parse)?.value;
  }

  /** Like `read`, with the key as the body spells it (`nextPageToken` for `next_page_token`). */
  entry<T>(names: readonly string[], parse: (v: unknown) => T | undefined): { key: string; value: T } | undefined {
    for (const name of names) {
      const found = this.byForm.get(keyForm(name));
      if (found === undefined || found.value === undefined || found.value === null) continue;
      const parsed = parse(found.value);
      if (parsed !== undefined) return { key: found.key, value: parsed };
    }
    return undefined;
  }

  /** Like `read`, but the operation cannot go on without it. */
  need<T>(names: readonly string[], parse: (v: unknown) => T | undefined, what = names[0] ?? "field"): T {
    const value = this.read(names, parse);
    if (value === undefined) throw new ShapeProblem(`no usable ${what}`);
    return value;
  }
}

// ---------------------------------------------------------------------------------------------
// Values

/** A non-empty string. */
export function text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/**
 * An identifier: a non-empty string, or an integer kept as its decimal string (the client parses
 * integers past 2^53 as their digits, so none loses precision).
 */
export function identifier(v: unknown): string | undefined {
  if (typeof v === "number") return Number.isSafeInteger(v) ? String(v) : undefined;
  return text(v);
}

/** A boolean, also spelled `"true"`/`"false"`, `1`/`0` or `"yes"`/`"no"`. */
export function flag(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v !== "string") return undefined;
  const s = v.trim().toLowerCase();
  if (s === "true" || s === "1" || s === "yes") return true;
  if (s === "false" || s === "0" || s === "no") return false;
  return undefined;
}

/** A finite non-negative number, also given as a numeric string. */
export function amount(v: unknown): number | undefined {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : undefined;
}

const rfc3339ish = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const httpDate = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
/** Epoch values at or above this are milliseconds: 10^11 seconds is the year 5138. */
const millisecondsFrom = 1e11;

function iso(ms: number): string | undefined {
  if (!Number.isFinite(ms)) return undefined;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return undefined;
  const s = date.toISOString();
  return s.endsWith(".000Z") ? `${s.slice(0, -5)}Z` : s;
}

/**
 * A point in time as an RFC 3339 UTC string: from RFC 3339 (a space for `T` and a missing zone,
 * read as UTC, tolerated), an HTTP date, or epoch seconds or milliseconds as numbers or digits.
 */
export function timestamp(v: unknown): string | undefined {
  if (typeof v === "number") return v > 0 ? iso(v >= millisecondsFrom ? v : v * 1000) : undefined;
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return timestamp(Number(s));
  if (httpDate.test(s)) return iso(Date.parse(s));
  if (!rfc3339ish.test(s)) return undefined;
  const withT = s.replace(" ", "T");
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(withT) || !withT.includes("T") ? withT : `${withT}Z`;
  return iso(Date.parse(zoned.replace(/([+-]\d{2})(\d{2})$/, "$1:$2")));
}

/** Strings, or objects naming one (`{"name": "ns1…"}`), as a list of strings. */
function stringList(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const item of v) {
    const s =
      text(item) ?? (isObj(item) ? new Fields(item).read(["name", "host", "hostname", "value"], text) : undefined);
    if (s === undefined) return undefined;
    out.push(s);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Objects and lists

/** Keys that wrap the object or list an answer is about. */
const envelopes = ["data", "result", "response", "payload", "item", "object", "resource", "body", "_embedded"];
/** Keys that hold a list. */
const listKeys = ["data", "items", "results", "result", "records", "entries", "list", "content", "value", "rows"];

/** JSON:API and ARM put the fields under `attributes` / `properties`; the outer keys (id, type) win. */
function flattened(o: Obj): Obj {
  for (const inner of ["attributes", "properties"]) {
    const nested = o[inner];
    if (isObj(nested)) {
      const { [inner]: _moved, ...outer } = o;
      return { ...nested, ...outer };
    }
  }
  return o;
}

/** The object itself, then what its envelopes and kind keys hold, breadth first, at most two levels down. */
function candidates(raw: unknown, kinds: readonly string[]): Fields[] {
  const wrappers = new Set([...envelopes, ...kinds].map(keyForm));
  const out: Fields[] = [];
  let level: Obj[] = isObj(raw) ? [raw] : [];
  for (let depth = 0; depth <= 2 && level.length > 0; depth++) {
    const next: Obj[] = [];
    for (const o of level) {
      out.push(new Fields(flattened(o)));
      for (const [key, value] of Object.entries(o)) if (isObj(value) && wrappers.has(keyForm(key))) next.push(value);
    }
    level = next;
  }
  return out;
}

/**
 * The object an answer is about: the first candidate accepted by the first of `tests` (the most
 * specific evidence first, so that an envelope's own `id` does not pass for the object's).
 */
function findObject(raw: unknown, kinds: readonly string[], tests: readonly ((f: Fields) => boolean)[]): Fields {
  const all = candidates(raw, kinds);
  for (const test of tests) {
    const found = all.find(test);
    if (found !== undefined) return found;
  }
  throw new ShapeProblem(raw === undefined ? "the body is empty" : `no ${kinds[0] ?? "object"} in the body`);
}

function arrayIn(o: Obj, plurals: readonly string[], depth: number): unknown[] | undefined {
  const byForm = new Fields(o);
  const known = byForm.read([...listKeys, ...plurals], (v) => (Array.isArray(v) ? v : undefined));
  if (known !== undefined) return known;
  if (depth > 0) {
    const wrappers = new Set([...envelopes, ...listKeys, ...plurals].map(keyForm));
    for (const [key, value] of Object.entries(o)) {
      if (!isObj(value) || !wrappers.has(keyForm(key))) continue;
      const inner = arrayIn(value, plurals, depth - 1);
      if (inner !== undefined) return inner;
    }
  }
  const arrays = Object.values(o).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}

/** The items of a list answer. */
function findList(raw: unknown, plurals: readonly string[]): unknown[] {
  if (Array.isArray(raw)) return raw;
  const found = isObj(raw) ? arrayIn(raw, plurals, 1) : undefined;
  if (found === undefined) throw new ShapeProblem(raw === undefined ? "the body is empty" : "no list in the body");
  return found;
}

/**
 * How an answer's body becomes a `T`: a function that throws a `ShapeProblem` when the body lacks
 * what the operation needs. The client runs every reader through zod (client.ts `schemaOf`), so that
 * one parsing path (and its `CLOUDPLATFORM_UNEXPECTED_RESPONSE` naming the endpoint and the keys
 * received) serves every answer; zod is loaded with the first answer, not with the provider, as a
 * preview and an `up` without changes read none.
 */
export interface Reader<T> {
  readonly read: (raw: unknown) => T;
}

export function reader<T>(read: (raw: unknown) => T): Reader<T> {
  return { read };
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
  const s = text(v) ?? (isObj(v) ? new Fields(v).read(["href", "url"], text) : undefined);
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

/** A whole number that is not negative (a page number, an offset). */
function wholeNumber(v: unknown): number | undefined {
  const n = amount(v);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}

/**
 * How to ask for the page after this one without a link, from one paging holder: a cursor or token
 * (sent back under the matching parameter), a page number below the page count (1-based, or
 * Spring's 0-based `page.number`), or an offset below the total (with the body's page size).
 * `"last"`: the page number or offset says this is the last page, whatever a total says (a total
 * counts every page's items, not this one's).
 */
function continuation(f: Fields, holder: string, held: number): Record<string, string> | "last" | undefined {
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
function moreSignalled(f: Fields, held: number): boolean {
  if (f.read(moreFlags, flag) === true) return true;
  if (f.read(nextNames, text)) return true;
  const total = f.read(totalNames, amount);
  return total !== undefined && total > held;
}

function pageOf<T>(raw: unknown, items: T[], rawItems: readonly unknown[]): Page<T> {
  const none = { items, next: undefined, nextQuery: undefined };
  if (!isObj(raw)) return { ...none, more: false };
  const top = new Fields(raw);
  const holders: Array<{ name: string; fields: Fields }> = [
    { name: "", fields: top },
    ...pagingHolders.flatMap(
      (h) => top.read([h], (v) => (isObj(v) ? [{ name: h, fields: new Fields(v) }] : undefined)) ?? [],
    ),
  ];
  for (const { fields } of holders) {
    const next = fields.read(nextNames, link);
    if (next !== undefined) return { ...none, next, more: true };
  }
  // A flag that says this is the last page wins over a cursor some platforms always send.
  if (holders.some(({ fields }) => fields.read(moreFlags, flag) === false)) return { ...none, more: false };
  const flagged = holders.some(({ fields }) => fields.read(moreFlags, flag) === true);
  for (const { name, fields } of holders) {
    const nextQuery = continuation(fields, name, items.length);
    // A page count or total that says "last" beside a flag that says "more": not read as the end.
    if (nextQuery === "last" && !flagged) return { ...none, more: false };
    if (nextQuery !== undefined && nextQuery !== "last") return { ...none, nextQuery, more: true };
  }
  // Stripe: `has_more` alone, and the next page starts after the last item's id.
  const last = rawItems[rawItems.length - 1];
  const lastId = isObj(last) ? new Fields(last).read(["id"], identifier) : undefined;
  if (top.read(moreFlags, flag) === true && lastId !== undefined) {
    return { ...none, nextQuery: { starting_after: lastId }, more: true };
  }
  return { ...none, more: holders.some(({ fields }) => moreSignalled(fields, items.length)) };
}

/** A list reader: every item must be readable (an item skipped could be taken for an object that is gone). */
function listOf<T>(plurals: readonly string[], item: (raw: unknown) => T): (raw: unknown) => Page<T> {
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

/** Keys of a body for error messages: the top level and one level down. Never values. */
export function receivedKeys(v: unknown): string[] {
  if (Array.isArray(v)) return ["(array)"];
  if (!isObj(v)) return [v === null ? "(null)" : `(${typeof v})`];
  const keys: string[] = [];
  for (const [key, value] of Object.entries(v)) {
    keys.push(key);
    if (isObj(value)) keys.push(...Object.keys(value).map((k) => `${key}.${k}`));
  }
  return keys.slice(0, 40);
}

// ---------------------------------------------------------------------------------------------
// Field names shared by several kinds

export const createdNames = [
  "created_at",
  "created",
  "creation_date",
  "created_on",
  "creation_time",
  "create_time",
  "created_time",
  "time_created",
  "date_created",
  "inserted_at",
];

function idNames(kind: string): string[] {
  return ["id", "uuid", "guid", `${kind}_id`, `${kind}_uuid`];
}

function hasAny(names: readonly string[], parse: (v: unknown) => unknown): (f: Fields) => boolean {
  return (f) => f.read(names, parse) !== undefined;
}

/**
 * An object addressed by an id, or by its name when it has none (the name is then its key in
 * paths). `sent` is the name a create sent, for an answer that does not repeat it.
 */
function named(f: Fields, kind: string, name: string | undefined, sent?: string) {
  const id = f.read(idNames(kind), identifier) ?? name;
  if (id === undefined) throw new ShapeProblem(`no ${kind} identifier (id, uuid, ${kind}_id) and no name`);
  const finalName = name ?? sent;
  if (finalName === undefined) throw new ShapeProblem(`no ${kind} name`);
  return { id, name: finalName, created_at: f.read(createdNames, timestamp) };
}

// ---------------------------------------------------------------------------------------------
// DNS zones

export interface Zone {
  readonly id: string;
  /** Lower case, without a trailing dot. */
  readonly name: string;
  readonly status: string | undefined;
  readonly nameservers: string[];
  readonly created_at: string | undefined;
}

const zoneKinds = ["zone", "dns_zone", "domain"];
const zoneNameNames = ["name", "zone_name", "domain", "domain_name", "fqdn"];

function zoneName(v: unknown): string | undefined {
  const s = text(v);
  return s === undefined ? undefined : s.trim().toLowerCase().replace(/\.$/, "");
}

function readZone(raw: unknown, name?: string): Zone {
  const f = findObject(raw, zoneKinds, [hasAny(zoneNameNames, zoneName), hasAny(idNames("zone"), identifier)]);
  return {
    ...named(f, "zone", f.read(zoneNameNames, zoneName), name === undefined ? undefined : zoneName(name)),
    status: f.read(["status", "state"], text),
    nameservers: f.read(["nameservers", "name_servers", "ns", "ns_records", "dns_servers"], stringList) ?? [],
  };
}

export const zoneSchema = reader((raw) => readZone(raw));
/** The answer of a create, which may leave out the name it was sent. */
export const createdZoneSchema = (name: string) => reader((raw) => readZone(raw, name));
export const zoneListSchema = reader(listOf(["zones", "dns_zones", "domains"], (raw) => readZone(raw)));

// ---------------------------------------------------------------------------------------------
// Buckets

export interface Bucket {
  readonly id: string;
  readonly name: string;
  readonly storage_class: string | undefined;
  readonly created_at: string | undefined;
}

const bucketKinds = ["bucket"];
const bucketNameNames = ["name", "bucket_name"];

function readBucket(raw: unknown, name?: string): Bucket {
  const f = findObject(raw, bucketKinds, [hasAny(bucketNameNames, text), hasAny(idNames("bucket"), identifier)]);
  return {
    ...named(f, "bucket", f.read(bucketNameNames, text), name),
    storage_class: f.read(["storage_class", "storage_tier"], text),
  };
}

export const bucketSchema = reader((raw) => readBucket(raw));
/** The answer of a create, which may leave out the name it was sent. */
export const createdBucketSchema = (name: string) => reader((raw) => readBucket(raw, name));
export const bucketListSchema = reader(listOf(["buckets"], (raw) => readBucket(raw)));

// ---------------------------------------------------------------------------------------------
// S3 credentials

export interface Credential {
  readonly access_key_id: string;
  /** Undefined when the answer does not say. */
  readonly active: boolean | undefined;
  readonly bucket_id: string | undefined;
  readonly created_at: string | undefined;
}

export interface CredentialWithSecret extends Credential {
  readonly secret_access_key: string;
}

const credentialKinds = ["credential", "s3_credential", "access_key", "key", "credentials"];
/** Never a bare `key`: on some platforms that is the secret, which must never become an id. */
const accessKeyNames = ["access_key_id", "access_key", "key_id", "access_id", "application_key_id"];
const secretNames = [
  "secret_access_key",
  "secret_key",
  "secret",
  "access_secret",
  "secret_access",
  "key_secret",
  "application_key",
];

const onWords = new Set(["active", "enabled", "on", "ok", "valid", "live"]);
const offWords = new Set([
  "deactivated",
  "inactive",
  "disabled",
  "suspended",
  "revoked",
  "off",
  "paused",
  "blocked",
  "expired",
]);

function stateWord(v: unknown): boolean | undefined {
  const s = text(v)?.trim().toLowerCase();
  if (s === undefined) return undefined;
  if (onWords.has(s)) return true;
  return offWords.has(s) ? false : undefined;
}

/** Whether a credential is active, from whichever flag or state word the answer carries; undefined if none. */
function activeOf(f: Fields): boolean | undefined {
  const on = f.read(["active", "enabled", "is_active", "is_enabled"], flag);
  if (on !== undefined) return on;
  const off = f.read(["disabled", "is_disabled", "deactivated", "inactive", "suspended", "revoked"], flag);
  if (off !== undefined) return !off;
  return f.read(["status", "state"], stateWord);
}

function readCredential(raw: unknown, needSecret: boolean): CredentialWithSecret | Credential {
  const accessKey = hasAny(accessKeyNames, text);
  const secret = hasAny(secretNames, text);
  const tests = needSecret ? [(f: Fields) => accessKey(f) && secret(f), secret, accessKey] : [accessKey];
  const f = findObject(raw, credentialKinds, [...tests, hasAny(["id"], identifier)]);
  const credential: Credential = {
    access_key_id: f.read(accessKeyNames, text) ?? f.need(["id"], identifier, "access key id (access_key_id, id)"),
    active: activeOf(f),
    bucket_id: f.read(["bucket_id", "bucket_uuid", "bucket", "bucket_name"], identifier),
    created_at: f.read(createdNames, timestamp),
  };
  if (!needSecret) return credential;
  return {
    ...credential,
    secret_access_key: f.need(secretNames, text, "secret (secret_access_key, secret_key, secret)"),
  };
}

/** A listed credential (no secret), or the answer of activate / deactivate. */
export const credentialSchema = reader((raw) => readCredential(raw, false));
export const credentialListSchema = reader(
  listOf(["credentials", "keys", "access_keys"], (raw) => readCredential(raw, false)),
);
/** The answer of create and regenerate: the secret is what the operation needs. */
export const credentialWithSecretSchema = reader((raw) => readCredential(raw, true) as CredentialWithSecret);

// ---------------------------------------------------------------------------------------------
// The project API key

export interface ApiKeyResponse {
  readonly api_key: string;
  readonly created_at: string | undefined;
}

const apiKeyNames = ["api_key", "key", "token", "api_token", "access_token", "value", "secret"];
/** Spec §2: `<prefix>-<rest>`; a value of that form is preferred over another string field. */
const apiKeyForm = /^[A-Za-z0-9]+-\S+$/;

export const apiKeySchema = reader((raw): ApiKeyResponse => {
  const prefixed = (v: unknown) => (typeof v === "string" && apiKeyForm.test(v) ? v : undefined);
  const f = findObject(raw, ["api_key", "key", "token"], [hasAny(apiKeyNames, prefixed), hasAny(apiKeyNames, text)]);
  return {
    api_key: f.read(apiKeyNames, prefixed) ?? f.need(apiKeyNames, text, "API key (api_key, key, token)"),
    created_at: f.read(createdNames, timestamp),
  };
});

// ---------------------------------------------------------------------------------------------
// Shared with the transcription readers

/** The object an answer is about, found by the fields it must have: for readers outside this file (transcripts). */
export function objectWith(raw: unknown, kinds: readonly string[], needs: readonly string[]): Fields {
  return findObject(raw, kinds, [hasAny(needs, (v) => v)]);
}

// ---------------------------------------------------------------------------------------------
// Error bodies

export interface ErrorBody {
  readonly apiCode: string | undefined;
  readonly message: string | undefined;
}

/** A machine code: one word of letters, digits, `_`, `.`, `-` (not a sentence). */
function codeWord(v: unknown): string | undefined {
  return typeof v === "string" && /^[A-Za-z][A-Za-z0-9_.-]{0,79}$/.test(v) ? v : undefined;
}

const messageNames = ["message", "detail", "error_description", "error_message", "description", "msg", "reason"];
const codeNames = ["code", "error_code", "type", "status"];

function fromObject(o: Obj): ErrorBody {
  const f = new Fields(o);
  const nested = f.read(["error", "fault"], (v) => (isObj(v) ? new Fields(v) : undefined));
  const list = f.read(["errors"], (v) =>
    Array.isArray(v) && v.length > 0 ? (isObj(v[0]) ? new Fields(v[0]) : text(v[0])) : undefined,
  );
  const listed = typeof list === "string" ? undefined : list;
  const errorString = f.read(["error"], text);
  const title = f.read(["title"], text);
  const detail = f.read(["detail"], text);
  const message =
    nested?.read(messageNames, text) ??
    listed?.read([...messageNames, "title"], text) ??
    (typeof list === "string" ? list : undefined) ??
    (title !== undefined && detail !== undefined ? `${title}: ${detail}` : undefined) ??
    f.read(messageNames, text) ??
    (errorString !== undefined && codeWord(errorString) === undefined ? errorString : undefined) ??
    title;
  const apiCode =
    nested?.read(codeNames, codeWord) ??
    listed?.read(codeNames, codeWord) ??
    codeWord(errorString) ??
    f.read(["code", "error_code"], codeWord);
  return { apiCode, message };
}

/**
 * Reads an error body in any of the shapes of docs/api-contract.md §2.1 and §2.3: JSON (`error`
 * object or string, `errors[]`, RFC 9457, OAuth, flat), a simple XML `<Error>`, or plain text.
 */
export function readErrorBody(body: string): ErrorBody {
  const trimmed = body.trim();
  if (trimmed === "") return { apiCode: undefined, message: undefined };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    if (trimmed.startsWith("<")) {
      // An XML error (`<Code>`, `<Message>`) is read; an HTML page (a proxy's) says nothing useful.
      const tag = (name: string) => new RegExp(`<${name}>([^<]{1,500})</${name}>`).exec(trimmed)?.[1];
      return { apiCode: codeWord(tag("Code")), message: tag("Message") };
    }
    return { apiCode: undefined, message: trimmed.split("\n")[0] };
  }
  if (isObj(json)) return fromObject(json);
  return { apiCode: undefined, message: typeof json === "string" ? text(json) : undefined };
}
