package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		site, err := cloudplatform.NewBucket(ctx, "site", &cloudplatform.BucketArgs{
			ForceDestroy: pulumi.Bool(true),
		})
		if err != nil {
			return err
		}
		writer, err := cloudplatform.NewBucketCredential(ctx, "site-writer", &cloudplatform.BucketCredentialArgs{
			BucketId: site.BucketId,
		})
		if err != nil {
			return err
		}
		www, err := cloudplatform.NewSyncedFolder(ctx, "www", &cloudplatform.SyncedFolderArgs{
			Bucket:        site.Name,
			Path:          pulumi.String("./www"), // relative to the program's directory
			Prefix:        pulumi.String("site/"), // keys start with it
			Exclude:       pulumi.StringArray{pulumi.String("*.map"), pulumi.String(".DS_Store")},
			CacheControl:  pulumi.String("public, max-age=300"),
			DeleteRemoved: pulumi.Bool(true), // a file removed from the folder is deleted from the bucket
			AccessKeyId:   writer.AccessKeyId,
			// The secret is optional in the SDK (a credential taken over has none): Elem() reads it.
			SecretAccessKey: writer.SecretAccessKey.Elem(),
		})
		if err != nil {
			return err
		}
		ctx.Export("fileCount", www.FileCount)
		ctx.Export("totalBytes", www.TotalBytes)
		return nil
	})
}
