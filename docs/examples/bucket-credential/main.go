package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		media, err := cloudplatform.NewBucket(ctx, "media", &cloudplatform.BucketArgs{
			ForceDestroy: pulumi.Bool(true),
		})
		if err != nil {
			return err
		}
		writer, err := cloudplatform.NewBucketCredential(ctx, "media-writer", &cloudplatform.BucketCredentialArgs{
			BucketId: media.BucketId,
			Active:   pulumi.Bool(true), // false deactivates it in place: S3 refuses it until it is true again
			// Any change regenerates the secret in place: same access key id, the old secret stops working.
			RotateWhenChanged: pulumi.StringMap{"rotatedOn": pulumi.String("2026-11-01")},
		})
		if err != nil {
			return err
		}
		ctx.Export("endpoint", writer.S3Endpoint) // path-style
		ctx.Export("region", writer.Region)
		ctx.Export("bucketName", writer.BucketName)
		ctx.Export("accessKeyId", writer.AccessKeyId)
		ctx.Export("secretAccessKey", writer.SecretAccessKey) // a secret
		return nil
	})
}
