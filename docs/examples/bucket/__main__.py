import pulumi
import pulumi_cloudplatform as cloudplatform

media = cloudplatform.Bucket("media",
    storage_class="InfrequentAccess",  # Standard (the default), InfrequentAccess or Archive
    force_destroy=True)  # deleting the bucket deletes its objects first

pulumi.export("bucketId", media.bucket_id)
pulumi.export("bucketName", media.name)
pulumi.export("s3Endpoint", media.s3_endpoint)  # path-style, region us-east-1
