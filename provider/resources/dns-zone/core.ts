/**
 * DnsZone (docs/api-contract.md §4): create, read, delete; the name cannot change, so a new name
 * replaces the zone (delete first: zone names are unique).
 */
import type { ResourceCore } from "../../contract.js";
import { goneFromState, importById } from "../../contract.js";
import { ConflictError, isNotFound, withHint } from "../../errors.js";
import { diffInputs, inputsFrom, unknownInputs } from "../../tables.js";
import { isUnknown } from "../../vocabulary.js";
import { createNamed } from "../interrupted.js";
import { collectionChanged, readThroughList } from "../shared-list.js";
import { domainProblem, normalizeDomain, optionalBoolean } from "../validate.js";
import { createZone, deleteZone, getZone, listZones } from "../../platform/dns-zone/api.js";
import { dnsZoneTable, type DnsZoneInputs, type DnsZoneOutputs } from "./fields.js";
import type { Zone } from "../../platform/dns-zone/parse.js";

export type { DnsZoneInputs, DnsZoneOutputs };

type DnsZoneCore = ResourceCore<DnsZoneInputs, DnsZoneOutputs>;

const { type } = dnsZoneTable;

/** The key of the zones' shared list (shared-list.ts). */
const zonesList = "zones";

/** What the platform says of a zone: the outputs but those the program and create decide. */
export type ZoneFacts = Omit<DnsZoneOutputs, "adopt" | "adopted">;

export function zoneOutputs(z: Zone): ZoneFacts {
  return {
    zoneId: z.id,
    name: z.name,
    nameservers: z.nameservers,
    ...(z.status === undefined ? {} : { status: z.status }),
    ...(z.created_at === undefined ? {} : { createdAt: z.created_at }),
  };
}

/** A zone's outputs; `adopted` when create took over a zone it did not make. */
function outputsOf(z: Zone, adopt: boolean, adopted = false): DnsZoneOutputs {
  return { ...zoneOutputs(z), adopt, adopted };
}

const check: DnsZoneCore["check"] = (_ctx, _olds, news) => {
  const failures = unknownInputs(dnsZoneTable, news);
  const adopt = optionalBoolean("adopt", news["adopt"], failures) ?? dnsZoneTable.fields.adopt.default;
  const raw = news["name"];
  if (raw === undefined || raw === null) {
    failures.push({ property: "name", reason: 'name is required: the zone\'s domain name, e.g. "example.com"' });
    return { inputs: { name: "", adopt }, failures };
  }
  if (isUnknown(raw)) return { inputs: { name: raw as string, adopt }, failures };
  if (typeof raw !== "string") {
    failures.push({ property: "name", reason: 'name must be a string such as "example.com"' });
    return { inputs: { name: "", adopt }, failures };
  }
  const name = normalizeDomain(raw);
  const problem = domainProblem(name);
  if (problem !== undefined) failures.push({ property: "name", reason: `name "${raw}" ${problem}` });
  return { inputs: { name, adopt }, failures };
};

const diff: DnsZoneCore["diff"] = (_ctx, _id, olds, news) => {
  const d = diffInputs(dnsZoneTable, olds, news);
  return { ...d, deleteBeforeReplace: d.replaces.length > 0 };
};

const create: DnsZoneCore["create"] = async (ctx, inputs) => {
  const result = await createNamed(ctx, type, inputs.name, inputs.adopt, {
    create: () => createZone(ctx.client, inputs.name),
    find: async () => (await listZones(ctx.client, inputs.name))[0],
  });
  if (result.kind === "existing") {
    ctx.log.info(`adopted the existing zone "${inputs.name}" (${result.object.id}).`);
    return { id: result.object.id, outs: outputsOf(result.object, true, true) };
  }
  if (result.kind === "taken") {
    if (!inputs.adopt) {
      throw withHint(
        result.error,
        "CLOUDPLATFORM_CONFLICT",
        `A zone named "${inputs.name}" already exists. If it is yours and should be managed by this stack, set ` +
          "adopt: true (dynamic resources cannot be `pulumi import`ed); otherwise pick another name.",
      );
    }
    if (result.existing === undefined) {
      throw new ConflictError(
        `zone name "${inputs.name}" is taken by a zone outside this project`,
        "Zone names are unique on the platform: pick another name.",
      );
    }
    ctx.log.info(`adopted the existing zone "${inputs.name}" (${result.existing.id}).`);
    return { id: result.existing.id, outs: outputsOf(result.existing, true, true) };
  }
  const zone = result.object;
  if (result.kind === "interrupted") {
    ctx.log.info(`adopted the zone "${inputs.name}" (${zone.id}) that an interrupted run of this stack created.`);
  }
  return { id: zone.id, outs: outputsOf(zone, inputs.adopt) };
};

const read: DnsZoneCore["read"] = async (ctx, id, state) => {
  try {
    // A refresh reads every zone at once: one list answers them all.
    const zone = await readThroughList(ctx, zonesList, listZones, getZone, id);
    const outs = outputsOf(zone, state.adopt ?? false, state.adopted ?? false);
    return { id, outs, inputs: inputsFrom(dnsZoneTable, outs) };
  } catch (err) {
    if (isNotFound(err)) return goneFromState(ctx, `zone ${state.name} (${id})`);
    throw err;
  }
};

const update: DnsZoneCore["update"] = async (_ctx, _id, olds, news) => {
  // The name replaces; only adopt, which lives in the state alone, changes in place.
  return { ...olds, adopt: news.adopt };
};

const remove: DnsZoneCore["delete"] = async (ctx, id) => {
  await deleteZone(ctx.client, id);
  collectionChanged(ctx, zonesList);
};

const operations = { check, diff, create, read, update, delete: remove };

export const dnsZoneCore: DnsZoneCore = { table: dnsZoneTable, importing: importById, ...operations };
