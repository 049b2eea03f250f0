import type { ParameterizedContext } from 'koa';
import type { UserRole } from './roles';
import type { Logger } from '../logger';

export interface AuthenticatedTenant {
  id: string;
  name: string;
}

export interface AuthenticatedUser {
  id: string;
  tenantId: string;
  email: string;
  role: UserRole;
  sessionId: string;
}

export interface AppState {
  requestId: string;
  log: Logger;
  tenant?: AuthenticatedTenant;
  user?: AuthenticatedUser;
}

export type AppContext = ParameterizedContext<AppState>;
