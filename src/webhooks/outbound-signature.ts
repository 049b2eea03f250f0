import { hmacSha256 } from '../crypto';

/** SPEC.md, Outbound signature: `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">`. */
export function outboundSignatureHeader(secret: string, rawBody: string, unixSeconds: number): string {
  const digest = hmacSha256(secret, `${unixSeconds}.${rawBody}`).toString('hex');
  return `t=${unixSeconds},v1=${digest}`;
}
