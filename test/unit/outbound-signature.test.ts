import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { outboundSignatureHeader } from '../../src/webhooks/outbound-signature';
import { loadTestVectors } from '../helpers/test-vectors';

const vector = loadTestVectors<{ secret: string; t: number; rawBody: string; header: string }>('outbound-signature');

/** A receiver's check, written independently of the service: what docs/webhooks.md tells tenants to do. */
function receiverAccepts(secret: string, rawBody: string, header: string, nowSeconds: number): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > 300 || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('outbound signature', () => {
  it('matches the shared test vector', () => {
    assert.equal(outboundSignatureHeader(vector.secret, vector.rawBody, vector.t), vector.header);
  });

  it('verifies with an independent receiver, inside the 300-second tolerance only', () => {
    const header = outboundSignatureHeader(vector.secret, vector.rawBody, vector.t);
    assert.ok(receiverAccepts(vector.secret, vector.rawBody, header, vector.t));
    assert.ok(receiverAccepts(vector.secret, vector.rawBody, header, vector.t + 300));
    assert.ok(receiverAccepts(vector.secret, vector.rawBody, header, vector.t - 300));
    assert.ok(!receiverAccepts(vector.secret, vector.rawBody, header, vector.t + 301));
    assert.ok(!receiverAccepts(vector.secret, vector.rawBody, header, vector.t - 301));
  });

  it('fails for another secret or a changed byte', () => {
    const header = outboundSignatureHeader(vector.secret, vector.rawBody, vector.t);
    assert.ok(!receiverAccepts('another-secret', vector.rawBody, header, vector.t));
    assert.ok(!receiverAccepts(vector.secret, vector.rawBody.replace('5000.00', '5000.01'), header, vector.t));
  });
});
