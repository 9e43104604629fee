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
		app, err := cloudplatform.NewRotatingBucketCredential(ctx, "app", &cloudplatform.RotatingBucketCredentialArgs{
			BucketId:    media.BucketId,
			RotateAfter: pulumi.String("30d"), // m, h, d or w
			// Any change: one rotation now.
			RotateWhenChanged: pulumi.StringMap{"reason": pulumi.String("2026-11 audit")},
			// Optional: the previous pair stops a week after each rotation.
			DeactivatePreviousAfter: pulumi.String("7d"),
		})
		if err != nil {
			return err
		}
		ctx.Export("endpoint", app.S3Endpoint) // path-style
		ctx.Export("region", app.Region)
		ctx.Export("bucketName", app.BucketName)
		// The current pair: what applications take after each up.
		ctx.Export("accessKeyId", app.AccessKeyId)
		ctx.Export("secretAccessKey", app.SecretAccessKey) // a secret
		// The pair before it, still valid until the next rotation (or DeactivatePreviousAfter).
		ctx.Export("previousAccessKeyId", app.PreviousAccessKeyId)
		ctx.Export("secretFingerprint", app.SecretFingerprint) // which secret changed, without showing it
		ctx.Export("nextRotationAt", app.NextRotationAt)
		return nil
	})
}
