/**
 * The dynamic-provider host adapter: serves a `ResourceCore` as a `pulumi.dynamic.ResourceProvider`.
 * It removes the host's own properties (`__provider`, and `__logicalName`, the logical name the SDK
 * classes pass so that messages and bucket auto-naming know it), turns outputs into plain JSON,
 * prefixes errors with `<Type> "<name>"`, and maps `PartialCreateError` to the engine's
 * partially-created state (`{ id, properties, reasons }`, with `__provider` kept).
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import * as log from "@pulumi/pulumi/log";
import { hasEngine } from "@pulumi/pulumi/runtime/settings";
import { setConfiguredValues, type SettingName } from "./config.js";
import type { CallContext, Json, Logger, Props, ResourceCore } from "./core.js";
import { CloudPlatformError, PartialCreateError } from "./errors.js";
import { redact } from "./redact.js";

/** Input carrying the resource's logical name (set by the SDK classes). */
export const nameKey = "__logicalName";
const providerKey = "__provider";
const settingNames: readonly SettingName[] = ["baseUrl", "s3Url", "apiUrl", "apiKey", "token"];

type Bag = Record<string, unknown>;

/** Writes to the engine when connected, else to stderr (stdout carries the host's port). */
export const hostLogger: Logger = {
  info: (m) => (hasEngine() ? void log.info(redact(m)) : console.error(`info: ${redact(m)}`)),
  warn: (m) => (hasEngine() ? void log.warn(redact(m)) : console.error(`warning: ${redact(m)}`)),
  debug: (m) => (hasEngine() ? void log.debug(redact(m)) : undefined),
};

/** Stores the stack config of a configure() request for the settings (config.ts). */
export async function configure(req: dynamic.ConfigureRequest): Promise<void> {
  const values: Record<string, string | undefined> = {};
  for (const name of settingNames) values[`cloudplatform:${name}`] = req.config.get(`cloudplatform:${name}`);
  setConfiguredValues(values);
}

function split(props: Bag | undefined): { name: string; rest: Props; provider: unknown } {
  const rest: Props = {};
  let name = "";
  let provider: unknown;
  for (const [k, v] of Object.entries(props ?? {})) {
    if (k === nameKey) name = typeof v === "string" ? v : "";
    else if (k === providerKey) provider = v;
    else rest[k] = v as Json;
  }
  return { name, rest, provider };
}

/** Plain JSON: drops `undefined`, which the host cannot serialize. */
function plain(value: unknown): Bag {
  return JSON.parse(JSON.stringify(value ?? {})) as Bag;
}

function context(name: string, preview: boolean, logger: Logger): CallContext {
  return { name, preview, log: logger };
}

function annotate(err: unknown, type: string, name: string): unknown {
  if (CloudPlatformError.isInstance(err)) {
    if (name !== "") err.forResource(type, name);
    err.message = redact(err.message);
    return err;
  }
  if (err instanceof Error) {
    err.message = redact(name === "" ? err.message : `${type} "${name}": ${err.message}`);
  }
  return err;
}

/** The engine records `{ id, properties, reasons }` errors as a partially created resource. */
class EnginePartialError extends Error {
  readonly id: string;
  readonly properties: Bag;
  readonly reasons: string[];
  constructor(message: string, id: string, properties: Bag, reasons: readonly string[]) {
    super(message);
    this.id = id;
    this.properties = properties;
    this.reasons = [...reasons].map(redact);
  }
}

function partial(err: PartialCreateError, type: string, name: string, provider: unknown): EnginePartialError {
  annotate(err, type, name);
  const properties = { ...plain(err.outs), [nameKey]: name, [providerKey]: provider };
  return new EnginePartialError(err.message, err.id, properties, err.reasons);
}

export function toDynamicProvider<I, O>(
  core: ResourceCore<I, O>,
  logger: Logger = hostLogger,
): dynamic.ResourceProvider {
  const type = core.type;
  return {
    configure,

    async check(olds: Bag, news: Bag) {
      const n = split(news);
      const o = split(olds);
      const name = n.name || o.name;
      try {
        const oldInputs = Object.keys(o.rest).length === 0 ? undefined : (o.rest as Partial<I>);
        const result = core.check(context(name, true, logger), oldInputs, n.rest);
        return {
          inputs: { ...plain(result.inputs), [nameKey]: name },
          failures: result.failures.map((f) => ({ property: f.property, reason: redact(f.reason) })),
        };
      } catch (err) {
        throw annotate(err, type, name);
      }
    },

    async diff(id: string, olds: Bag, news: Bag) {
      const n = split(news);
      const name = n.name || split(olds).name;
      try {
        const d = core.diff(context(name, true, logger), id, split(olds).rest as O, n.rest as I);
        return { changes: d.changes, replaces: [...d.replaces], deleteBeforeReplace: d.deleteBeforeReplace };
      } catch (err) {
        throw annotate(err, type, name);
      }
    },

    async create(inputs: Bag) {
      const n = split(inputs);
      try {
        const result = await core.create(context(n.name, false, logger), n.rest as I);
        return { id: result.id, outs: { ...plain(result.outs), [nameKey]: n.name } };
      } catch (err) {
        if (
          err instanceof PartialCreateError ||
          (CloudPlatformError.isInstance(err) && err.code === "CLOUDPLATFORM_PARTIAL")
        ) {
          throw partial(err as PartialCreateError, type, n.name, n.provider);
        }
        throw annotate(err, type, n.name);
      }
    },

    async read(id: string, props?: Bag) {
      const s = split(props);
      try {
        const result = await core.read(context(s.name, false, logger), id, s.rest as O);
        if (result.id === undefined || result.id === "") return { id: "", props: {} };
        return {
          id: result.id,
          props: { ...plain(result.outs ?? s.rest), [nameKey]: s.name },
          ...(result.inputs === undefined ? {} : { inputs: { ...plain(result.inputs), [nameKey]: s.name } }),
        };
      } catch (err) {
        throw annotate(err, type, s.name);
      }
    },

    async update(id: string, olds: Bag, news: Bag) {
      const n = split(news);
      const name = n.name || split(olds).name;
      try {
        const outs = await core.update(context(name, false, logger), id, split(olds).rest as O, n.rest as I);
        return { outs: { ...plain(outs), [nameKey]: name } };
      } catch (err) {
        if (
          err instanceof PartialCreateError ||
          (CloudPlatformError.isInstance(err) && err.code === "CLOUDPLATFORM_PARTIAL")
        ) {
          throw partial(err as PartialCreateError, type, name, n.provider);
        }
        throw annotate(err, type, name);
      }
    },

    async delete(id: string, props: Bag) {
      const s = split(props);
      try {
        await core.delete(context(s.name, false, logger), id, s.rest as O);
      } catch (err) {
        throw annotate(err, type, s.name);
      }
    },
  };
}
