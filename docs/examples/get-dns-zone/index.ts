import * as cloudplatform from "@pulumi-cloudplatform/sdk";

// Fails when the project has no zone of that name.
const zone = cloudplatform.getDnsZoneOutput({ name: "example.org" });

export const zoneId = zone.zoneId;
export const nameservers = zone.nameservers;
