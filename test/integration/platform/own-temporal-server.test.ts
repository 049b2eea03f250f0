import assert from 'node:assert/strict';

describe('the Temporal server of a test run', () => {
  it("is one the run started, never npm start's on 7233 (even while one answers there)", () => {
    const address = process.env.TEMPORAL_ADDRESS;
    assert.ok(address, 'the runner sets TEMPORAL_ADDRESS');
    const { hostname, port } = new URL(`tcp://${address}`);
    assert.equal(hostname, '127.0.0.1', address);
    assert.notEqual(Number(port), 7233, `the tests would write into the server on ${address}`);
  });
});
