/** The development key is public: production refuses to start with it. */
export const DEV_ENCRYPTION_KEY = 'ZGV2LW9ubHkta2V5LWRvLW5vdC11c2UtaW4tcHJvZCE=';
/** Public too, for the same reason. */
export const DEV_REQUEST_HASH_SECRET = 'dev-only-request-hash-secret-do-not-use-in-prod';
export const DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET = 'sk_sandbox_provider_local_dev';

/**
 * Secret values that appear in this repository (defaults, docker-compose.yml, the docs' examples):
 * anyone can read them, so production refuses every one of them, whichever variable holds it.
 */
const REPOSITORY_EXAMPLE_SECRETS: readonly string[] = [
  DEV_ENCRYPTION_KEY,
  'UADzT4+TdL/7B8uttdNNfjndg3KO7uXtNEpRaFnqpJE=',
  DEV_REQUEST_HASH_SECRET,
  DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET,
  'change-me-provider-webhook-secret',
];

/** Whether a secret (or a base64 key, however it is padded or spelled) is one published in this repository. */
export function isRepositoryExample(encoded: string): boolean {
  return REPOSITORY_EXAMPLE_SECRETS.some((secret) => secret === encoded || (secret.endsWith('=') && Buffer.from(secret, 'base64').equals(Buffer.from(encoded, 'base64'))));
}
