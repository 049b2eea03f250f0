import type { ParameterizedContext } from 'koa';
import type { UserRole } from './roles';
import type { Logger } from '../logger';

export interface AuthenticatedTenant {
  id: string;
  name: string;
}

/** An API key as a request needs it: its tenant and what it may do, from where, until when. */
export interface AuthenticatedApiKey {
  id: string;
  tenant: AuthenticatedTenant;
  /** Scope names, or `*` for all. */
  scopes: string[];
  /** Addresses and CIDR ranges it may be used from (null: anywhere). */
  allowedSources: string[] | null;
  /** When the key stops working (epoch ms; null: never). */
  expiresAt: number | null;
  /** Set when the secret presented is the one a rotation replaced: when it stops working (epoch ms). */
  replacedSecretValidUntil: number | null;
}

/**
 * Where a dashboard session stands: waiting for the second factor after the password, waiting for the
 * user to enrol in two-factor sign-in because their tenant requires it of their role, or signed in.
 */
export type SessionStage = 'awaiting_code' | 'must_enrol' | 'signed_in';

export interface AuthenticatedUser {
  id: string;
  tenantId: string;
  email: string;
  role: UserRole;
  sessionId: string;
  stage: SessionStage;
  /** Whether the user has confirmed a TOTP authenticator. */
  twoFactorEnrolled: boolean;
  /** Whether the user's tenant requires two-factor sign-in (of the roles it covers). */
  tenantRequiresTwoFactor: boolean;
  /** When a TOTP code was last given in this session (epoch ms; null: never). */
  codeVerifiedAt: number | null;
}

export interface AppState {
  requestId: string;
  log: Logger;
  tenant?: AuthenticatedTenant;
  /** The API key the request was made with (API key routes): a payout's maker when no user made it. */
  apiKeyId?: string;
  user?: AuthenticatedUser;
  /** The tenant a public route's write changed (the provider's webhook crediting one of its accounts), for its write position. */
  writeTenantId?: string;
  /** The rate limits this request has been counted against (a read made again on the primary is not counted again). */
  counted?: Set<string>;
}

export type AppContext = ParameterizedContext<AppState>;
