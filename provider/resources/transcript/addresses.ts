import { BlockList, isIP } from "node:net";

/**
 * Classifies URL hosts the way the platform does before fetching a media URL (spec §4.3: "private
 * and internal addresses are refused"). Only literals and `localhost` are judged: resolving DNS at
 * preview would be network I/O, and the platform re-checks what a name resolves to anyway.
 */

/** A block list of CIDR ranges (`10.0.0.0/8`, `fc00::/7`). */
function blockList(cidrs: string): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs.trim().split(/\s+/)) {
    const [net, prefix] = cidr.split("/") as [string, string];
    list.addSubnet(net, Number(prefix), isIP(net) === 6 ? "ipv6" : "ipv4");
  }
  return list;
}

const loopback = blockList("127.0.0.0/8 ::1/128");
/** Everything outside public unicast: private, loopback, link-local, CGNAT, documentation, multicast, reserved. */
const internal = blockList(`
  0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12 192.0.0.0/24 192.0.2.0/24
  198.51.100.0/24 203.0.113.0/24 192.168.0.0/16 198.18.0.0/15 224.0.0.0/4 240.0.0.0/4
  ::/128 ::1/128 fc00::/7 fe80::/10 2001:db8::/32 ff00::/8`);

/** `URL.hostname` keeps IPv6 brackets and may end with a root dot; both are noise here. */
function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return unbracketed.replace(/\.$/, "").toLowerCase();
}

/** An IPv4 address carried inside IPv6 (`::ffff:10.0.0.1`, `::ffff:a00:1`), so it is judged as IPv4. */
function embeddedIpv4(host: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!hex) return undefined;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
}

/** `localhost` and its subdomains always count; literals (also IPv4 inside IPv6) are looked up in `list`. */
function inList(hostname: string, list: BlockList): boolean {
  const host = bareHost(hostname);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const v4 = embeddedIpv4(host);
  if (v4) return list.check(v4, "ipv4");
  const family = isIP(host);
  return family !== 0 && list.check(host, family === 4 ? "ipv4" : "ipv6");
}

/** True for `localhost` and loopback literals (127.0.0.0/8, ::1). */
export function isLoopbackHost(hostname: string): boolean {
  return inList(hostname, loopback);
}

/** True for `localhost` and for literals outside public unicast (private, loopback, link-local, documentation, multicast, reserved). */
export function isInternalHost(hostname: string): boolean {
  return inList(hostname, internal);
}
