import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as lookupCallback } from 'node:dns';
import { ValidationError } from '../errors';

/** Loopback, private, link-local, CGNAT, multicast and reserved ranges: never a tenant's callback target. */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface CallbackPolicy {
  allowPrivate: boolean;
  requireHttps: boolean;
}

/** Checked when an account is provisioned; delivery checks the resolved address again (DNS can change). */
export async function assertCallbackUrlAllowed(raw: string, policy: CallbackPolicy): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('callbackUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ValidationError('callbackUrl must be an absolute http(s) URL');
  if (policy.requireHttps && url.protocol !== 'https:') throw new ValidationError('callbackUrl must use https');
  if (url.username || url.password) throw new ValidationError('callbackUrl must not carry credentials');
  if (policy.allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw new ValidationError('callbackUrl host does not resolve');
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new ValidationError('callbackUrl must not point at a private or loopback address');
  }
}

/** A dns lookup for http.request that refuses private targets at connect time (no DNS rebinding). */
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
