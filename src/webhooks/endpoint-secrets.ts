import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import { decryptSecret, encryptSecret } from '../crypto';
import { encryptionContext, ENDPOINT_PREVIOUS_SECRET_COLUMN, ENDPOINT_SECRET_COLUMN } from '../encryption/encrypted-columns';
import type { EndpointRecord } from './endpoints.repo';

type Keyring = Config['DATA_ENCRYPTION_KEYRING'];

export function newEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function sealEndpointSecret(
  keyring: Keyring,
  endpointId: string,
  secret: string,
  which: 'current' | 'previous' = 'current',
): string {
  return encryptSecret(
    keyring,
    secret,
    encryptionContext(which === 'current' ? ENDPOINT_SECRET_COLUMN : ENDPOINT_PREVIOUS_SECRET_COLUMN, endpointId),
  );
}

/** The secrets that sign now: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(keyring: Keyring, endpoint: EndpointRecord, now: Date): string[] {
  const secrets = [decryptSecret(keyring, endpoint.secretEnc, encryptionContext(ENDPOINT_SECRET_COLUMN, endpoint.id))];
  if (endpoint.previousSecretEnc && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(decryptSecret(keyring, endpoint.previousSecretEnc, encryptionContext(ENDPOINT_PREVIOUS_SECRET_COLUMN, endpoint.id)));
  }
  return secrets;
}

/** The current secret, readable again only to be kept as the previous one at a rotation. */
export function currentSecret(keyring: Keyring, endpoint: EndpointRecord): string {
  return decryptSecret(keyring, endpoint.secretEnc, encryptionContext(ENDPOINT_SECRET_COLUMN, endpoint.id));
}
