import { createdAt, type InputsOf, type OutputsOf, type ResourceTable } from "../../tables.js";

export const dnsZoneTable = {
  type: "DnsZone",
  description: "A DNS zone. Changing the name replaces the zone (deleted first: zone names are unique).",
  fields: {
    name: {
      kind: "string",
      input: "program",
      required: true,
      replaceOnChange: true,
      description:
        "The zone's domain name. Stored lower-case without a trailing dot. Changing it replaces the zone (the old " +
        "one is deleted first: zone names are unique).",
    },
    adopt: {
      kind: "boolean",
      input: "program",
      default: false,
      description:
        "When true and a zone with this name already exists in the project, create takes it over instead of " +
        "failing with `name_taken`: the way in for the dynamic SDK, whose resources cannot be `pulumi import`ed. " +
        "An adopted zone is deleted by `pulumi destroy` like any other.",
    },
    zoneId: { kind: "string", description: "The platform's zone id." },
    status: { kind: "string", optional: true, description: "As the API reports it, e.g. `active`." },
    nameservers: { kind: "stringList", description: "Name servers to delegate the domain to." },
    adopted: { kind: "boolean", description: "True when create adopted an existing zone." },
    createdAt: createdAt("zone"),
  },
} as const satisfies ResourceTable;

export type DnsZoneInputs = InputsOf<typeof dnsZoneTable>;
export type DnsZoneOutputs = OutputsOf<typeof dnsZoneTable>;
