/** Readers of the DNS zone answers (docs/api-contract.md §4), by the rules of provider/answers/ (§2.3). */
import { findObject, hasAny, idNames, named, reader } from "../../answers/find.js";
import { listOf } from "../../answers/paging.js";
import { identifier, stringList, text } from "../../answers/values.js";

export interface Zone {
  readonly id: string;
  /** Lower case, without a trailing dot. */
  readonly name: string;
  readonly status: string | undefined;
  readonly nameservers: string[];
  readonly created_at: string | undefined;
}

const zoneKinds = ["zone", "dns_zone", "domain"];
const zoneNameNames = ["name", "zone_name", "domain", "domain_name", "fqdn"];

function zoneName(v: unknown): string | undefined {
  const s = text(v);
  return s === undefined ? undefined : s.trim().toLowerCase().replace(/\.$/, "");
}

function readZone(raw: unknown, name?: string): Zone {
  const f = findObject(raw, zoneKinds, [hasAny(zoneNameNames, zoneName), hasAny(idNames("zone"), identifier)]);
  return {
    ...named(f, "zone", f.read(zoneNameNames, zoneName), name === undefined ? undefined : zoneName(name)),
    status: f.read(["status", "state"], text),
    nameservers: f.read(["nameservers", "name_servers", "ns", "ns_records", "dns_servers"], stringList) ?? [],
  };
}

export const zoneSchema = reader((raw) => readZone(raw));
/** The answer of a create, which may leave out the name it was sent. */
export const createdZoneSchema = (name: string) => reader((raw) => readZone(raw, name));
export const zoneListSchema = reader(listOf(["zones", "dns_zones", "domains"], (raw) => readZone(raw)));
