// A DNS zone, and a lookup of it by name (what another stack would do to find the zone).
//   pulumi config set zoneName example.com
// (connection settings as in ../quickstart)
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();

const zone = new cloudplatform.DnsZone("main", {
  name: config.get("zoneName") ?? "example.com",
});

// The lookup runs once the zone exists (its name is known after creation).
const found = zone.name.apply((name) => cloudplatform.getDnsZone({ name }));

export const zoneId = zone.zoneId;
export const zoneName = zone.name;
export const lookedUpZoneId = found.zoneId;
