/**
 * A SyncedFolder's manifest: which file is which object. The state keeps it as two maps by the
 * file's path relative to the folder (with `/`): `files`, each file's content as `<sha256> <size>`
 * (what check computed, and once synced what the bucket holds), and `etags`, the ETag the platform
 * answered when the object was written — an identity of that write, never taken for a content hash:
 * a refresh compares it with a listing's ETag to see an object rewritten outside Pulumi.
 */

/** `<sha256> <size>`. */
export function entryOf(sha256: string, size: number): string {
  return `${sha256} ${size}`;
}

export function readEntry(entry: string): { sha256: string; size: number } {
  const [sha256 = "", size = "0"] = entry.split(" ");
  return { sha256, size: Number(size) };
}

/** What a refresh writes for an object rewritten outside Pulumi: no file has this content. */
export const changedOutside = (size: number): string => entryOf("changed-outside-pulumi", size);

export interface Plan {
  /** Paths to upload that the bucket does not hold. */
  readonly add: readonly string[];
  /** Paths to upload again: their content changed (or the object did, outside Pulumi). */
  readonly change: readonly string[];
  /** Paths whose file is gone: their objects are deleted, or forgotten when `deleteRemoved` is false. */
  readonly remove: readonly string[];
}

/**
 * What brings the bucket from `synced` (the state's manifest) to `local` (the folder now): `all`
 * uploads every file again (headers that apply to every object changed). Sorted, for messages and
 * tests that read them.
 */
export function planSync(
  synced: Readonly<Record<string, string>>,
  etags: Readonly<Record<string, string>>,
  local: Readonly<Record<string, string>>,
  all = false,
): Plan {
  const add: string[] = [];
  const change: string[] = [];
  const remove: string[] = [];
  for (const [path, entry] of Object.entries(local)) {
    const before = synced[path];
    if (before === undefined || etags[path] === undefined) add.push(path);
    else if (all || before !== entry) change.push(path);
  }
  for (const path of Object.keys(synced)) if (local[path] === undefined) remove.push(path);
  return { add: add.sort(), change: change.sort(), remove: remove.sort() };
}

export const planSize = (plan: Plan): number => plan.add.length + plan.change.length + plan.remove.length;

/** Paths named in full up to this many; beyond it, the counts only. */
const namedAtMost = 20;

/** "2 to add, 1 to change, 1 to delete: + a.css, + b.js, ~ index.html, - old.html" (delete or forget). */
export function describePlan(plan: Plan, deleteRemoved: boolean): string {
  const removeWord = deleteRemoved ? "to delete" : "to forget (kept in the bucket, deleteRemoved is false)";
  const counts = [
    `${plan.add.length} to add`,
    `${plan.change.length} to change`,
    `${plan.remove.length} ${removeWord}`,
  ].join(", ");
  if (planSize(plan) > namedAtMost) return `${counts} (more than ${namedAtMost} files: paths not listed)`;
  const named = [
    ...plan.add.map((p) => `+ ${p}`),
    ...plan.change.map((p) => `~ ${p}`),
    ...plan.remove.map((p) => `- ${p}`),
  ];
  return `${counts}: ${named.join(", ")}`;
}

/** The object key of a file: the prefix, then its path. */
export function keyOf(prefix: string, path: string): string {
  return `${prefix}${path}`;
}

/**
 * A prefix as keys take it: no leading `/`, and a trailing one when not empty, so that `site` and
 * `site/` both put `index.html` at `site/index.html`.
 */
export function normalPrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, "");
  return trimmed === "" || trimmed.endsWith("/") ? trimmed : `${trimmed}/`;
}
