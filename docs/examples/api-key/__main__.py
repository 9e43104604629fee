import pulumi
import pulumi_cloudplatform as cloudplatform

project = cloudplatform.ApiKey("project",
    rotate_when_changed={"quarter": "2026-Q4"})  # change it to rotate the key

pulumi.export("apiKey", project.key)  # a secret
