/** The serialized provider of DnsZone resources: this module's exports (see ../shim.ts). */
import { newShim } from "../shim.js";

const { delete: remove, ...methods } = newShim("dnsZoneProvider");
export const { configure, check, diff, create, read, update } = methods;
export { remove as delete };
