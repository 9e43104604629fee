/**
 * The executable-provider host adapter: serves the resource cores through `@pulumi/pulumi/provider`'s
 * `Provider` interface and the host layer (host.ts), dispatching on the URN's type token
 * `cloudplatform:index:<Type>`. What is its own: the logical name from the URN, and wire values to
 * plain JSON and back (wire.ts), secrets marked: the core's secret outputs and any output whose
 * input was secret.
 */
import * as log from "@pulumi/pulumi/log";
import type * as provider from "@pulumi/pulumi/provider";
import { getEngine } from "@pulumi/pulumi/runtime/settings";
import type { AnyCore, Logger } from "../contract.js";
import { secretOutputs } from "../tables.js";
import { Host } from "../host.js";
import { coreFor } from "./cores.js";
import { invoke } from "./invoke.js";
import { schemaJson } from "./schema.js";
import { decode, encode } from "./wire.js";

/**
 * Lines go to the engine, which shows them in the CLI's output as it does the dynamic provider's
 * (engine-address.ts); without an engine (a test, a plugin started by hand), to stderr, never to
 * stdout, which carries only the gRPC port.
 */
export const pluginLogger: Logger = {
  info: (m) => (getEngine() ? void log.info(m) : void process.stderr.write(`info: ${m}\n`)),
  warn: (m) => (getEngine() ? void log.warn(m) : void process.stderr.write(`warning: ${m}\n`)),
  debug: (m) => {
    if (getEngine()) void log.debug(m);
    else if (process.env["CLOUDPLATFORM_DEBUG"] === "1") process.stderr.write(`debug: ${m}\n`);
  },
};

export interface PluginOptions {
  /** Semver version reported to the engine and written in the schema. */
  readonly version: string;
  /** The host whose configuration and client the calls use; main.ts hands it the Configure request. */
  readonly host?: Host;
}

/** The outputs to mark secret: the core's secret outputs, and every one whose input was secret. */
function secretsOf(core: AnyCore, secretInputs: ReadonlySet<string>): Set<string> {
  return new Set([...secretOutputs(core.table), ...secretInputs]);
}

export function createProvider(options: PluginOptions): provider.Provider {
  const host = options.host ?? new Host({ logger: pluginLogger });

  return {
    version: options.version,
    getSchema: async () => schemaJson(options.version),

    // `inputs` is raw Struct JSON; the SDK's interface types it `any`.
    invoke: (token, inputs: unknown) => invoke(host, token, inputs),

    async check(urn, olds, news) {
      const n = decode(news);
      const result = await host.check(coreFor(urn), decode(olds).props, n.props);
      return { inputs: encode(result.inputs, n.secretKeys), failures: [...result.failures] };
    },

    async diff(id, urn, olds, news) {
      const d = await host.diff(coreFor(urn), id, decode(olds).props, decode(news).props);
      return { changes: d.changes, replaces: [...d.replaces], deleteBeforeReplace: d.deleteBeforeReplace };
    },

    async create(urn, inputs) {
      const call = coreFor(urn);
      const n = decode(inputs);
      const secrets = secretsOf(call.core, n.secretKeys);
      const result = await host.create(call, n.props, (outs) => encode(outs, secrets));
      return { id: result.id, outs: encode(result.outs, secrets) };
    },

    async read(id, urn, props) {
      const call = coreFor(urn);
      const s = decode(props);
      // No state: `pulumi import` (or `get`) of an object this stack never created.
      const result = await host.read(call, id, s.props, Object.keys(s.props).length === 0);
      if (result === undefined) return { id: "", props: {} };
      return {
        id: result.id,
        props: encode(result.outs, secretsOf(call.core, s.secretKeys)),
        ...(result.inputs === undefined ? {} : { inputs: encode(result.inputs, s.secretKeys) }),
      };
    },

    async update(id, urn, olds, news) {
      const call = coreFor(urn);
      const n = decode(news);
      const secrets = secretsOf(call.core, n.secretKeys);
      const outs = await host.update(call, id, decode(olds).props, n.props, (o) => encode(o, secrets));
      return { outs: encode(outs, secrets) };
    },

    async delete(id, urn, props) {
      await host.delete(coreFor(urn), id, decode(props).props);
    },
  };
}
