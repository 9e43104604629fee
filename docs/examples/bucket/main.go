package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		media, err := cloudplatform.NewBucket(ctx, "media", &cloudplatform.BucketArgs{
			StorageClass: pulumi.String("InfrequentAccess"), // Standard (the default), InfrequentAccess or Archive
			ForceDestroy: pulumi.Bool(true),                 // deleting the bucket deletes its objects first
		})
		if err != nil {
			return err
		}
		ctx.Export("bucketId", media.BucketId)
		ctx.Export("bucketName", media.Name)
		ctx.Export("s3Endpoint", media.S3Endpoint) // path-style, region us-east-1
		return nil
	})
}
