/**
 * A SyncedFolder's manifest: which file is which object. For each file's path relative to the folder
 * (with `/`): the SHA-256 and size of its content (what check computed, and once synced what the
 * bucket holds), and the ETag the platform answered when the object was written — an identity of
 * that write, never taken for a content hash: a refresh compares it with a listing's ETag to see an
 * object rewritten outside Pulumi.
 *
 * The state keeps it as few values as the engine can move cheaply (docs/objects.md): the input
 * `manifestDigest`, one line that changes whenever a file does (what `pulumi preview --diff` shows),
 * and the output `manifest`, every entry in one string: `1:` and the base64 of the gzip of sorted
 * lines `path<TAB>sha256<TAB>size<TAB>etag`. A manifest of 10,000 files moved as two maps (path →
 * `<sha256> <size>`, path → ETag; states written before) cost the engine 30,000 values to
 * serialize at each step of every operation; this way it costs it two strings.
 */
import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { isUnknown, type Json } from "../../vocabulary.js";

/** A local file as check sees it. */
export interface LocalFile {
  readonly sha256: string;
  readonly size: number;
}

/** A file whose object is in the bucket: its content then, and the ETag that write was answered. */
export interface SyncedFile extends LocalFile {
  readonly etag: string;
}

/** By path, sorted when it comes from a scan or a decoded manifest. */
export type LocalFiles = ReadonlyMap<string, LocalFile>;
export type Manifest = Map<string, SyncedFile>;

/** What a refresh writes for an object rewritten outside Pulumi: no file has this content. */
export const changedOutside = "changed-outside-pulumi";

const version = "1:";

/** Tabs, line ends and backslashes of a path escaped, as git quotes names: one line per file. */
export function escapePath(path: string): string {
  return /[\\\t\n\r]/.test(path)
    ? path.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"))
    : path;
}

export function unescapePath(text: string): string {
  return text.includes("\\")
    ? text.replace(/\\(.)/g, (_m, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : c === "r" ? "\r" : c))
    : text;
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `<n> files, sha256:<hex>`: the SHA-256 of the sorted lines `path<TAB>sha256<TAB>size`. Equal
 * digests, equal contents path by path: the diff compares two short strings and reads no manifest.
 */
export function digestOf(files: LocalFiles): string {
  const hash = createHash("sha256");
  let count = 0;
  for (const path of [...files.keys()].sort(byPath)) {
    const f = files.get(path) as LocalFile;
    hash.update(`${escapePath(path)}\t${f.sha256}\t${f.size}\n`);
    count++;
  }
  return `${count} files, sha256:${hash.digest("hex")}`;
}

/** The manifest as the state's one string. */
export function encodeManifest(manifest: Manifest): string {
  const lines = [...manifest.keys()]
    .sort(byPath)
    .map((path) => {
      const f = manifest.get(path) as SyncedFile;
      return `${escapePath(path)}\t${f.sha256}\t${f.size}\t${f.etag}\n`;
    })
    .join("");
  return version + gzipSync(lines).toString("base64");
}

export function decodeManifest(text: string): Manifest {
  if (!text.startsWith(version)) {
    throw new Error(`the state's SyncedFolder manifest has an unknown version "${text.slice(0, 8)}"`);
  }
  const manifest: Manifest = new Map();
  const lines = gunzipSync(Buffer.from(text.slice(version.length), "base64"))
    .toString("utf8")
    .split("\n");
  for (const line of lines) {
    if (line === "") continue;
    const [path = "", sha256 = "", size = "0", etag = ""] = line.split("\t");
    manifest.set(unescapePath(path), { sha256, size: Number(size), etag });
  }
  return manifest;
}

/** The manifest's part of a state: its one string, or (states written before it) the two maps. */
export interface ManifestState {
  readonly manifest?: Json;
  readonly files?: Json;
  readonly etags?: Json;
}

const asMap = (value: Json | undefined): Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};

/** The manifest a state holds, whichever shape wrote it. */
export function manifestOf(state: ManifestState): Manifest {
  if (typeof state.manifest === "string" && state.manifest !== "") return decodeManifest(state.manifest);
  const files = asMap(state.files);
  const etags = asMap(state.etags);
  const manifest: Manifest = new Map();
  for (const path of Object.keys(files).sort(byPath)) {
    const [sha256 = "", size = "0"] = String(files[path]).split(" ");
    const etag = etags[path];
    manifest.set(path, { sha256, size: Number(size), etag: typeof etag === "string" ? etag : "" });
  }
  return manifest;
}

/** The files whose objects the manifest knows: an entry without an ETag was never written. */
export function syncedFiles(manifest: Manifest): LocalFiles {
  return new Map([...manifest].filter(([, f]) => f.etag !== ""));
}

/**
 * The digest of the folder a state's inputs describe: `manifestDigest`, or in inputs written before
 * it, the digest of their `files` map. Undefined when it is unknown (preview) or absent.
 */
export function inputDigest(inputs: { readonly manifestDigest?: Json; readonly files?: Json }): string | undefined {
  if (typeof inputs.manifestDigest === "string") return inputs.manifestDigest;
  if (isUnknown(inputs.files)) return inputs.files as string;
  if (inputs.files === undefined) return undefined;
  return digestOf(manifestOf({ files: inputs.files }));
}

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
export function planSync(synced: Manifest, local: LocalFiles, all = false): Plan {
  const add: string[] = [];
  const change: string[] = [];
  const remove: string[] = [];
  for (const [path, file] of local) {
    const before = synced.get(path);
    if (before === undefined || before.etag === "") add.push(path);
    else if (all || before.sha256 !== file.sha256 || before.size !== file.size) change.push(path);
  }
  for (const path of synced.keys()) if (!local.has(path)) remove.push(path);
  return { add: add.sort(byPath), change: change.sort(byPath), remove: remove.sort(byPath) };
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
