package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Adopt: pulumi.Bool(true) would take over a zone of this name that already exists in the project.
		site, err := cloudplatform.NewDnsZone(ctx, "site", &cloudplatform.DnsZoneArgs{
			Name: pulumi.String("example.com"),
		})
		if err != nil {
			return err
		}
		ctx.Export("zoneId", site.ZoneId)
		ctx.Export("nameservers", site.Nameservers) // set these at the domain's registrar
		return nil
	})
}
