import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { Agent, buildConnector, type Dispatcher } from "undici";
import { refusedLiteral, refusedRange, unbracket, type AddressPolicy } from "./address-policy.js";
import { JobError } from "./errors.js";

/** Same shape as dns.lookup with `all: true`; injectable so tests can simulate DNS answers. */
export type ResolveAll = (hostname: string, callback: (err: Error | null, addresses: LookupAddress[]) => void) => void;

export const systemResolveAll: ResolveAll = (hostname, callback) =>
  dnsLookup(hostname, { all: true }, (err, addresses) => callback(err, addresses ?? []));

function notAllowed(host: string, address: string, range: string): JobError {
  return new JobError(
    "url_not_allowed",
    `${host} resolves to ${address} (${range}); only public addresses can be fetched, use a public URL or upload the file`,
  );
}

/** Resolves a name and refuses it when any of its addresses is outside the policy. */
export function checkResolved(addresses: LookupAddress[], host: string, policy: AddressPolicy): JobError | undefined {
  for (const { address } of addresses) {
    const range = refusedRange(address, policy);
    if (range !== undefined) return notAllowed(host, address, range);
  }
  return undefined;
}

/**
 * An undici dispatcher that checks the address actually connected to: names go through a guarded
 * lookup (so DNS rebinding between a check and the connection does not help), and IP literals,
 * which net.connect would use without a lookup, are checked before connecting.
 */
export function createGuardedDispatcher(policy: AddressPolicy, resolveAll: ResolveAll): Dispatcher {
  const guardedLookup = (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    resolveAll(hostname, (err, addresses) => {
      if (err) return callback(err, []);
      const refusal = checkResolved(addresses, hostname, policy);
      if (refusal) return callback(refusal, []);
      const wanted =
        options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
      if (wanted.length === 0)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
      if (options.all) return callback(null, wanted);
      return callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  };
  const connector = buildConnector({ lookup: guardedLookup, timeout: 10_000 });
  const connect: buildConnector.connector = (options, callback) => {
    const host = unbracket(options.hostname);
    const range = refusedLiteral(host, policy);
    if (range !== undefined) return callback(notAllowed(host, host, range), null);
    return connector(options, callback);
  };
  return new Agent({ connect });
}
