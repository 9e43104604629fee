/**
 * Entry of the executable provider (`PulumiPlugin.yaml`, or `node bin/provider/plugin/main.js`):
 * serves the cores over gRPC and prints the port on stdout, as the engine expects.
 */
// First: it tells @pulumi/pulumi, before that reads its settings, where the engine is (for log lines).
import "./engine-env.js";
import { createRequire } from "node:module";
import { main } from "@pulumi/pulumi/provider";
import { Host } from "../host.js";
import { configValues } from "./configure.js";
import { engineAddress } from "./engine-address.js";
import { exitWithEngine } from "./engine-watch.js";
import { createProvider, pluginLogger } from "./provider.js";
import { withServerShims } from "./server-shims.js";

/** The package's own version (self-reference through its `exports`). */
function packageVersion(): string {
  const pkg = createRequire(__filename)("pulumi-cloudplatform/package.json") as { version: string };
  return pkg.version;
}

exitWithEngine(engineAddress(process.argv.slice(2)), "pulumi-resource-cloudplatform");
const host = new Host({ logger: pluginLogger });
void withServerShims(
  (request) => host.configure(configValues(request)),
  () => main(createProvider({ version: packageVersion(), host }), process.argv.slice(2)),
);
