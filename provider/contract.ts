/**
 * The host-independent contract of a resource. Each resource in `provider/resources/` implements
 * `ResourceCore`; two hosts serve the same cores through the host layer (`host.ts`): dynamic
 * resources (`dynamic.ts`) and the executable provider (`plugin/`). Cores see plain JSON only: no
 * Pulumi Output, no secret wrappers, no engine types.
 */
import { createHash } from "node:crypto";
import type { ApiClient } from "./client.js";
import type { SettingName, Settings } from "./config.js";
import type { ResourceTable } from "./tables.js";
import type { Journal } from "./journal.js";
import type { CheckFailure, Clock, DiffResult, Props } from "./vocabulary.js";

export interface CheckResult<I> {
  /** Inputs after defaults were applied (e.g. an auto-generated bucket name). */
  readonly inputs: I;
  readonly failures: readonly CheckFailure[];
}

export interface CreateResult<O> {
  readonly id: string;
  readonly outs: O;
}

export interface ReadResult<I, O> {
  /** Undefined when the object no longer exists: the engine then drops it from state. */
  readonly id?: string;
  readonly outs?: O;
  /** The inputs that would produce the live object, so that refresh can show drift. */
  readonly inputs?: I;
}

/**
 * Where an import's read starts: the id the core knows the object by, and the least state its read
 * needs (typically the ids of parents the object is listed under). Outputs absent here are derived
 * by read, which is why read must fill whatever it can when they are missing.
 */
export interface ImportTarget<O> {
  readonly id: string;
  readonly state: Partial<O>;
}

/** A core that can be imported. */
export interface ImportAccepted<O> {
  readonly supported: true;
  /**
   * Turns an import id into where read starts. Pure: no API call (read makes them, and reports an
   * object that does not exist). Throws a `CLOUDPLATFORM_IMPORT_ID_INVALID` error showing the
   * expected shape for an id of the wrong shape.
   */
  target(importId: string): ImportTarget<O>;
  /**
   * The id the core's other calls expect, given either an import id or the id the core returned
   * (the engine may keep handing back the import id). Absent: the import id is already the core's id.
   */
  coreId?(id: string): string;
}

/** A core that cannot be imported; the host refuses with `CLOUDPLATFORM_IMPORT_UNSUPPORTED`. */
export interface ImportRefusal {
  readonly supported: false;
  /** Why, and what to do instead; completes "<Type> cannot be imported: …". */
  readonly reason: string;
}

/**
 * How `pulumi import` adopts an object the stack never created (executable provider only: dynamic
 * resources cannot be imported). The engine hands read an import id and no state; each core's read
 * needs a different minimum, which only the core knows. Contract for an accepted import: the host
 * calls `read(ctx, target.id, target.state)`; read then returns the complete outputs (every output
 * it can derive from the API and the settings, secrets the API never returns again excepted) and
 * the inputs that reproduce the object, while a read from a full state returns that state unchanged
 * but for drift.
 */
export type ImportSupport<O> = ImportAccepted<O> | ImportRefusal;

/** Import by the core's own id, read from the id alone (no state needed). */
export const importById: ImportAccepted<object> = {
  supported: true,
  target: (importId) => ({ id: importId, state: {} }),
};

/** Read's answer for an object that is gone: no id, so the engine drops it; the log names it. */
export function goneFromState(ctx: CallContext, what: string): ReadResult<never, never> {
  ctx.log.warn(`${what} no longer exists; it is removed from the state.`);
  return {};
}

/** What a core receives from its host for one call (the host layer, `provider/host.ts`, builds it). */
export interface CallContext {
  /** The resource's logical name, for messages (`Bucket "logs": …`). Empty when the host does not know it. */
  readonly name: string;
  /** Lines about this resource: prefixed with `<Type> "<name>": ` and redacted by the host. */
  readonly log: Logger;
  readonly clock: Clock;
  /**
   * The settings and the API client, resolved from the configuration when first read, so that
   * check, diff and calls that need no API work without any. Reading them throws
   * `CLOUDPLATFORM_CONFIG_MISSING` / `_CONFIG_INVALID`.
   */
  readonly settings: Settings;
  readonly client: ApiClient;
  /** One setting as configured, not validated: for check, which runs before credentials may be set. */
  configured(name: SettingName): string | undefined;
  /** The provider rotated the API key it authenticates with: the rest of the run uses `key`. */
  useApiKey(key: string): void;
  /**
   * The recovery journal of the resource's stack (journal.ts): what an interrupted run was
   * creating. A no-op when the host does not know the stack.
   */
  readonly journal: Journal;
  /**
   * What the host learned from its own calls, shared by every call it serves (one provider process
   * serves a whole deployment): the value under `key`, made by `make` on first use. Keys name the
   * platform they are about.
   */
  memo<T>(key: string, make: () => T): T;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

/**
 * Contract shared by every resource core.
 * - `check` validates before any API call; it must not do network I/O. Unknown values (preview)
 *   arrive as `unknownValue` (vocabulary.ts) and are not validated.
 * - `diff` compares real fields only.
 * - `create` is transactional, or throws `PartialCreateError` carrying the state to keep.
 * - `update` returns the complete outputs.
 * - `read` returns no id when the object is gone. After an import its state holds only the
 *   import target's (see `ImportSupport`): outputs it lacks are filled, present ones are kept.
 * - `delete` is idempotent: an object already gone is success.
 */
export interface ResourceCore<I, O> {
  /** Every input and output, its type name among them (`resources/<name>/fields.ts`). */
  readonly table: ResourceTable;
  /**
   * How `pulumi import` reaches this resource. Absent: the resource cannot be imported (the host
   * refuses with a generic reason); declare an `ImportRefusal` to tell the user what to do instead.
   */
  readonly importing?: ImportSupport<O>;
  check(ctx: CallContext, olds: Partial<I> | undefined, news: Props): CheckResult<I>;
  diff(ctx: CallContext, id: string, olds: O, news: I): DiffResult;
  create(ctx: CallContext, inputs: I): Promise<CreateResult<O>>;
  read(ctx: CallContext, id: string, state: O): Promise<ReadResult<I, O>>;
  update(ctx: CallContext, id: string, olds: O, news: I): Promise<O>;
  delete(ctx: CallContext, id: string, state: O): Promise<void>;
}

/** Cores see plain JSON; their input and output types do not matter to a host or to the registry. */
export type AnyCore = ResourceCore<unknown, unknown>;

/**
 * Input carrying the resource's logical name, in states written before the provider text named
 * the resource (sdk/shim.ts): the dynamic host still reads it, and writes it back for those states.
 */
export const nameKey = "__logicalName";

/**
 * Input carrying the resource's stack, `<organization>/<project>/<stack>`, in states written before
 * the provider text named the stack's journal (sdk/shim.ts); read like `nameKey`.
 */
export const stackKey = "__stack";

/**
 * The key of a stack's recovery journal (journal.ts): 16 hex digits of the SHA-256 of the stack's
 * name as its host knows it (`<organization>/<project>/<stack>` for the dynamic SDK, `<project>/<stack>`
 * from an executable provider's URN). The SDK writes it into each resource's provider text, so that
 * every call of the dynamic host, read and delete included, knows its stack's journal.
 */
export function journalKey(stack: string): string {
  return createHash("sha256").update(stack).digest("hex").slice(0, 16);
}
