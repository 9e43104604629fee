import pulumi
import pulumi_cloudplatform as cloudplatform

keynote = cloudplatform.Transcript("keynote",
    url="https://media.example.com/talks/keynote.mp3",
    language="en",  # the default, "auto", detects it
    glossary={"pull you me": "Pulumi"})  # what is heard: what is written

pulumi.export("text", keynote.text)
pulumi.export("priceUsd", keynote.price_usd)
