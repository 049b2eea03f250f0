import type { DbOrTrx } from '../db';
import { createDeliveryReadsRepo } from './delivery-reads.repo';

/** What other domains may read of outbound deliveries: they reach webhook_deliveries only through these. */
export const countUnreplayedDeadLetters = (db: DbOrTrx, tenantId: string): Promise<number> =>
  createDeliveryReadsRepo(db).unreplayedDeadLetters(tenantId);
