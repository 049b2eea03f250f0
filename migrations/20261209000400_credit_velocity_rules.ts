import type { Knex } from 'knex';

/**
 * Velocity rules over credits: at most so many payments, or so much, to an account or a customer's accounts within a
 * window; a credit past one lands held (`hold`), with the rule's message saying why. A hold names the message, so a
 * holding rule has one as a refusing rule does; a credit has no destination, so a credit rule has no destination
 * scope. The reservation holding such a credit keeps the message (`note`): its kind's declared reason says a velocity
 * rule held it, the note which rule's words.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE velocity_rules
      DROP CONSTRAINT velocity_rules_subject_check,
      DROP CONSTRAINT velocity_rules_action_check,
      DROP CONSTRAINT velocity_rules_refusal_has_message,
      ADD CONSTRAINT velocity_rules_subject_check CHECK (subject IN ('payouts', 'credits')),
      ADD CONSTRAINT velocity_rules_action_check CHECK (action IN ('refuse', 'review', 'hold')),
      ADD CONSTRAINT velocity_rules_refusal_has_message CHECK ((action IN ('refuse', 'hold')) = (message IS NOT NULL)),
      ADD CONSTRAINT velocity_rules_action_of_subject
        CHECK (CASE subject WHEN 'credits' THEN action = 'hold' AND scope IN ('account', 'customer') ELSE action <> 'hold' END);
    ALTER TABLE ledger_reservations ADD COLUMN note text CHECK (length(note) <= 200);`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM velocity_rules WHERE subject = 'credits';
    ALTER TABLE ledger_reservations DROP COLUMN note;
    ALTER TABLE velocity_rules
      DROP CONSTRAINT velocity_rules_action_of_subject,
      DROP CONSTRAINT velocity_rules_refusal_has_message,
      DROP CONSTRAINT velocity_rules_action_check,
      DROP CONSTRAINT velocity_rules_subject_check,
      ADD CONSTRAINT velocity_rules_subject_check CHECK (subject IN ('payouts')),
      ADD CONSTRAINT velocity_rules_action_check CHECK (action IN ('refuse', 'review')),
      ADD CONSTRAINT velocity_rules_refusal_has_message CHECK ((action = 'refuse') = (message IS NOT NULL));`);
}
