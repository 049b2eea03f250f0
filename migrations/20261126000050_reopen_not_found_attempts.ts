import type { Knex } from 'knex';

/**
 * "Not found" is no longer a failure: an open settlement's latest attempt that was failed only because
 * lookups said "not found" for the grace becomes ambiguous again, so its run probes the same reference
 * instead of minting the next one while this one might still pay. Earlier attempts failed so, of
 * settlements that have moved on, stay as they are: the payout watch reports any of them that pays.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE settlement_attempts sa
       SET outcome = 'ambiguous', not_found_since = NULL, updated_at = now(),
           detail = 'not found for the grace: undecided, probed with the same reference'
      FROM settlements s
     WHERE s.id = sa.settlement_id
       AND s.status IN ('pending', 'processing')
       AND sa.outcome = 'failed'
       AND sa.acknowledged_at IS NULL
       AND sa.detail LIKE 'not found by the provider for % after its last submission'
       AND sa.attempt_no = (SELECT max(latest.attempt_no) FROM settlement_attempts latest WHERE latest.settlement_id = sa.settlement_id)`);
}

/** Nothing to undo: an ambiguous attempt is the safe reading under either rule. */
export async function down(): Promise<void> {}
