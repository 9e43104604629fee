/**
 * The executable-provider host: serves the resource cores through `@pulumi/pulumi/provider`'s
 * `Provider` interface, dispatching on the URN's type token `cloudplatform:index:<Type>`. Like the
 * dynamic host (dynamic.ts) it only adapts: wire values to plain JSON and back (secrets marked),
 * the logical name from the URN, errors prefixed, partial state kept, and `pulumi import`.
 */
import type * as provider from "@pulumi/pulumi/provider";
import type { CallContext, ImportTarget, Logger } from "../core.js";
import { redact } from "../redact.js";
import { coreFor } from "./cores.js";
import { annotate, hostError } from "./errors.js";
import { coreId, importTarget } from "./importing.js";
import { stderrLogger } from "./logger.js";
import { schemaJson } from "./schema.js";
import { decode, encode } from "./wire.js";

export interface PluginOptions {
  /** Semver version reported to the engine and written in the schema. */
  readonly version: string;
  readonly logger?: Logger;
}

function union(...sets: Iterable<string>[]): Set<string> {
  const out = new Set<string>();
  for (const s of sets) for (const k of s) out.add(k);
  return out;
}

export function createProvider(options: PluginOptions): provider.Provider {
  const logger = options.logger ?? stderrLogger;
  const context = (name: string, preview: boolean): CallContext => ({ name, preview, log: logger });

  return {
    version: options.version,
    getSchema: async () => schemaJson(options.version),

    async check(urn, olds, news) {
      const { core, name } = coreFor(urn);
      const o = decode(olds);
      const n = decode(news);
      try {
        const oldInputs = Object.keys(o.props).length === 0 ? undefined : o.props;
        const result = core.check(context(name, true), oldInputs, n.props);
        return {
          inputs: encode(result.inputs as object, n.secretKeys),
          failures: result.failures.map((f) => ({ property: f.property, reason: redact(f.reason) })),
        };
      } catch (err) {
        throw annotate(err, core.type, name);
      }
    },

    async diff(id, urn, olds, news) {
      const { core, name } = coreFor(urn);
      try {
        const d = core.diff(context(name, true), coreId(core, id), decode(olds).props, decode(news).props);
        return { changes: d.changes, replaces: [...d.replaces], deleteBeforeReplace: d.deleteBeforeReplace };
      } catch (err) {
        throw annotate(err, core.type, name);
      }
    },

    async create(urn, inputs) {
      const { core, name } = coreFor(urn);
      const n = decode(inputs);
      const secrets = union(core.secretOutputs, n.secretKeys);
      try {
        const result = await core.create(context(name, false), n.props);
        return { id: result.id, outs: encode(result.outs as object, secrets) };
      } catch (err) {
        throw hostError(err, core.type, name, secrets);
      }
    },

    async read(id, urn, props) {
      const { core, name } = coreFor(urn);
      const s = decode(props);
      const secrets = union(core.secretOutputs, s.secretKeys);
      try {
        // No state: `pulumi import` (or `get`) of an object this stack never created.
        const importing = Object.keys(s.props).length === 0;
        const target: ImportTarget<unknown> = importing
          ? importTarget(core, id)
          : { id: coreId(core, id), state: s.props };
        const result = await core.read(context(name, false), target.id, target.state);
        if (result.id === undefined || result.id === "") return { id: "", props: {} };
        return {
          id: result.id,
          props: encode((result.outs ?? target.state) as object, secrets),
          ...(result.inputs === undefined ? {} : { inputs: encode(result.inputs as object, s.secretKeys) }),
        };
      } catch (err) {
        throw annotate(err, core.type, name);
      }
    },

    async update(id, urn, olds, news) {
      const { core, name } = coreFor(urn);
      const n = decode(news);
      const secrets = union(core.secretOutputs, n.secretKeys);
      try {
        const outs = await core.update(context(name, false), coreId(core, id), decode(olds).props, n.props);
        return { outs: encode(outs as object, secrets) };
      } catch (err) {
        throw hostError(err, core.type, name, secrets);
      }
    },

    async delete(id, urn, props) {
      const { core, name } = coreFor(urn);
      try {
        await core.delete(context(name, false), coreId(core, id), decode(props).props);
      } catch (err) {
        throw annotate(err, core.type, name);
      }
    },
  };
}
