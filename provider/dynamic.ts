/**
 * The dynamic-provider host adapter: serves a `ResourceCore` as a `pulumi.dynamic.ResourceProvider`
 * through the host layer (host.ts). What is its own: the host keys of the property bag (the logical
 * name the SDK classes pass, and `__provider`, which a partial state must carry back), and plain
 * JSON both ways (the engine cannot serialize `undefined`).
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import * as log from "@pulumi/pulumi/log";
import { hasEngine } from "@pulumi/pulumi/runtime/settings";
import { settingNames } from "./config.js";
import type { Logger, ResourceCore } from "./core.js";
import { nameKey, stackKey } from "./core.js";
import { Host, providerKey, splitHostKeys, type AnyCore } from "./host.js";

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

/** What a bag says about its resource beyond its properties (host.ts `splitHostKeys`). */
interface Identity {
  readonly name: string;
  readonly stack: string;
}

/**
 * Plain JSON with the logical name and the stack, so that later calls (which get only the state)
 * know them too: `undefined` dropped, which the engine cannot serialize.
 */
function plain(value: object, who: Identity): Bag {
  return {
    ...(JSON.parse(JSON.stringify(value)) as Bag),
    [nameKey]: who.name,
    ...(who.stack === "" ? {} : { [stackKey]: who.stack }),
  };
}

/** The new bag's identity, the old one's where the new one lacks it (state written by an older version). */
function identity(news: Identity, olds?: Identity): Identity {
  return { name: news.name || (olds?.name ?? ""), stack: news.stack || (olds?.stack ?? "") };
}

export function toDynamicProvider<I, O>(core: ResourceCore<I, O>, host: Host = processHost): dynamic.ResourceProvider {
  const served = core as unknown as AnyCore;
  return {
    async configure(req: dynamic.ConfigureRequest) {
      host.configure(stackConfig(req));
    },

    async check(olds: Bag, news: Bag) {
      const o = splitHostKeys(olds);
      const n = splitHostKeys(news);
      const who = identity(n, o);
      const result = await host.check({ core: served, ...who }, o.props, n.props);
      return { inputs: plain(result.inputs, who), failures: [...result.failures] };
    },

    async diff(id: string, olds: Bag, news: Bag) {
      const o = splitHostKeys(olds);
      const n = splitHostKeys(news);
      const d = await host.diff({ core: served, ...identity(n, o) }, id, o.props, n.props);
      return { changes: d.changes, replaces: [...d.replaces], deleteBeforeReplace: d.deleteBeforeReplace };
    },

    async create(inputs: Bag) {
      const n = splitHostKeys(inputs);
      const who = identity(n);
      const partial = (outs: object) => ({ ...plain(outs, who), [providerKey]: n.provider });
      const result = await host.create({ core: served, ...who }, n.props, partial);
      return { id: result.id, outs: plain(result.outs, who) };
    },

    async read(id: string, props?: Bag) {
      const s = splitHostKeys(props);
      const who = identity(s);
      const result = await host.read({ core: served, ...who }, id, s.props);
      if (result === undefined) return { id: "", props: {} };
      return {
        id: result.id,
        props: plain(result.outs, who),
        ...(result.inputs === undefined ? {} : { inputs: plain(result.inputs, who) }),
      };
    },

    async update(id: string, olds: Bag, news: Bag) {
      const o = splitHostKeys(olds);
      const n = splitHostKeys(news);
      const who = identity(n, o);
      const partial = (outs: object) => ({ ...plain(outs, who), [providerKey]: n.provider });
      return { outs: plain(await host.update({ core: served, ...who }, id, o.props, n.props, partial), who) };
    },

    async delete(id: string, props: Bag) {
      const s = splitHostKeys(props);
      await host.delete({ core: served, ...identity(s) }, id, s.props);
    },
  };
}
