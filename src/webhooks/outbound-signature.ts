import { hmacSha256 } from '../crypto';

/** SPEC.md, Outbound signature: `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">`. */
export function outboundSignatureHeader(secret: string, rawBody: string, unixSeconds: number): string {
  const digest = hmacSha256(secret, `${unixSeconds}.${rawBody}`).toString('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/**
 * During a secret rotation's overlap both secrets sign: `t=<t>,v1=<new>,v1=<previous>`, and a receiver
 * accepts the request when any v1 matches its secret.
 */
export function outboundSignatureHeaderOf(secrets: string[], rawBody: string, unixSeconds: number): string {
  return [`t=${unixSeconds}`, ...secrets.map((secret) => `v1=${hmacSha256(secret, `${unixSeconds}.${rawBody}`).toString('hex')}`)].join(
    ',',
  );
}
