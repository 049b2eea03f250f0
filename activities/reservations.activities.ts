import { Context } from '@temporalio/activity';
import type { Db } from '../src/db';
import type { EventedLedger } from '../src/events/ledger-events';
import type { ReservationExpiryResult } from '../src/contracts/reservation-expiry.contract';
import type { Logger } from '../src/logger';
import type { SettlementBatchesService } from '../src/settlement-batches/settlement-batches.service';
import type { PayoutApprovalsService } from '../src/settlements/payout-approvals.service';
import type { InternalTransfersService } from '../src/internal-transfers/internal-transfers.service';

export function createReservationActivities(deps: {
  db: Db;
  ledger: Pick<EventedLedger, 'expireDue'>;
  /** Payouts held for approval whose reservations expire are marked expired (and told) in the same transaction. */
  heldPayouts: Pick<PayoutApprovalsService, 'expireHeld'>;
  /** Transfers held for approval likewise. */
  heldTransfers: Pick<InternalTransfersService, 'expireHeld'>;
  /** Settlement batches held for approval likewise. */
  heldBatches: Pick<SettlementBatchesService, 'expireHeld'>;
  logger: Logger;
}) {
  const { db, ledger, heldPayouts, heldTransfers, heldBatches, logger } = deps;
  return {
    /**
     * Releases, as expired, every reservation whose expiry has passed, a batch of accounts per transaction (each
     * with the events of what expired, recorded by the ledger, and the held payouts, transfers and batches among them marked expired), until
     * none is left. Retried after a crash, it
     * expires nothing twice: a reservation expires once, what it still held.
     */
    async expireDueReservations(): Promise<ReservationExpiryResult> {
      const context = Context.current();
      let expired = 0;
      for (;;) {
        const { ended } = await db.transaction(async (trx) => {
          const expired = await ledger.expireDue(trx, new Date());
          await heldPayouts.expireHeld(trx, expired);
          await heldTransfers.expireHeld(trx, expired);
          await heldBatches.expireHeld(trx, expired);
          return expired;
        });
        if (ended.length === 0 || context.cancellationSignal.aborted) break;
        expired += ended.length;
        context.heartbeat();
      }
      if (expired > 0) logger.info({ expired }, 'reservations expired');
      return { expired };
    },
  };
}

export type ReservationActivities = ReturnType<typeof createReservationActivities>;
