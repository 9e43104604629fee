import pulumi
import pulumi_cloudplatform as cloudplatform

media = cloudplatform.Bucket("media", force_destroy=True)

writer = cloudplatform.BucketCredential("media-writer",
    bucket_id=media.bucket_id,
    active=True,  # False deactivates it in place: S3 refuses it until it is True again
    # Any change regenerates the secret in place: same access key id, the old secret stops working.
    rotate_when_changed={"rotatedOn": "2026-11-01"})

pulumi.export("endpoint", writer.s3_endpoint)  # path-style
pulumi.export("region", writer.region)
pulumi.export("bucketName", writer.bucket_name)
pulumi.export("accessKeyId", writer.access_key_id)
pulumi.export("secretAccessKey", writer.secret_access_key)  # a secret
