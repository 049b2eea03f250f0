import { isIP } from 'node:net';
import { z } from 'zod';
import { isPrivateAddress } from '../net/address-policy';
import { DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET, isPublishedSecret, PUBLISHED_WHERE } from './example-secrets';
import { duration, url, type Refuse } from './values';

const SANDBOX_CLIENT = {
  PROVIDER_CLIENT_ID: 'sandbox-client',
  PROVIDER_CLIENT_SECRET: 'sandbox-secret',
  PROVIDER_ACCOUNT_ID: 'sandbox-account',
} as const;

/** The payment provider and the identity verification service: where they are and how we sign in to them. */
export const providerEnv = z.object({
  PROVIDER_BASE_URL: url('http://127.0.0.1:4010'),
  PROVIDER_CLIENT_ID: z.string().min(1).default(SANDBOX_CLIENT.PROVIDER_CLIENT_ID),
  PROVIDER_CLIENT_SECRET: z.string().min(1).default(SANDBOX_CLIENT.PROVIDER_CLIENT_SECRET),
  PROVIDER_ACCOUNT_ID: z.string().min(1).default(SANDBOX_CLIENT.PROVIDER_ACCOUNT_ID),
  PROVIDER_TIMEOUT: duration('10s'),
  /** How long a lookup made while a client waits (a name enquiry, the bank list) is asked again when the provider leaves it unanswered. */
  PROVIDER_LOOKUP_RETRY_BUDGET: duration('3s'),
  PROVIDER_WEBHOOKS_SIGNING_SECRET: z.string().min(16).default(DEV_PROVIDER_WEBHOOKS_SIGNING_SECRET),
  /** The secret being rotated out: also accepted until it is unset. */
  PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET: z.string().min(16).optional(),
  BANK_LIST_TTL: duration('1h'),
  IDENTITY_VERIFICATION_URL: url('http://127.0.0.1:4010/identity/nin'),
  IDENTITY_VERIFICATION_TIMEOUT: duration('5s'),
});

type ProviderSettings = z.output<typeof providerEnv>;

/**
 * Why a URL cannot be a production provider endpoint, or null: it must be https and name a public
 * host (not loopback, a private or reserved address, or a single-label name such as a compose service).
 */
function notAPublicEndpoint(raw: string): string | null {
  const url = new URL(raw);
  if (url.protocol !== 'https:') return 'must be an https URL in production (the sandbox is not the provider)';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const internal = isIP(host) ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost') || !host.includes('.');
  return internal ? 'must not point at a loopback, private or internal host in production (the sandbox is not the provider)' : null;
}

export function refusePublishedWebhookSecrets(config: ProviderSettings, refuse: Refuse): void {
  if (isPublishedSecret(config.PROVIDER_WEBHOOKS_SIGNING_SECRET)) {
    refuse('PROVIDER_WEBHOOKS_SIGNING_SECRET', `must be set in production to a secret of your own (this one is ${PUBLISHED_WHERE})`);
  }
  if (config.PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET && isPublishedSecret(config.PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET)) {
    refuse('PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET', `is ${PUBLISHED_WHERE}: anyone could sign webhooks with it`);
  }
}

export function refuseSandboxProvider(config: ProviderSettings, refuse: Refuse): void {
  for (const variable of ['PROVIDER_BASE_URL', 'IDENTITY_VERIFICATION_URL'] as const) {
    const problem = notAPublicEndpoint(config[variable]);
    if (problem) refuse(variable, problem);
  }
  for (const [variable, sandboxValue] of Object.entries(SANDBOX_CLIENT) as Array<[keyof typeof SANDBOX_CLIENT, string]>) {
    if (config[variable] === sandboxValue) refuse(variable, "is the sandbox's value: set the provider's in production");
  }
}
