import pulumi
import pulumi_cloudplatform as cloudplatform

# adopt=True would take over a zone of this name that already exists in the project.
site = cloudplatform.DnsZone("site", name="example.com")

pulumi.export("zoneId", site.zone_id)
pulumi.export("nameservers", site.nameservers)  # set these at the domain's registrar
