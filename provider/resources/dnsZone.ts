/**
 * DnsZone (docs/api-contract.md §4): create, read, delete; the name cannot change, so a new name
 * replaces the zone (delete first: zone names are unique).
 */
import { createZone, deleteZone, getZone } from "../api.js";
import type { Props, ResourceCore } from "../core.js";
import { goneFromState, importById, isUnknown } from "../core.js";
import { hasCode, isNotFound } from "../errors.js";
import { diffInputs, inputsFrom, unknownInputs } from "../fields.js";
import type { Zone } from "../shapes.js";
import { dnsZoneTable, type DnsZoneInputs, type DnsZoneOutputs } from "./dnsZone.fields.js";
import { domainProblem, normalizeDomain } from "./validate.js";

export type { DnsZoneInputs, DnsZoneOutputs };

export function zoneOutputs(z: Zone): DnsZoneOutputs {
  return {
    zoneId: z.id,
    name: z.name,
    nameservers: z.nameservers,
    ...(z.status === undefined ? {} : { status: z.status }),
    ...(z.created_at === undefined ? {} : { createdAt: z.created_at }),
  };
}

export const dnsZoneCore: ResourceCore<DnsZoneInputs, DnsZoneOutputs> = {
  table: dnsZoneTable,
  importing: importById,

  check(_ctx, _olds, news: Props) {
    const failures = unknownInputs(dnsZoneTable, news);
    const raw = news["name"];
    if (raw === undefined || raw === null) {
      failures.push({ property: "name", reason: 'name is required: the zone\'s domain name, e.g. "example.com"' });
      return { inputs: { name: "" }, failures };
    }
    if (isUnknown(raw)) return { inputs: { name: raw as string }, failures };
    if (typeof raw !== "string") {
      failures.push({ property: "name", reason: 'name must be a string such as "example.com"' });
      return { inputs: { name: "" }, failures };
    }
    const name = normalizeDomain(raw);
    const problem = domainProblem(name);
    if (problem !== undefined) failures.push({ property: "name", reason: `name "${raw}" ${problem}` });
    return { inputs: { name }, failures };
  },

  diff(_ctx, _id, olds, news) {
    const d = diffInputs(dnsZoneTable, olds, news);
    return { ...d, deleteBeforeReplace: d.changes };
  },

  async create(ctx, inputs) {
    try {
      const zone = await createZone(ctx.client, inputs.name);
      return { id: zone.id, outs: zoneOutputs(zone) };
    } catch (err) {
      if (hasCode(err, "CLOUDPLATFORM_CONFLICT") && err instanceof Error) {
        err.message += ` A zone named "${inputs.name}" already exists in this project or on the platform; pick another name or delete the existing zone.`;
      }
      throw err;
    }
  },

  async read(ctx, id, state) {
    try {
      const outs = zoneOutputs(await getZone(ctx.client, id));
      return { id, outs, inputs: inputsFrom(dnsZoneTable, outs) };
    } catch (err) {
      if (isNotFound(err)) return goneFromState(ctx, `zone ${state.name} (${id})`);
      throw err;
    }
  },

  async update(_ctx, _id, olds) {
    // Only the name is an input and it replaces: nothing can change in place.
    return olds;
  },

  async delete(ctx, id) {
    await deleteZone(ctx.client, id);
  },
};
