import type { DbOrTrx } from '../db';
import { createSettlementsRepo, type AttemptOutcome, type SettlementRecord, type SettlementStatus } from './settlements.repo';

/** What other domains may read of a settlement: they reach settlements only through these. */
export type { AttemptOutcome, SettlementRecord, SettlementStatus };

export const findSettlementById = (db: DbOrTrx, id: string): Promise<SettlementRecord | undefined> =>
  createSettlementsRepo(db).findById(id);
