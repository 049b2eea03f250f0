import ipaddr from 'ipaddr.js';
import { lookup as lookupCallback } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { ValidationError } from '../errors';

/** IPv4-compatible IPv6 (deprecated, ::a.b.c.d): ipaddr.js calls it unicast, but [::127.0.0.1] is loopback. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Only globally routable unicast addresses may be a tenant's callback target. ipaddr.js classifies
 * the rest (loopback, private, link-local, CGNAT, multicast, reserved, documentation, NAT64, 6to4,
 * Teredo...); an IPv4-mapped IPv6 address is judged as the IPv4 address it carries. 6to4 and Teredo
 * embed an IPv4 address that can be private, so both are refused whole.
 */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return true;
  return parsed.range() !== 'unicast';
}

/** The host of a URL as an IP literal (brackets removed), or null for a name. */
export function ipLiteralHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

interface CallbackPolicy {
  allowPrivate: boolean;
  requireHttps: boolean;
}

/**
 * Checked when an account is provisioned or a webhook endpoint is saved (`field` names its field); delivery checks the resolved address
 * again (DNS can change).
 */
export async function assertCallbackUrlAllowed(raw: string, policy: CallbackPolicy, field = 'callbackUrl'): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(`${field} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ValidationError(`${field} must be an absolute http(s) URL`);
  if (policy.requireHttps && url.protocol !== 'https:') throw new ValidationError(`${field} must use https`);
  if (url.username || url.password) throw new ValidationError(`${field} must not carry credentials`);
  if (policy.allowPrivate) return;
  const literal = ipLiteralHost(url);
  let addresses: string[];
  try {
    addresses = literal ? [literal] : (await lookup(url.hostname, { all: true })).map((entry) => entry.address);
  } catch {
    throw new ValidationError(`${field} host does not resolve`);
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new ValidationError(`${field} must not point at a private or loopback address`);
  }
}

/**
 * A dns lookup for http.request that refuses private targets at connect time (no DNS rebinding).
 * Node skips the lookup for an IP literal, so the sender checks literals itself (ipLiteralHost).
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookupCallback(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as Array<{ address: string; family: number }>;
      const allowed = allowPrivate ? list : list.filter((entry) => !isPrivateAddress(entry.address));
      if (allowed.length === 0) {
        return callback(Object.assign(new Error(`refused to connect to a private address for ${hostname}`), { code: 'EPRIVATE' }), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof allowed) => void)(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
