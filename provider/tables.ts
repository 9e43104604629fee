/**
 * What follows from the field tables. Each resource declares every input and output once, its
 * field table (`resources/<name>/fields.ts`): its name, kind, the text users read, and whether it
 * is secret, replaces the object when it changes, or has a default. The rest follows: the core's
 * input and output types and its refusal of unknown inputs, the diff's replace-or-update split, the
 * plugin schema's properties, the secret outputs and the SDK classes' output lists. The SDK's `Args`
 * interfaces are declared in sdk/ (their TSDoc is what IDEs show), their doc comments written from
 * the tables by `npm run gen:sdk-docs`; test/unit/sdk-fields.test.ts fails when sdk/ is behind.
 */
import { isUnknown, type CheckFailure, type DiffResult, type Json, type Props } from "./vocabulary.js";

/** The kinds of values a field holds, and their types in the cores. */
interface Kinds {
  string: string;
  boolean: boolean;
  number: number;
  stringMap: Record<string, string>;
  stringList: string[];
}
export type FieldKind = keyof Kinds;

export interface Field {
  readonly kind: FieldKind;
  /** The text users read: the SDK's TSDoc summary and the schema's description. */
  readonly description: string;
  /**
   * `program`: set by the program (and kept as an output); `check`: derived by check from the
   * program's inputs. Absent: an output only.
   */
  readonly input?: "program" | "check";
  /** The program must set it. */
  readonly required?: true;
  /** May be absent from the state; every other field is always there (the schema's required outputs). */
  readonly optional?: true;
  /**
   * Check may leave the input out though the state always holds it: then the object keeps what it
   * has, and the diff sees no change (a credential's `accessKeyId`: none means the one it was
   * given or made; its `active`, when one is taken over: whatever it is).
   */
  readonly keptWhenLeftOut?: true;
  readonly secret?: true;
  /** A change needs a new object: the diff replaces, and the schema says `replaceOnChanges`. */
  readonly replaceOnChange?: true;
  /** What check sets when the program leaves the input out (the SDK's `@default`). */
  readonly default?: Json;
  /** Every value the field can hold; its type is their union. */
  readonly values?: readonly string[];
  /** The SDK's argument where it differs from the input (a Transcript's `source` asset for `sourcePath`). */
  readonly sdk?: { readonly name: string; readonly description: string };
}

export interface ResourceTable {
  /** The type name: `pulumi-nodejs:dynamic/cloudplatform:<type>`, `cloudplatform:index:<type>`. */
  readonly type: string;
  /** The resource's description in the schema. */
  readonly description: string;
  readonly fields: Readonly<Record<string, Field>>;
}

type ValueOf<F> = F extends { values: readonly (infer V)[] }
  ? V
  : F extends { kind: infer K extends FieldKind }
    ? Kinds[K]
    : never;
type KeysWhere<F, Match> = { [K in keyof F]: F[K] extends Match ? K : never }[keyof F];
type Flat<T> = { [K in keyof T]: T[K] };
type Shape<F, K extends keyof F, Optional> = Flat<
  { [P in Exclude<K, KeysWhere<F, Optional>>]: ValueOf<F[P]> } & {
    [P in Extract<K, KeysWhere<F, Optional>>]?: ValueOf<F[P]>;
  }
>;

/** What check returns and the other calls receive: the program's inputs and those check derives. */
export type InputsOf<T extends ResourceTable> = Shape<
  T["fields"],
  KeysWhere<T["fields"], { input: string }>,
  { optional: true } | { keptWhenLeftOut: true }
>;
/** What the state holds: every field. */
export type OutputsOf<T extends ResourceTable> = Shape<T["fields"], keyof T["fields"], { optional: true }>;

/** The creation time most objects report: `createdAt`, absent when the API does not say. */
export function createdAt(what: string) {
  return {
    kind: "string",
    optional: true,
    description: `When the platform created the ${what}, when it says.`,
  } as const;
}

/** The fingerprint of a secret output (redact.ts `fingerprint`): `secretFingerprint`. */
export function secretFingerprint(secret: string) {
  return {
    kind: "string",
    // States written before it existed hold none until the secret next changes.
    optional: true,
    description:
      `A fingerprint of ${secret}: the first 16 hex digits of its SHA-256, not secret. It changes when the ` +
      "secret does, so a diff shows which secret changed without showing it. Empty when the secret is unknown.",
  } as const;
}

function names(table: ResourceTable, keep: (field: Field) => boolean): string[] {
  return Object.entries(table.fields)
    .filter(([, field]) => keep(field))
    .map(([name]) => name);
}

/** The inputs a program sets. */
export function programInputs(table: ResourceTable): string[] {
  return names(table, (f) => f.input === "program");
}

/** The fields a program does not set, which the SDK classes declare as outputs to be filled. */
export function computedOutputs(table: ResourceTable): string[] {
  return names(table, (f) => f.input !== "program");
}

export function secretOutputs(table: ResourceTable): string[] {
  return names(table, (f) => f.secret === true);
}

/** The schema's required outputs: every field the state always holds. */
export function alwaysSet(table: ResourceTable): string[] {
  return names(table, (f) => f.optional !== true);
}

/** The inputs (program-set or check-derived) among a state's values: what refresh compares with the program. */
export function inputsFrom<T extends ResourceTable>(table: T, values: object): InputsOf<T> {
  const given = values as Props;
  const names = Object.keys(table.fields).filter((n) => table.fields[n]?.input !== undefined && given[n] !== undefined);
  return Object.fromEntries(names.map((n) => [n, given[n]])) as InputsOf<T>;
}

/** A failure for every property of `news` the program may not set. */
export function unknownInputs(table: ResourceTable, news: Props): CheckFailure[] {
  const known = programInputs(table);
  const inputs = known.length === 1 ? `the only input is ${known[0]}` : `inputs are ${known.join(", ")}`;
  return Object.keys(news)
    .filter((key) => !known.includes(key))
    .map((key) => ({ property: key, reason: `${table.type} has no property "${key}"; ${inputs}` }));
}

/**
 * The diff of the inputs (program-set or check-derived): those that differ between the state and the
 * new inputs replace the object or are updated in place, as the table says. An input left out
 * counts as its default, or as no change where the table says the object then keeps what it has
 * (`keptWhenLeftOut`); one unknown at preview counts as changed.
 */
export function diffInputs(table: ResourceTable, olds: object, news: object): DiffResult {
  const replaces: string[] = [];
  const updates: string[] = [];
  for (const [name, field] of Object.entries(table.fields)) {
    if (field.input === undefined) continue;
    if (field.keptWhenLeftOut && (news as Props)[name] === undefined) continue;
    const before = (olds as Props)[name] ?? field.default;
    const after = (news as Props)[name] ?? field.default;
    if (isUnknown(after) || !sameJson(before, after)) (field.replaceOnChange ? replaces : updates).push(name);
  }
  const changed = [...replaces, ...updates];
  return { changes: changed.length > 0, replaces, changed, deleteBeforeReplace: false };
}

/**
 * Deep equality of two plain JSON values for diffs: key order does not matter, and absent, null and
 * an empty map are the same (an empty glossary or rotateWhenChanged is none).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(normal(a)) === JSON.stringify(normal(b));
}

function normal(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(normal);
  if (typeof v !== "object") return v;
  const keys = Object.keys(v).sort();
  return keys.length === 0 ? null : Object.fromEntries(keys.map((k) => [k, normal((v as Record<string, unknown>)[k])]));
}
