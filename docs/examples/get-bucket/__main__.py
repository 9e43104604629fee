import pulumi
import pulumi_cloudplatform as cloudplatform

# Fails when the project has no bucket of that name.
shared = cloudplatform.get_bucket_output(name="shared-assets")

reader = cloudplatform.BucketCredential("shared-assets-reader", bucket_id=shared.bucket_id)

pulumi.export("accessKeyId", reader.access_key_id)
pulumi.export("secretAccessKey", reader.secret_access_key)  # a secret
