/** The serialized provider of DnsZone resources: see ../shim.ts. */
import { newShim } from "../shim.js";

export = newShim("dnsZoneProvider");
