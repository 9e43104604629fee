import pulumi
import pulumi_cloudplatform as cloudplatform

shared = cloudplatform.get_bucket_output(name="shared-assets")

pulumi.export("credentials", cloudplatform.get_bucket_credentials_output(bucket_id=shared.bucket_id).credentials)
