/** The development key is public: production refuses to start with it. */
export const DEV_ENCRYPTION_KEY = 'ZGV2LW9ubHkta2V5LWRvLW5vdC11c2UtaW4tcHJvZCE=';
/** Public too, for the same reason. */
export const DEV_REQUEST_HASH_SECRET = 'dev-only-request-hash-secret-do-not-use-in-prod';
export const DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET = 'sk_sandbox_provider_local_dev';

/**
 * Secret values anyone can read: this repository's (defaults, docker-compose.yml, the docs' examples),
 * the signing keys of the signature test vectors (test/vectors, copied from the spec's shared vectors),
 * and the example signing key of the provider's documentation. Production refuses every one of them,
 * whichever variable holds it.
 */
const PUBLISHED_SECRETS: readonly string[] = [
  DEV_ENCRYPTION_KEY,
  'UADzT4+TdL/7B8uttdNNfjndg3KO7uXtNEpRaFnqpJE=',
  DEV_REQUEST_HASH_SECRET,
  DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET,
  'change-me-provider-webhook-secret',
  // test/vectors/inbound-signature.json: the provider's webhook signing key of every case.
  'sk_sandbox_provider_4f1c2e9a7b3d',
  // test/vectors/outbound-signature.json: the tenant signing secret of the outbound vector.
  'whsec_tenant_demo_8d2f61c0',
  // The provider's documentation: the signing key of its webhook signature example.
  'HkatexKDZg7CLWy96q5sfrVHSvtoz92B',
];

/** Where a refused secret was published, for the message that names its variable. */
export const PUBLISHED_WHERE = "published in this repository, the provider's documentation or the signature test vectors";

/** Whether a secret (or a base64 key, however it is padded or spelled) is one published anywhere (see PUBLISHED_SECRETS). */
export function isPublishedSecret(encoded: string): boolean {
  return PUBLISHED_SECRETS.some(
    (secret) => secret === encoded || (secret.endsWith('=') && Buffer.from(secret, 'base64').equals(Buffer.from(encoded, 'base64'))),
  );
}
