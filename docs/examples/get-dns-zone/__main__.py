import pulumi
import pulumi_cloudplatform as cloudplatform

# Fails when the project has no zone of that name.
zone = cloudplatform.get_dns_zone_output(name="example.org")

pulumi.export("zoneId", zone.zone_id)
pulumi.export("nameservers", zone.nameservers)
