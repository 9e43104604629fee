import { isIP } from "node:net";
import { ipRange } from "../ip-range.js";

/**
 * Which addresses the emulator may connect to on a user's behalf (transcript `url`, `webhookUrl`).
 * Everything but public unicast is refused, after unwrapping IPv4-mapped IPv6; `allowLoopback`
 * (tests only) additionally lets loopback through, never private or link-local ranges.
 */
export interface AddressPolicy {
  readonly allowLoopback: boolean;
}

/** The ipaddr.js range name of an address, or undefined when the address is allowed. */
export function refusedRange(address: string, policy: AddressPolicy): string | undefined {
  const range = ipRange(address) ?? "invalid";
  if (range === "unicast") return undefined;
  if (range === "loopback" && policy.allowLoopback) return undefined;
  return range;
}

/**
 * For an IP-literal host, the range it is refused for; undefined when it is allowed or is a name
 * (names are checked on the addresses they resolve to).
 */
export function refusedLiteral(host: string, policy: AddressPolicy): string | undefined {
  return isIpLiteral(host) ? refusedRange(unbracket(host), policy) : undefined;
}

/** `[::1]` → `::1`; the WHATWG URL parser already normalised `127.1`, `2130706433`, `0x7f.0.0.1`. */
export function unbracket(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

export function isIpLiteral(hostname: string): boolean {
  return isIP(unbracket(hostname)) !== 0;
}
