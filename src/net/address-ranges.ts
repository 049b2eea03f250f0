import ipaddr from 'ipaddr.js';

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d, how a dual-stack socket reports IPv4 peers) as the IPv4 address it carries. */
function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/**
 * An address ("203.0.113.7", "2001:db8::1") or a CIDR range ("203.0.113.0/24") in canonical form, the
 * network address of a range with its host bits cleared; null when it is neither.
 */
export function canonicalAddressRange(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.includes('/')) {
    if (!ipaddr.isValidCIDR(trimmed)) return null;
    const [address, bits] = ipaddr.parseCIDR(trimmed);
    const base = unmapped(address);
    const length = base === address ? bits : bits - 96;
    if (length < 0) return null;
    const network = ipaddr.fromByteArray(
      base.toByteArray().map((byte, index) => {
        const kept = Math.max(0, Math.min(8, length - index * 8));
        return byte & (0xff << (8 - kept)) & 0xff;
      }),
    );
    return `${network.toString()}/${length}`;
  }
  return ipaddr.isValid(trimmed) ? unmapped(ipaddr.parse(trimmed)).toString() : null;
}

/** Whether `address` (a client's) is one of `ranges` (canonical, from canonicalAddressRange); an unparsable address is in none. */
export function addressInRanges(address: string, ranges: readonly string[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const client = unmapped(ipaddr.parse(address));
  return ranges.some((range) => {
    if (!range.includes('/')) return client.toString() === range;
    const [network, bits] = ipaddr.parseCIDR(range);
    return network.kind() === client.kind() && client.match(network, bits);
  });
}
