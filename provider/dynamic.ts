/**
 * The dynamic-provider host adapter: serves a `ResourceCore` as a `pulumi.dynamic.ResourceProvider`
 * through the host layer (host.ts). What is its own: which resource a call is about, plain JSON both
 * ways (the engine cannot serialize `undefined`), and `__provider`, which a partial state must carry
 * back.
 *
 * Dynamic providers are not told the URN. The SDK's provider text names the resource and the key
 * of its stack's journal (sdk/shim.ts), so every call knows them, read and delete included, from
 * the state's `__provider` alone: `providerFor` serves such a text. States written before that
 * carried the two as inputs and outputs (`__logicalName`, `__stack`); the providers of their texts
 * (`toDynamicProvider` without a resource) read them there and keep writing them.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import * as log from "@pulumi/pulumi/log";
import { hasEngine } from "@pulumi/pulumi/runtime/settings";
import { settingNames } from "./config.js";
import type { AnyCore, Logger, ResourceCore } from "./contract.js";
import type { Props } from "./vocabulary.js";
import { journalKey, nameKey, stackKey } from "./contract.js";
import { UnknownTypeError } from "./errors.js";
import { Host, providerKey, splitHostKeys, type Call } from "./host.js";
import { cores } from "./resources/all.js";

type Bag = Record<string, unknown>;

/** Writes to the engine when connected, else to stderr (stdout carries the host's port). */
const engineLogger: Logger = {
  info: (m) => (hasEngine() ? void log.info(m) : console.error(`info: ${m}`)),
  warn: (m) => (hasEngine() ? void log.warn(m) : console.error(`warning: ${m}`)),
  debug: (m) => (hasEngine() ? void log.debug(m) : undefined),
};

/** The process's host: every dynamic provider of a stack runs in one process, on one configuration. */
const processHost = new Host({ logger: engineLogger });

/** The `cloudplatform:*` keys of a configure() request's stack config. */
function stackConfig(req: dynamic.ConfigureRequest): Record<string, string | undefined> {
  return Object.fromEntries(settingNames.map((n) => [`cloudplatform:${n}`, req.config.get(`cloudplatform:${n}`)]));
}

/** configure() of the process's host, which the providers of `toDynamicProvider` share by default. */
export async function configure(req: dynamic.ConfigureRequest): Promise<void> {
  processHost.configure(stackConfig(req));
}

/** The resource a provider text names (sdk/shim.ts): its logical name and its stack's journal key. */
export interface Resource {
  readonly name: string;
  /** Empty when the program ran outside a deployment (no stack, no journal). */
  readonly journal: string;
}

/** What a call is about, its bags as the core sees them, and how its answers become bags again. */
interface Served {
  readonly call: Call;
  /** The call's (new) bag and, for check, diff and update, the old one, without host keys. */
  readonly props: Props;
  readonly olds: Props;
  /** The bag's `__provider`, which a partial state carries back. */
  readonly provider: unknown;
  readonly bag: (value: object) => Bag;
}

/** `value` as plain JSON: `undefined` dropped, which the engine cannot serialize. */
function plainJson(value: object): Bag {
  return JSON.parse(JSON.stringify(value)) as Bag;
}

/**
 * Which resource a call is about: the one the provider text names, else (a state written before
 * the text named it) the host keys of the bag, or of the old one where the bag lacks them. The
 * latter are written back into every bag, so that later calls of such a state, which get only the
 * state, find them again.
 */
function served(core: AnyCore, resource: Resource | undefined, bag: Bag | undefined, old?: Bag): Served {
  const n = splitHostKeys(bag);
  const o = splitHostKeys(old);
  const split = { props: n.props, olds: o.props, provider: n.provider };
  if (resource !== undefined) return { ...split, call: { core, ...resource }, bag: plainJson };
  const name = n.name || o.name;
  const stack = n.stack || o.stack;
  return {
    ...split,
    call: { core, name, journal: stack === "" ? "" : journalKey(stack) },
    bag: (value) => ({ ...plainJson(value), [nameKey]: name, ...(stack === "" ? {} : { [stackKey]: stack }) }),
  };
}

/**
 * Serves `core` as a dynamic provider. `resource`: the resource this provider serves, named by its
 * provider text; without it, each call learns it from the host keys of its property bags.
 */
export function toDynamicProvider<I, O>(
  core: ResourceCore<I, O>,
  host: Host = processHost,
  resource?: Resource,
): dynamic.ResourceProvider {
  const anyCore = core as unknown as AnyCore;
  return {
    async configure(req: dynamic.ConfigureRequest) {
      host.configure(stackConfig(req));
    },

    async check(olds: Bag, news: Bag) {
      const s = served(anyCore, resource, news, olds);
      const result = await host.check(s.call, s.olds, s.props);
      return { inputs: s.bag(result.inputs), failures: [...result.failures] };
    },

    async diff(id: string, olds: Bag, news: Bag) {
      const s = served(anyCore, resource, news, olds);
      const d = await host.diff(s.call, id, s.olds, s.props);
      return { changes: d.changes, replaces: [...d.replaces], deleteBeforeReplace: d.deleteBeforeReplace };
    },

    async create(inputs: Bag) {
      const s = served(anyCore, resource, inputs);
      const partial = (outs: object) => ({ ...s.bag(outs), [providerKey]: s.provider });
      const result = await host.create(s.call, s.props, partial);
      return { id: result.id, outs: s.bag(result.outs) };
    },

    async read(id: string, props?: Bag) {
      const s = served(anyCore, resource, props);
      const result = await host.read(s.call, id, s.props);
      if (result === undefined) return { id: "", props: {} };
      return {
        id: result.id,
        props: s.bag(result.outs),
        ...(result.inputs === undefined ? {} : { inputs: s.bag(result.inputs) }),
      };
    },

    async update(id: string, olds: Bag, news: Bag) {
      const s = served(anyCore, resource, news, olds);
      const partial = (outs: object) => ({ ...s.bag(outs), [providerKey]: s.provider });
      return { outs: s.bag(await host.update(s.call, id, s.olds, s.props, partial)) };
    },

    async delete(id: string, props: Bag) {
      const s = served(anyCore, resource, props);
      await host.delete(s.call, id, s.props);
    },
  };
}

const coreByType = new Map(cores.map((core) => [core.table.type, core]));

/**
 * The provider of one resource, as the SDK's provider text names it (sdk/shims/resource.ts): its
 * type (`Bucket`), logical name, and stack's journal key (empty outside a deployment).
 */
export function providerFor(type: string, name: string, journal = ""): dynamic.ResourceProvider {
  const core = coreByType.get(type);
  if (core === undefined) {
    throw new UnknownTypeError(
      `the cloudplatform provider has no resource type "${type}"`,
      `Known types: ${[...coreByType.keys()].join(", ")}. Upgrade pulumi-cloudplatform to the version the program uses.`,
    );
  }
  return toDynamicProvider(core, processHost, { name, journal });
}
