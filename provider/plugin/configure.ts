/**
 * Provider configuration for the executable host, read from the engine's Configure request (see
 * server-shims.ts for why the request is seen here at all). main.ts hands the values to the host.
 */
import { packageName } from "./cores.js";
import { decode } from "./wire.js";

/** The parts of pulumirpc.ConfigureRequest read here. */
export interface ConfigureRequestLike {
  getVariablesMap(): { forEach(callback: (value: string, key: string) => void): void };
  getArgs(): { toJavaScript(): Record<string, unknown> } | undefined;
}

/**
 * Namespaced settings (`cloudplatform:baseUrl`) from a Configure request: `variables` holds
 * `cloudplatform:config:baseUrl` keys with plain strings (secrets decrypted); `args` holds
 * `baseUrl` keys with wire values, used when a key is missing from `variables`.
 */
export function configValues(request: ConfigureRequestLike): Record<string, string> {
  const values: Record<string, string> = {};
  request.getVariablesMap().forEach((value, key) => {
    const [pkg, ...rest] = key.split(":");
    if (pkg !== packageName) return;
    const name = rest[0] === "config" && rest.length > 1 ? rest.slice(1).join(":") : rest.join(":");
    values[`${packageName}:${name}`] = value;
  });
  const args = decode(request.getArgs()?.toJavaScript()).props;
  for (const [name, value] of Object.entries(args)) {
    const key = `${packageName}:${name}`;
    // A number setting (maxRequestsPerSecond) comes as a number from an explicit provider's args.
    if (values[key] === undefined && (typeof value === "string" || typeof value === "number")) {
      values[key] = String(value);
    }
  }
  return values;
}
