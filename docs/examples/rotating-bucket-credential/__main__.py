import pulumi
import pulumi_cloudplatform as cloudplatform

media = cloudplatform.Bucket("media", force_destroy=True)

app = cloudplatform.RotatingBucketCredential("app",
    bucket_id=media.bucket_id,
    rotate_after="30d",  # m, h, d or w
    rotate_when_changed={"reason": "2026-11 audit"},  # any change: one rotation now
    deactivate_previous_after="7d")  # optional: the previous pair stops a week after each rotation

pulumi.export("endpoint", app.s3_endpoint)  # path-style
pulumi.export("region", app.region)
pulumi.export("bucketName", app.bucket_name)
# The current pair: what applications take after each up.
pulumi.export("accessKeyId", app.access_key_id)
pulumi.export("secretAccessKey", app.secret_access_key)  # a secret
# The pair before it, still valid until the next rotation (or deactivate_previous_after).
pulumi.export("previousAccessKeyId", app.previous_access_key_id)
pulumi.export("secretFingerprint", app.secret_fingerprint)  # which secret changed, without showing it
pulumi.export("nextRotationAt", app.next_rotation_at)
