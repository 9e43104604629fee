import pulumi
import pulumi_cloudplatform as cloudplatform

# Each with its bucket_id, name, storage_class and created_at.
pulumi.export("buckets", cloudplatform.get_buckets_output().buckets)
