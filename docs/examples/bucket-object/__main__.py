import json

import pulumi
import pulumi_cloudplatform as cloudplatform

media = cloudplatform.Bucket("media", force_destroy=True)
writer = cloudplatform.BucketCredential("media-writer", bucket_id=media.bucket_id)

settings = cloudplatform.BucketObject("settings",
    bucket=media.name,
    key="config/settings.json",
    content=json.dumps({"theme": "dark"}),  # or source_path="./settings.json", or source_url
    content_type="application/json",  # from the key's extension when left out
    cache_control="no-cache",
    metadata={"owner": "platform-team"},
    access_key_id=writer.access_key_id,
    secret_access_key=writer.secret_access_key)

pulumi.export("sha256", settings.sha256)
pulumi.export("etag", settings.etag)
