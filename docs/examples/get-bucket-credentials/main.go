package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		shared := cloudplatform.LookupBucketOutput(ctx, cloudplatform.LookupBucketOutputArgs{
			Name: pulumi.String("shared-assets"),
		})
		found := cloudplatform.GetBucketCredentialsOutput(ctx, cloudplatform.GetBucketCredentialsOutputArgs{
			BucketId: shared.BucketId(),
		})
		ctx.Export("credentials", found.Credentials())
		return nil
	})
}
