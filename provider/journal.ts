/**
 * The recovery journal: what this machine's provider processes create for one stack, kept on disk
 * so that the run after an interrupted one finds the objects it made (docs/api-contract.md §2.4).
 *
 * A kill of the CLI mid-create leaves the engine with a pending create and no id, and the next `up`
 * creates the resource again; whatever lived only in the killed process is gone. So before a create
 * request is sent, a `creating` entry says which object it is about to make (a bucket's or zone's
 * name, a credential's bucket and the access key ids that bucket held before); once the platform
 * answered, a `created` entry adds the id. The next run's create of the same logical resource reads
 * them and adopts that object instead of making a second one.
 *
 * One directory per stack under `${PULUMI_HOME:-~/.pulumi}/cloudplatform/journal/`, one small JSON
 * file per logical resource, each written whole (temporary file, then rename), so a reader sees an
 * old entry or a new one and never half of one. No secret is ever written: names, ids, access key
 * ids (the public half) and hashes only. Not flushed to the disk: the journal guards against a
 * killed process, whose writes the kernel keeps; a machine that dies takes its journal along, and
 * `cloudplatform-recover` covers that case from the stack's own pending operations.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, hostname } from "node:os";
import { join } from "node:path";
import type { Clock } from "./vocabulary.js";

export type JournalState =
  /** The create request is about to be sent or in flight: the object may or may not exist. */
  | "creating"
  /** The platform answered with the object's id; the stack's state may not hold it yet. */
  | "created"
  /**
   * The state holds it. Kept only while a `creating` entry of the same bucket still needs it to
   * tell its own credential apart from this one.
   */
  | "held";

export interface JournalEntry {
  readonly state: JournalState;
  /** The resource's type name (`Bucket`) and logical name. */
  readonly type: string;
  readonly name: string;
  /** The management API the object lives on: an entry of another platform is never used. */
  readonly platform: string;
  /** When the create started (the `creating` entry was written), epoch milliseconds. */
  readonly at: number;
  /** The process that wrote it, and its machine: a live writer may still finish its create. */
  readonly pid: number;
  readonly host: string;
  /** A bucket's or zone's name. */
  readonly objectName?: string;
  /** The object's id (`created`, `held`). */
  readonly id?: string;
  /** A credential's bucket, and the access key ids the bucket held before its create was sent. */
  readonly bucketId?: string;
  readonly before?: readonly string[];
  /** A transcript's job-defining inputs, hashed: a resumed job must be the same job. */
  readonly inputHash?: string;
}

/** What a core records about a create it is about to send. */
export type Intent = Pick<JournalEntry, "objectName" | "bucketId" | "before" | "inputHash">;

/** Entries older than this are dropped: transcripts expire then, and any run has long converged. */
const maxAgeMs = 7 * 24 * 3600 * 1000;
/** How long a create waits for another live process still creating the same resource. */
const maxSettleMs = 150_000;
const settlePollMs = 250;

/**
 * Lines a long operation appends as its steps complete (a folder's uploads), so that the run after
 * an interrupted one knows what arrived. One file per logical resource, `<type>.<hash>.progress`,
 * appended to and never rewritten: a kill can cut only its last line short, which `lines` leaves
 * out. Like the entries, no secret goes there.
 */
export interface ProgressLog {
  /** Every whole line appended so far, by this run or by an interrupted one. */
  lines(): string[];
  append(lines: readonly string[]): void;
  /** The operation finished: nothing is left to resume. */
  clear(): void;
}

const noProgress: ProgressLog = { lines: () => [], append: () => undefined, clear: () => undefined };

export interface Journal {
  /** The progress log of one logical resource. */
  progress(type: string, name: string): ProgressLog;
  /** The entry of one logical resource on `platform`, read from the disk (another process may have written it). */
  find(type: string, name: string, platform: string): JournalEntry | undefined;
  /** Every entry on `platform`. */
  entries(platform: string): JournalEntry[];
  /** Records that a create is about to be sent; replaces any earlier entry of the resource. */
  creating(type: string, name: string, platform: string, intent: Intent): void;
  /** Records the id the platform answered with, keeping what `creating` recorded. */
  created(type: string, name: string, platform: string, id: string, intent?: Intent): void;
  /** The create is known not to have happened (refused): nothing to find later. */
  forget(type: string, name: string): void;
  /** The stack's state holds `id` (a diff, read, update or delete of it): the entry has done its job. */
  held(type: string, name: string, id: string): void;
  /**
   * Resolves once no other live process on this machine is still creating what `matches` selects
   * (a killed CLI's provider process may finish an in-flight create after the next run started), or
   * after a while if one never ends.
   */
  quiet(
    platform: string,
    matches: (entry: JournalEntry) => boolean,
    clock: Clock,
    onWait: (pid: number) => void,
  ): Promise<void>;
}

/** The journal of calls that do not say which stack they belong to (older programs, tests of a core alone). */
export const noJournal: Journal = {
  progress: () => noProgress,
  find: () => undefined,
  entries: () => [],
  creating: () => undefined,
  created: () => undefined,
  forget: () => undefined,
  held: () => undefined,
  quiet: async () => undefined,
};

/** The provider's own directory on this machine: the journals, and SyncedFolder's hash caches. */
export function cloudplatformHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env["PULUMI_HOME"] || join(homedir(), ".pulumi"), "cloudplatform");
}

/** Where the journal whose key is `key` (contract.ts `journalKey`) lives. */
export function journalDir(key: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cloudplatformHome(env), "journal", key);
}

function fileOf(type: string, name: string): string {
  return `${type}.${createHash("sha256").update(name).digest("hex").slice(0, 24)}.json`;
}

function isEntry(v: unknown): v is JournalEntry {
  const e = v as Partial<JournalEntry> | null;
  return (
    typeof e === "object" &&
    e !== null &&
    typeof e.type === "string" &&
    typeof e.name === "string" &&
    typeof e.platform === "string" &&
    typeof e.at === "number" &&
    (e.state === "creating" || e.state === "created" || e.state === "held")
  );
}

/** Whether the process that wrote `entry` still runs on this machine. */
export function writerAlive(entry: JournalEntry): boolean {
  if (entry.host !== hostname() || entry.pid === process.pid) return false;
  try {
    process.kill(entry.pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The journal in `dir`. A journal that cannot be written (a read-only home) does not fail the
 * deployment it protects: `onProblem` is told once, and the run goes on as it would without one.
 */
export class FileJournal implements Journal {
  private warned = false;
  private collected = false;
  private othersDone = false;
  /**
   * The entries still `creating`, by file: read from the disk on first need, then kept up to date
   * by this process's own writes. Only a live process that started before this one can write here
   * too (a killed CLI's provider finishing an in-flight create; the stack's lock keeps deployments
   * apart), and it only turns its `creating` entries into `created` ones: an entry this snapshot
   * still sees as creating makes `held` keep an entry it could have removed, never the reverse.
   * Without it, every `held` of a credential read the whole journal: N² reads for N resources.
   */
  private inFlight: Map<string, JournalEntry> | undefined;
  /**
   * The files of the journal, listed once on first need and kept up to date by this process's own
   * writes, so that `held` reads only the entries that exist: it is called for every resource of
   * every deployment, and almost always finds none. A file another process writes meanwhile (a
   * killed CLI's provider finishing a create) is not listed: `held` then keeps an entry it could have
   * removed, which the next run's `held` removes.
   */
  private listed: Set<string> | undefined;

  constructor(
    readonly dir: string,
    private readonly onProblem: (message: string) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  progress(type: string, name: string): ProgressLog {
    const file = join(this.dir, fileOf(type, name).replace(/\.json$/, ".progress"));
    return {
      lines: () => {
        let text: string;
        try {
          text = readFileSync(file, "utf8");
        } catch {
          return [];
        }
        const lines = text.split("\n");
        // The last element is "" after a whole line, or a line a kill cut short.
        return lines.slice(0, -1).filter((l) => l !== "");
      },
      append: (lines) => {
        if (lines.length === 0) return;
        try {
          mkdirSync(this.dir, { recursive: true });
          appendFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
        } catch (err) {
          this.problem(err);
        }
      },
      clear: () => {
        try {
          unlinkSync(file);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.problem(err);
        }
      },
    };
  }

  find(type: string, name: string, platform: string): JournalEntry | undefined {
    const entry = this.read(fileOf(type, name));
    return entry !== undefined && entry.type === type && entry.name === name && entry.platform === platform
      ? entry
      : undefined;
  }

  entries(platform: string): JournalEntry[] {
    this.collect();
    return this.all().filter((e) => e.platform === platform);
  }

  creating(type: string, name: string, platform: string, intent: Intent): void {
    this.write({ ...this.stamp(type, name, platform), state: "creating", ...intent });
  }

  created(type: string, name: string, platform: string, id: string, intent: Intent = {}): void {
    const earlier = this.find(type, name, platform);
    // The entry keeps when its create started: nothing it made can be older.
    const kept = earlier?.state === "creating" ? { ...pickIntent(earlier), at: earlier.at } : {};
    this.write({ ...this.stamp(type, name, platform), ...kept, ...intent, state: "created", id });
  }

  forget(type: string, name: string): void {
    this.remove(fileOf(type, name));
  }

  held(type: string, name: string, id: string): void {
    const file = fileOf(type, name);
    if (!this.files().has(file)) return;
    const entry = this.read(file);
    if (entry === undefined || entry.id !== id || entry.state === "held") return;
    if (entry.bucketId !== undefined && this.creatingOn(entry.platform, entry.bucketId).length > 0) {
      this.write({ ...entry, state: "held" });
    } else {
      this.remove(file);
    }
  }

  async quiet(
    platform: string,
    matches: (entry: JournalEntry) => boolean,
    clock: Clock,
    onWait: (pid: number) => void,
  ): Promise<void> {
    // Only a process that ran before this one can be at it (the stack's lock keeps two deployments
    // apart): once none is left creating anything, no call of this process needs to look again.
    if (this.othersDone) return;
    const started = clock.now();
    let told = false;
    for (;;) {
      const others = this.all().filter((e) => e.state === "creating" && writerAlive(e));
      if (others.length === 0) this.othersDone = true;
      const busy = others.find((e) => e.platform === platform && matches(e));
      if (busy === undefined || clock.now() - started >= maxSettleMs) return;
      if (!told) onWait(busy.pid);
      told = true;
      await clock.sleep(settlePollMs);
    }
  }

  private creatingOn(platform: string, bucketId: string): JournalEntry[] {
    if (this.inFlight === undefined) {
      this.inFlight = new Map(
        this.all()
          .filter((e) => e.state === "creating")
          .map((e) => [fileOf(e.type, e.name), e]),
      );
    }
    return [...this.inFlight.values()].filter((e) => e.platform === platform && e.bucketId === bucketId);
  }

  private files(): Set<string> {
    if (this.listed === undefined) {
      try {
        this.listed = new Set(readdirSync(this.dir));
      } catch {
        this.listed = new Set();
      }
    }
    return this.listed;
  }

  private stamp(type: string, name: string, platform: string) {
    return { type, name, platform, at: this.now(), pid: process.pid, host: hostname() };
  }

  private all(): JournalEntry[] {
    let files: string[];
    try {
      files = readdirSync(this.dir);
    } catch {
      return [];
    }
    return files.filter((f) => f.endsWith(".json")).flatMap((f) => this.read(f) ?? []);
  }

  /**
   * Once per process: drops entries past their age, `held` entries no `creating` entry needs any
   * more, temporary files a killed writer left, and progress logs past the age of an entry.
   */
  private collect(): void {
    if (this.collected) return;
    this.collected = true;
    const entries = this.all();
    const creatingBuckets = new Set(
      entries.filter((e) => e.state === "creating" && e.bucketId).map((e) => `${e.platform} ${e.bucketId}`),
    );
    for (const e of entries) {
      const old = this.now() - e.at > maxAgeMs;
      const unneeded = e.state === "held" && !creatingBuckets.has(`${e.platform} ${e.bucketId}`);
      if (old || unneeded) this.remove(fileOf(e.type, e.name));
    }
    let files: string[];
    try {
      files = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const f of files.filter((f) => f.endsWith(".tmp") || f.endsWith(".progress"))) {
      // A progress log is kept as long as an entry; a temporary file an hour.
      const maxAge = f.endsWith(".tmp") ? 3600_000 : maxAgeMs;
      try {
        if (this.now() - statSync(join(this.dir, f)).mtimeMs > maxAge) rmSync(join(this.dir, f), { force: true });
      } catch {
        // Another process removed or renamed it meanwhile.
      }
    }
  }

  private read(file: string): JournalEntry | undefined {
    try {
      const parsed: unknown = JSON.parse(readFileSync(join(this.dir, file), "utf8"));
      return isEntry(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  private write(entry: JournalEntry): void {
    const name = fileOf(entry.type, entry.name);
    const file = join(this.dir, name);
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(temporary, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
      renameSync(temporary, file);
      this.listed?.add(name);
      if (entry.state === "creating") this.inFlight?.set(name, entry);
      else this.inFlight?.delete(name);
    } catch (err) {
      try {
        rmSync(temporary, { force: true });
      } catch {
        // Nothing was written there, or nothing can be.
      }
      this.problem(err);
    }
  }

  private remove(file: string): void {
    this.inFlight?.delete(file);
    this.listed?.delete(file);
    try {
      // unlink, not rm: rm's directory handling costs a millisecond per call, once per resource.
      unlinkSync(join(this.dir, file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.problem(err);
    }
  }

  private problem(err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.onProblem(
      `cannot write the recovery journal in ${this.dir} (${(err as Error).message}); if this deployment is ` +
        "interrupted, run `npx cloudplatform-recover` before the next `pulumi up` (see the README).",
    );
  }
}

function pickIntent(e: JournalEntry): Intent {
  const { objectName, bucketId, before, inputHash } = e;
  return {
    ...(objectName === undefined ? {} : { objectName }),
    ...(bucketId === undefined ? {} : { bucketId }),
    ...(before === undefined ? {} : { before }),
    ...(inputHash === undefined ? {} : { inputHash }),
  };
}
