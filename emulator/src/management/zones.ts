import { z } from "zod";
import { ApiError, missing, validationError } from "../api-error.js";
import { newZoneId } from "../ids.js";
import { normalizeZoneName, zoneNameProblem } from "../names.js";
import type { StateStore, ZoneRecord } from "../state.js";
import { parseBody } from "./body.js";
import { deletedReply, objectReply } from "../replies.js";
import { listByNameRoute, readOneRoute, type Route } from "../router.js";

const NAMESERVERS = ["ns1.cloudplatform.test", "ns2.cloudplatform.test"];
const createZoneBody = z.strictObject({ name: z.string() });

/** DNS zones (docs/api-contract.md §4). */
export function zoneRoutes(state: StateStore): Route[] {
  const find = (id: string): ZoneRecord => state.getZone(id) ?? missing(`zone ${id}`);
  return [
    listByNameRoute("zone", "/dns/zones", () => state.listZones(), normalizeZoneName),
    {
      method: "POST",
      path: "/dns/zones",
      async handle({ req }) {
        const body = await parseBody(req, createZoneBody);
        const name = normalizeZoneName(body.name);
        const problem = zoneNameProblem(name);
        if (problem !== undefined) throw validationError(`name: "${body.name}" ${problem}`);
        const zone: ZoneRecord = {
          id: newZoneId(),
          name,
          status: "active",
          nameservers: [...NAMESERVERS],
          created_at: new Date().toISOString(),
        };
        if (!state.addZone(zone)) {
          throw new ApiError(409, "name_taken", `a zone named ${name} already exists`);
        }
        return objectReply("zone", zone, 201);
      },
    },
    readOneRoute("zone", "/dns/zones/{zoneId}", find),
    {
      method: "DELETE",
      path: "/dns/zones/{zoneId}",
      async handle({ params }) {
        const zone = find(params["zoneId"]!);
        if (!state.deleteZone(zone.id)) missing(`zone ${zone.id}`);
        return deletedReply("zone", `zone ${zone.name} deleted`);
      },
    },
  ];
}
