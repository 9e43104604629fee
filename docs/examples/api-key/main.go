package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		project, err := cloudplatform.NewApiKey(ctx, "project", &cloudplatform.ApiKeyArgs{
			RotateWhenChanged: pulumi.StringMap{"quarter": pulumi.String("2026-Q4")}, // change it to rotate the key
		})
		if err != nil {
			return err
		}
		ctx.Export("apiKey", project.Key) // a secret
		return nil
	})
}
