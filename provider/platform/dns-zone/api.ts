/** The DNS zone calls of the management API (docs/api-contract.md §4). */
import { ignoreNotFound, type Created } from "../../answers/outcomes.js";
import { listAll } from "../../answers/paging.js";
import { readOne } from "../../answers/read-one.js";
import { pathOf, type ApiClient } from "../../client.js";
import { createdZoneSchema, zoneListSchema, zoneSchema, type Zone } from "./parse.js";

export async function listZones(client: ApiClient, name?: string): Promise<Zone[]> {
  const zones = await listAll(client, "/dns/zones", { name }, zoneListSchema);
  // The name filter is an assumption of the contract: filter again in case the server ignores it.
  return name === undefined ? zones : zones.filter((z) => z.name === name);
}

/** `list`: where to look when the GET cannot answer (a list this process shares, else a fresh one). */
export async function getZone(client: ApiClient, id: string, list = () => listZones(client)): Promise<Zone> {
  return readOne(client, "zone", pathOf`/dns/zones/${id}`, zoneSchema, list, id);
}

export async function createZone(client: ApiClient, name: string): Promise<Created<Zone>> {
  const res = await client.request({
    method: "POST",
    path: "/dns/zones",
    body: { name },
    schema: createdZoneSchema(name),
    reconcile: async () => (await listZones(client, name))[0],
  });
  return { value: res.data, reconciled: res.reconciled === true };
}

export async function deleteZone(client: ApiClient, id: string): Promise<void> {
  await ignoreNotFound(client.request({ method: "DELETE", path: pathOf`/dns/zones/${id}` }));
}
