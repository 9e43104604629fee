package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Fails when the project has no zone of that name.
		zone := cloudplatform.LookupDnsZoneOutput(ctx, cloudplatform.LookupDnsZoneOutputArgs{
			Name: pulumi.String("example.org"),
		})
		ctx.Export("zoneId", zone.ZoneId())
		ctx.Export("nameservers", zone.Nameservers())
		return nil
	})
}
