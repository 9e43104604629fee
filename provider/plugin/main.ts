/**
 * Entry of the executable provider (`PulumiPlugin.yaml`, or `node bin/provider/plugin/main.js`):
 * serves the cores over gRPC and prints the port on stdout, as the engine expects.
 */
import { createRequire } from "node:module";
import { main } from "@pulumi/pulumi/provider";
import { withServerShims } from "./serverShims.js";
import { createProvider } from "./provider.js";

/** The package's own version (self-reference through its `exports`). */
function packageVersion(): string {
  const pkg = createRequire(__filename)("pulumi-cloudplatform/package.json") as { version: string };
  return pkg.version;
}

void withServerShims(() => main(createProvider({ version: packageVersion() }), process.argv.slice(2)));
