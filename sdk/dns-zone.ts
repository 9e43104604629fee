import * as pulumi from "@pulumi/pulumi";
import { dnsZoneTable } from "../provider/resources/dns-zone/fields.js";
import { customResourceArgs, registration } from "./resource.js";

export interface DnsZoneArgs {
  /**
   * The zone's domain name. Stored lower-case without a trailing dot. Changing it replaces the zone (the old one is
   * deleted first: zone names are unique).
   * @example "example.com"
   */
  name: pulumi.Input<string>;
  /**
   * When true and a zone with this name already exists in the project, create takes it over instead of failing with
   * `name_taken`: the way in for the dynamic SDK, whose resources cannot be `pulumi import`ed. An adopted zone is
   * deleted by `pulumi destroy` like any other.
   * @default false
   */
  adopt?: pulumi.Input<boolean>;
}

/**
 * A DNS zone.
 *
 * @example
 * const zone = new cloudplatform.DnsZone("main", { name: "example.com" });
 * export const nameservers = zone.nameservers;
 */
export class DnsZone extends pulumi.CustomResource {
  /** The platform's zone id. */
  declare public readonly zoneId: pulumi.Output<string>;
  /**
   * The zone's domain name. Stored lower-case without a trailing dot. Changing it replaces the zone (the old one is
   * deleted first: zone names are unique).
   */
  declare public readonly name: pulumi.Output<string>;
  /** As the API reports it, e.g. `active`. */
  declare public readonly status: pulumi.Output<string | undefined>;
  /** Name servers to delegate the domain to. */
  declare public readonly nameservers: pulumi.Output<string[]>;
  /**
   * When true and a zone with this name already exists in the project, create takes it over instead of failing with
   * `name_taken`: the way in for the dynamic SDK, whose resources cannot be `pulumi import`ed. An adopted zone is
   * deleted by `pulumi destroy` like any other.
   */
  declare public readonly adopt: pulumi.Output<boolean>;
  /** True when create adopted an existing zone. */
  declare public readonly adopted: pulumi.Output<boolean>;
  /** When the platform created the zone, when it says. */
  declare public readonly createdAt: pulumi.Output<string | undefined>;

  constructor(name: string, args: DnsZoneArgs, opts?: pulumi.CustomResourceOptions) {
    const registering = registration();
    try {
      super(...customResourceArgs(dnsZoneTable, name, args, opts));
    } catch (error) {
      throw registering.failed(error);
    } finally {
      registering.end();
    }
  }
}
