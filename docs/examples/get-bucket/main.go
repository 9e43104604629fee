package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// Fails when the project has no bucket of that name.
		shared := cloudplatform.LookupBucketOutput(ctx, cloudplatform.LookupBucketOutputArgs{
			Name: pulumi.String("shared-assets"),
		})
		reader, err := cloudplatform.NewBucketCredential(ctx, "shared-assets-reader", &cloudplatform.BucketCredentialArgs{
			BucketId: shared.BucketId(),
		})
		if err != nil {
			return err
		}
		ctx.Export("accessKeyId", reader.AccessKeyId)
		ctx.Export("secretAccessKey", reader.SecretAccessKey) // a secret
		return nil
	})
}
