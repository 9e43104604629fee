import ipaddr from "ipaddr.js";

/**
 * The ipaddr.js range name of an IP address ("unicast", "loopback", "private", …), after unwrapping
 * IPv4-mapped IPv6 so `::ffff:127.0.0.1` counts as loopback; undefined when it is not an address.
 * The one classifier behind the /_emulator/ loopback rule and the transcription SSRF policy.
 */
export function ipRange(address: string): string | undefined {
  return ipaddr.isValid(address) ? ipaddr.process(address).range() : undefined;
}
