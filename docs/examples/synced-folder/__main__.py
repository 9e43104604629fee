import pulumi
import pulumi_cloudplatform as cloudplatform

site = cloudplatform.Bucket("site", force_destroy=True)
writer = cloudplatform.BucketCredential("site-writer", bucket_id=site.bucket_id)

www = cloudplatform.SyncedFolder("www",
    bucket=site.name,
    path="./www",  # relative to the program's directory
    prefix="site/",  # keys start with it
    exclude=["*.map", ".DS_Store"],
    cache_control="public, max-age=300",
    delete_removed=True,  # a file removed from the folder is deleted from the bucket
    access_key_id=writer.access_key_id,
    secret_access_key=writer.secret_access_key)

pulumi.export("fileCount", www.file_count)
pulumi.export("totalBytes", www.total_bytes)
