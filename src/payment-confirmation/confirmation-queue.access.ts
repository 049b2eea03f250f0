import type { DbOrTrx } from '../db';
import { createConfirmationClaimsRepo, type ConfirmationRequest } from './confirmation-claims.repo';

export type { ConfirmationRequest };

/** Queues provisional credits for a batch confirmation in the caller's transaction; a credit already queued or claimed stays as it is. */
export const queueForConfirmation = (db: DbOrTrx, requests: ConfirmationRequest[]): Promise<number> =>
  createConfirmationClaimsRepo(db).enqueue(requests);
