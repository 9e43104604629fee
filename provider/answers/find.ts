/** The object or list an answer is about, found in its envelopes; the key names several kinds share. */
import { AnswerObject, isObj, keyForm, ShapeProblem, type Obj } from "./object.js";
import { identifier, timestamp } from "./values.js";

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
function candidates(raw: unknown, kinds: readonly string[]): AnswerObject[] {
  const wrappers = new Set([...envelopes, ...kinds].map(keyForm));
  const out: AnswerObject[] = [];
  let level: Obj[] = isObj(raw) ? [raw] : [];
  for (let depth = 0; depth <= 2 && level.length > 0; depth++) {
    const next: Obj[] = [];
    for (const o of level) {
      out.push(new AnswerObject(flattened(o)));
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
export function findObject(
  raw: unknown,
  kinds: readonly string[],
  tests: readonly ((f: AnswerObject) => boolean)[],
): AnswerObject {
  const all = candidates(raw, kinds);
  for (const test of tests) {
    const found = all.find(test);
    if (found !== undefined) return found;
  }
  throw new ShapeProblem(raw === undefined ? "the body is empty" : `no ${kinds[0] ?? "object"} in the body`);
}

function arrayIn(o: Obj, plurals: readonly string[], depth: number): unknown[] | undefined {
  const byForm = new AnswerObject(o);
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
export function findList(raw: unknown, plurals: readonly string[]): unknown[] {
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

// Key names several kinds share

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

export function idNames(kind: string): string[] {
  return ["id", "uuid", "guid", `${kind}_id`, `${kind}_uuid`];
}

export function hasAny(names: readonly string[], parse: (v: unknown) => unknown): (f: AnswerObject) => boolean {
  return (f) => f.read(names, parse) !== undefined;
}

/**
 * An object addressed by an id, or by its name when it has none (the name is then its key in
 * paths). `sent` is the name a create sent, for an answer that does not repeat it.
 */
export function named(f: AnswerObject, kind: string, name: string | undefined, sent?: string) {
  const id = f.read(idNames(kind), identifier) ?? name;
  if (id === undefined) throw new ShapeProblem(`no ${kind} identifier (id, uuid, ${kind}_id) and no name`);
  const finalName = name ?? sent;
  if (finalName === undefined) throw new ShapeProblem(`no ${kind} name`);
  return { id, name: finalName, created_at: f.read(createdNames, timestamp) };
}

/** The object an answer is about, found by the fields it must have (whatever their values). */
export function objectWith(raw: unknown, kinds: readonly string[], needs: readonly string[]): AnswerObject {
  return findObject(raw, kinds, [hasAny(needs, (v) => v)]);
}
