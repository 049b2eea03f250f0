import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- A tenant's refund of an inbound payment: a settlement (merchant_tx_ref) paying part or all of the payment's
    -- credit back to its payer. Written in the settlement's transaction, under the account's lock, just before its
    -- debit; its status is the settlement's. The Idempotency-Key it was asked with is claimed here, per tenant.
    CREATE TABLE payment_refunds (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      account_id uuid NOT NULL REFERENCES virtual_accounts(id),
      transaction_group_id uuid NOT NULL,
      credit_entry_id uuid NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      reason text NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      merchant_tx_ref text NOT NULL,
      idempotency_key text NOT NULL,
      request_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT payment_refunds_settlement_key UNIQUE (tenant_id, merchant_tx_ref),
      CONSTRAINT payment_refunds_idempotency_key UNIQUE (tenant_id, idempotency_key)
    );
    -- A payment's refunds, oldest first (ids are UUIDv7: id order is creation order).
    CREATE INDEX payment_refunds_payment_idx ON payment_refunds (tenant_id, transaction_group_id, id);
    CREATE INDEX payment_refunds_metadata_idx ON payment_refunds USING gin (metadata jsonb_path_ops);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE payment_refunds');
}
