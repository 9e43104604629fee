package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Each with its BucketId, Name, StorageClass and CreatedAt.
		ctx.Export("buckets", cloudplatform.GetBucketsOutput(ctx).Buckets())
		return nil
	})
}
