/**
 * The host layer: what both hosts (dynamic.ts, plugin/provider.ts) do around a core call, written
 * once. An adapter turns its engine's values into plain JSON, calls one method here, and turns the
 * plain result back. These methods build the call's context (settings and API client resolved at
 * call time, logger, clock), run the core, redact and prefix errors with `<Type> "<name>"`, turn a
 * `PartialCreateError` into the engine's partially-created state, and apply the core's import rules.
 */
import { ApiClient, type ClientOptions } from "./client.js";
import { ProviderConfig, type Settings } from "./config.js";
import type { AnyCore, CallContext, CheckResult, Logger } from "./contract.js";
import { nameKey, stackKey } from "./contract.js";
import { aboutResource, CloudPlatformError, ImportUnsupportedError, PartialCreateError } from "./errors.js";
import { FileJournal, journalDir, noJournal, type Journal } from "./journal.js";
import { redact } from "./redact.js";
import { systemClock, type CheckFailure, type Clock, type DiffResult, type Props } from "./vocabulary.js";

/**
 * What a call is about: the resource's core, its logical name (empty when the engine does not say),
 * and the key of its stack's recovery journal (contract.ts `journalKey`; absent when unknown).
 */
export interface Call {
  readonly core: AnyCore;
  readonly name: string;
  readonly journal?: string;
}

/** Where the engine keeps the serialized provider of a dynamic resource, beside the inputs. */
export const providerKey = "__provider";

export interface HostOptions {
  /** Where the host's lines and the cores' lines go, redacted on the way. */
  readonly logger: Logger;
  /** Transport and retry options of the API client (tests: a dispatcher, instant retries). */
  readonly client?: ClientOptions;
  readonly clock?: Clock;
  /** The recovery journal of a journal key (tests: one in a temporary directory). @default its directory under PULUMI_HOME */
  readonly journal?: (key: string) => Journal;
}

/** Turns the partial state a core kept (plain JSON) into the engine's properties. */
export type ToEngine = (outs: object) => object;

/** A read's answer; `undefined` when the object is gone. */
export interface ReadAnswer {
  readonly id: string;
  readonly outs: object;
  readonly inputs?: object;
}

/**
 * The host keys of a dynamic resource's property bag, split from what the core sees: the
 * serialized provider (`__provider`), and in states written before the provider text named the
 * resource, its logical name (`__logicalName`) and stack (`__stack`).
 */
export function splitHostKeys(bag: Record<string, unknown> | undefined) {
  const props: Props = {};
  let name = "";
  let stack = "";
  let provider: unknown;
  for (const [key, value] of Object.entries(bag ?? {})) {
    if (key === nameKey) name = typeof value === "string" ? value : "";
    else if (key === stackKey) stack = typeof value === "string" ? value : "";
    else if (key === providerKey) provider = value;
    else props[key] = value as Props[string];
  }
  return { name, stack, props, provider };
}

/** One host's state: its configuration, its logger and clock, and one API client per settings. */
export class Host {
  private readonly config = new ProviderConfig();
  private readonly log: Logger;
  private readonly clock: Clock;
  private cached: { settings: Settings; client: ApiClient } | undefined;
  private readonly journals = new Map<string, Journal>();
  private readonly memory = new Map<string, unknown>();

  constructor(private readonly options: HostOptions) {
    this.log = editing(options.logger, redact);
    this.clock = options.clock ?? systemClock;
  }

  /** The engine's configure(): the stack config (namespaced keys) the settings are read from. */
  configure(values: Record<string, string | undefined>): void {
    this.config.configure(values);
  }

  /** The context of one call. `log` replaces the host's logger (tests record lines with it). */
  context(type: string, name: string, log: Logger = this.log, journalKey = ""): CallContext {
    const client = () => this.client();
    const memory = this.memory;
    return {
      name,
      clock: this.clock,
      log: editing(log, (m) => aboutResource(type, name, m)),
      get settings() {
        return client().settings;
      },
      get client() {
        return client();
      },
      configured: (setting) => this.config.raw(setting),
      useApiKey: (key) => this.config.useRotatedApiKey(key),
      journal: this.journal(journalKey),
      memo<T>(key: string, make: () => T): T {
        if (!memory.has(key)) memory.set(key, make());
        return memory.get(key) as T;
      },
    };
  }

  /** One journal per stack; none for a call that does not say its stack. */
  private journal(key: string): Journal {
    if (key === "") return noJournal;
    let journal = this.journals.get(key);
    if (journal === undefined) {
      journal = this.options.journal?.(key) ?? new FileJournal(journalDir(key), this.log.warn);
      this.journals.set(key, journal);
    }
    return journal;
  }

  /** Built for the settings read now, and rebuilt when they change (e.g. after the provider rotated its own key). */
  private client(): ApiClient {
    const settings = this.config.settings((m) => this.log.warn(m));
    if (this.cached?.settings !== settings) {
      const currentAuth = () => this.config.settings((m) => this.log.warn(m)).auth;
      const options = { clock: this.clock, onRetry: this.log.warn, currentAuth, ...this.options.client };
      this.cached = { settings, client: new ApiClient(settings, options) };
    }
    return this.cached.client;
  }

  async check(call: Call, olds: Props, news: Props): Promise<CheckResult<Props>> {
    return this.run(call, undefined, (ctx) => {
      const result = call.core.check(ctx, Object.keys(olds).length === 0 ? undefined : olds, news);
      const failures = result.failures.map((f) => engineFailure(f, news));
      return { inputs: result.inputs as Props, failures };
    });
  }

  async diff(call: Call, id: string, olds: Props, news: Props): Promise<DiffResult> {
    return this.run(call, undefined, (ctx) =>
      heldBy(ctx, call, coreId(call.core, id), (cid) => call.core.diff(ctx, cid, olds, news)),
    );
  }

  async create(call: Call, inputs: Props, toEngine: ToEngine): Promise<{ id: string; outs: object }> {
    return this.run(call, toEngine, async (ctx) => {
      const result = await call.core.create(ctx, inputs);
      return { id: result.id, outs: result.outs as object };
    });
  }

  /** `importing`: the engine holds no state yet (`pulumi import`); the core's import rules say where read starts. */
  async read(call: Call, id: string, state: Props, importing = false): Promise<ReadAnswer | undefined> {
    return this.run(call, undefined, async (ctx) => {
      const target = importing ? importTarget(call.core, id) : { id: coreId(call.core, id), state };
      const result = await heldBy(ctx, call, target.id, (cid) => call.core.read(ctx, cid, target.state));
      if (result.id === undefined || result.id === "") return undefined;
      const outs = (result.outs ?? target.state) as object;
      return { id: result.id, outs, ...(result.inputs === undefined ? {} : { inputs: result.inputs as object }) };
    });
  }

  async update(call: Call, id: string, olds: Props, news: Props, toEngine: ToEngine): Promise<object> {
    return this.run(
      call,
      toEngine,
      async (ctx) =>
        (await heldBy(ctx, call, coreId(call.core, id), (cid) => call.core.update(ctx, cid, olds, news))) as object,
    );
  }

  async delete(call: Call, id: string, state: Props): Promise<void> {
    return this.run(call, undefined, (ctx) =>
      heldBy(ctx, call, coreId(call.core, id), (cid) => call.core.delete(ctx, cid, state)),
    );
  }

  /** Runs a core call; its error leaves prefixed and redacted, a partial state in the engine's shape. */
  private async run<T>(call: Call, toEngine: ToEngine | undefined, body: (ctx: CallContext) => T | Promise<T>) {
    const type = call.core.table.type;
    try {
      return await body(this.context(type, call.name, this.log, call.journal));
    } catch (err) {
      const annotated = annotate(err, type, call.name);
      if (toEngine === undefined || !isPartial(annotated)) throw framesOnly(annotated);
      // The engine records an error carrying `{ id, properties, reasons }` as a partially created resource.
      const { message, id, outs, reasons } = annotated;
      throw framesOnly(
        Object.assign(new Error(message), { id, properties: toEngine(outs), reasons: reasons.map(redact) }),
      );
    }
  }
}

/**
 * A check failure as the engine shows it: "property <p> value <its input> has a problem: <reason>".
 * A property the program did not set (missing, or set in another form, as a Transcript's `source`
 * travels as `sourcePath`) has no input, which the engine prints as `{<nil>}`: such a failure is
 * about the resource, and its reason names the property instead.
 */
function engineFailure(f: CheckFailure, news: Props): CheckFailure {
  const reason = redact(f.reason);
  if (f.property === "" || f.property in news) return { property: f.property, reason };
  return { property: "", reason: reason.includes(f.property) ? reason : `${f.property}: ${reason}` };
}

/**
 * Runs a call about `id` from the stack's state. Such a call proves the state holds the object, so
 * the journal entry that recorded its create has done its job (journal.ts).
 */
function heldBy<T>(ctx: CallContext, call: Call, id: string, body: (id: string) => T): T {
  ctx.journal.held(call.core.table.type, call.name, id);
  return body(id);
}

/** `logger` with every line passed through `edit` first. */
function editing(logger: Logger, edit: (line: string) => string): Logger {
  return { info: (m) => logger.info(edit(m)), warn: (m) => logger.warn(edit(m)), debug: (m) => logger.debug(edit(m)) };
}

/** `err` about the resource, without a secret: ours made again for it, any other error said anew. */
function annotate(err: unknown, type: string, name: string): unknown {
  if (CloudPlatformError.isInstance(err)) return err.forResource(type, name);
  if (err instanceof Error) return new Error(redact(aboutResource(type, name, err.message)));
  return err;
}

/**
 * `err` with a stack of its frames alone. Both hosts of @pulumi/pulumi print a failed call as
 * `${err}: ${err.stack}` on stderr, and a stack starts with `${err}` again: each message came twice
 * on one line, and a third time where the engine said the call's error beside it (issue 37). The
 * engine says the message; the frames, on the lines after it, are what the stack adds.
 */
function framesOnly(err: unknown): unknown {
  if (!(err instanceof Error) || err.stack === undefined) return err;
  const frames = err.stack.indexOf("\n    at ");
  err.stack = frames === -1 ? "" : err.stack.slice(frames);
  return err;
}

/** By code too: a PartialCreateError of another copy of this package fails `instanceof`. */
function isPartial(err: unknown): err is PartialCreateError {
  return (
    err instanceof PartialCreateError || (CloudPlatformError.isInstance(err) && err.code === "CLOUDPLATFORM_PARTIAL")
  );
}

/** The id a core expects, whether the engine hands the import id or the id the core returned. */
function coreId(core: AnyCore, id: string): string {
  const importing = core.importing;
  return importing?.supported === true && importing.coreId !== undefined ? importing.coreId(id) : id;
}

function importTarget(core: AnyCore, importId: string): { id: string; state: unknown } {
  const importing = core.importing;
  if (importing?.supported !== true) {
    const reason =
      importing?.reason ?? "it cannot be read back from an id alone; declare the resource in the program instead";
    throw new ImportUnsupportedError(`${core.table.type} cannot be imported: ${reason}`);
  }
  return importing.target(importId);
}
