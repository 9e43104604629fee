/**
 * How the provider reads the platform's answers (docs/api-contract.md §2.3). The spec fixes paths
 * and a few field names, not the shapes of answers, so each reader looks for only what its
 * operation needs, under the names and envelopes REST APIs use for it, and tolerates everything
 * else: an unknown field never fails a call, and an optional field that does not parse is dropped.
 * What every answer shares lives in this folder: the object of an answer and its keys (here), value
 * parsers (values.ts), objects and lists found in envelopes (find.ts), lists over pages (paging.ts),
 * one object by id (read-one.ts), what a create or delete's answer means (outcomes.ts), and error
 * bodies (error-body.ts). Each resource's own reader is its folder's `parse.ts`.
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

/** One object of an answer, its keys looked up by key form. */
export class AnswerObject {
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
