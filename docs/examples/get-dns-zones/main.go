package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Each with its ZoneId, Name, Status, Nameservers and CreatedAt.
		ctx.Export("zones", cloudplatform.GetDnsZonesOutput(ctx).Zones())
		return nil
	})
}
