import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config';
import { DEVELOPMENT_SETTINGS } from '../helpers/config';
import { createJobs } from '../../src/contracts/jobs';
import type { SettlementInput } from '../../src/contracts/settlement.contract';
import type { WebhookDeliveryInput } from '../../src/contracts/webhook-delivery.contract';

/**
 * An activity's start-to-close is also how long a worker that died in the middle of it holds the job
 * up, so it follows the deadline of the call the activity makes rather than a fixed figure.
 */
describe('activity deadlines carried by the workflow inputs', () => {
  it('a settlement activity may make four provider calls: 4 × PROVIDER_TIMEOUT + 5 s (45 s by default, as before)', () => {
    const settlement = (env: Record<string, string>) =>
      createJobs(loadConfig({ ...DEVELOPMENT_SETTINGS, ...env })).settlement({
        settlementId: 's',
        merchantTxRef: 'mtx_1',
        tenantId: 't',
        accountRef: 'va_1',
      }).args as SettlementInput;
    assert.equal(settlement({}).activityTimeoutMs, 45_000);
    assert.equal(settlement({ PROVIDER_TIMEOUT: '2s' }).activityTimeoutMs, 13_000);
  });

  it('a webhook send has a hard WEBHOOK_TIMEOUT: that + 10 s for its database work (20 s by default)', () => {
    const delivery = (env: Record<string, string>) =>
      createJobs(loadConfig({ ...DEVELOPMENT_SETTINGS, ...env })).webhookDelivery({ deliveryId: 'd', tenantId: 't', accountRef: 'va_1' })
        .args as WebhookDeliveryInput;
    assert.equal(delivery({}).sendTimeoutMs, 20_000);
    assert.equal(delivery({ WEBHOOK_TIMEOUT: '2s' }).sendTimeoutMs, 12_000);
  });

  it('a restarted settlement starts with SettlementStatus at the database status', () => {
    const jobs = createJobs(loadConfig(DEVELOPMENT_SETTINGS));
    assert.equal(
      jobs.settlement({ settlementId: 's', merchantTxRef: 'mtx_1', tenantId: 't', accountRef: 'va_1' }).searchAttributes.SettlementStatus,
      'pending',
    );
    assert.equal(
      jobs.settlement({ settlementId: 's', merchantTxRef: 'mtx_1', tenantId: 't', accountRef: 'va_1', status: 'processing' })
        .searchAttributes.SettlementStatus,
      'processing',
    );
  });
});
