package main

import (
	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		keynote, err := cloudplatform.NewTranscript(ctx, "keynote", &cloudplatform.TranscriptArgs{
			Url:      pulumi.String("https://media.example.com/talks/keynote.mp3"),
			Language: pulumi.String("en"),                                      // the default, "auto", detects it
			Glossary: pulumi.StringMap{"pull you me": pulumi.String("Pulumi")}, // what is heard: what is written
		})
		if err != nil {
			return err
		}
		ctx.Export("text", keynote.Text)
		ctx.Export("priceUsd", keynote.PriceUsd)
		return nil
	})
}
