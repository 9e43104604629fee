// The project's API key as a resource: created on first `up`, rotated when `rotation` changes.
//   pulumi config set rotation 2
// The previous key stops working at once, so let the provider itself authenticate with the
// dashboard token while it rotates the key:
//   pulumi config set --secret cloudplatform:token <your JWT>
// The platform cannot revoke the key: `pulumi destroy` forgets it and the last key stays valid.
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();

const key = new cloudplatform.ApiKey("project-key", {
  rotateWhenChanged: { rotation: config.get("rotation") ?? "1" },
});

// A Pulumi secret: `pulumi stack output apiKey --show-secrets` prints it.
export const apiKey = key.key;
