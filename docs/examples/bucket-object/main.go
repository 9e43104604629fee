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
		})
		if err != nil {
			return err
		}
		settings, err := cloudplatform.NewBucketObject(ctx, "settings", &cloudplatform.BucketObjectArgs{
			Bucket:       media.Name,
			Key:          pulumi.String("config/settings.json"),
			Content:      pulumi.String(`{"theme": "dark"}`), // or SourcePath, or SourceUrl
			ContentType:  pulumi.String("application/json"),  // from the key's extension when left out
			CacheControl: pulumi.String("no-cache"),
			Metadata:     pulumi.StringMap{"owner": pulumi.String("platform-team")},
			AccessKeyId:  writer.AccessKeyId,
			// The secret is optional in the SDK (a credential taken over has none): Elem() reads it.
			SecretAccessKey: writer.SecretAccessKey.Elem(),
		})
		if err != nil {
			return err
		}
		ctx.Export("sha256", settings.Sha256)
		ctx.Export("etag", settings.Etag)
		return nil
	})
}
