import * as cloudplatform from "@pulumi-cloudplatform/sdk";

// adopt: true would take over a zone of this name that already exists in the project.
const site = new cloudplatform.DnsZone("site", { name: "example.com" });

export const zoneId = site.zoneId;
export const nameservers = site.nameservers; // set these at the domain's registrar
