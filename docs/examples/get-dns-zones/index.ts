import * as cloudplatform from "@pulumi-cloudplatform/sdk";

// Each with its zoneId, name, status, nameservers and createdAt.
export const zones = cloudplatform.getDnsZonesOutput().zones;
