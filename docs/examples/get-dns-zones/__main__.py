import pulumi
import pulumi_cloudplatform as cloudplatform

# Each with its zone_id, name, status, nameservers and created_at.
pulumi.export("zones", cloudplatform.get_dns_zones_output().zones)
