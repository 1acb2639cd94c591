/**
 * Which IP addresses a callback may reach: globally routable unicast only, per the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (SEP-3415 "SSRF prevention"). IPv6 forms that carry an IPv4
 * address (mapped, compatible, NAT64, 6to4) are judged by the IPv4 address they carry, so
 * `::ffff:127.0.0.1` is loopback however it is spelled.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** IPv4 ranges that are not globally reachable (or must never be a webhook's destination). */
const V4_FORBIDDEN = [
  '0.0.0.0/8', // "this network", unspecified
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT (shared address space)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, cloud metadata (169.254.169.254)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and 255.255.255.255 broadcast
];

/** IPv6 ranges inside global unicast (2000::/3) that are still not globally reachable. Outside 2000::/3 nothing is. */
const V6_FORBIDDEN_IN_GLOBAL = [
  '2001::/23', // IETF protocol assignments, Teredo (2001::/32)
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation
];

const v4Forbidden = new BlockList();
for (const cidr of V4_FORBIDDEN) addSubnet(v4Forbidden, cidr, 'ipv4');
const v6Forbidden = new BlockList();
for (const cidr of V6_FORBIDDEN_IN_GLOBAL) addSubnet(v6Forbidden, cidr, 'ipv6');

export function addSubnet(list: BlockList, cidr: string, family: 'ipv4' | 'ipv6'): void {
  const [network, bits] = cidr.split('/') as [string, string];
  list.addSubnet(network, Number(bits), family);
}

/** True when `address` (an IP literal, no brackets) is a globally routable unicast address. */
export function isGlobalAddress(address: string): boolean {
  if (isIPv4(address)) return !v4Forbidden.check(address, 'ipv4');
  if (!isIPv6(address)) return false;
  const bytes = parseIPv6(address);
  if (bytes === undefined) return false;
  const carried = embeddedIPv4(bytes);
  if (carried !== undefined) return isIPv4(carried) && !v4Forbidden.check(carried, 'ipv4');
  if ((bytes[0]! & 0xe0) !== 0x20) return false; // not 2000::/3: loopback, unspecified, ULA, link-local, multicast, ...
  return !v6Forbidden.check(address, 'ipv6');
}

/** True for 127.0.0.0/8, ::1 and their mapped forms: what `allowLoopback` lets through. */
export function isLoopbackAddress(address: string): boolean {
  if (isIPv4(address)) return address.startsWith('127.');
  const bytes = isIPv6(address) ? parseIPv6(address) : undefined;
  if (bytes === undefined) return false;
  const carried = embeddedIPv4(bytes);
  if (carried !== undefined) return carried.startsWith('127.');
  return bytes.every((b, i) => b === (i === 15 ? 1 : 0));
}

/** The IPv4 address an IPv6 address stands for: mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002:AABB:CCDD::/48. */
function embeddedIPv4(b: Uint8Array): string | undefined {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const tail = () => `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return tail(); // mapped
  if (zeros(0, 12)) return zeros(12, 15) && (b[15] === 0 || b[15] === 1) ? undefined : tail(); // compatible (:: and ::1 are themselves)
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zeros(4, 12)) return tail(); // NAT64 well-known prefix
    if (b[4] === 0x00 && b[5] === 0x01) return '0.0.0.0'; // local-use NAT64: never global
  }
  if (b[0] === 0x20 && b[1] === 0x02) return `${b[2]}.${b[3]}.${b[4]}.${b[5]}`; // 6to4
  return undefined;
}

/** 16 bytes of an IPv6 literal (a zone id is dropped), or undefined if it is not one. */
export function parseIPv6(text: string): Uint8Array | undefined {
  let address = text.split('%')[0]!;
  const out = new Uint8Array(16);
  const dotted = address.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    if (!isIPv4(dotted[1]!)) return undefined;
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    address = `${address.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  for (const [i, group] of groups.entries()) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    const value = Number.parseInt(group, 16);
    out[i * 2] = value >> 8;
    out[i * 2 + 1] = value & 0xff;
  }
  return out;
}
