import assert from 'node:assert/strict';
import { createRouteGroups } from '../../src/http/route-groups';

describe('route groups', () => {
  it('refuses a route whose first two segments are not literal, since its group could not be known from a path', () => {
    const groups = createRouteGroups();
    assert.throws(() => groups.routerFor('/v1/:accountRef/statement'), /first two segments/);
    assert.throws(() => groups.routerFor('/dashboard{/*path}'), /first two segments/);
  });

  it('puts the routes of one group in one router, whatever the rest of their path or its case', () => {
    const groups = createRouteGroups();
    const accounts = groups.routerFor('/v1/accounts/:accountRef/statement');
    assert.equal(groups.routerFor('/v1/accounts'), accounts);
    assert.equal(groups.routerFor('/V1/Accounts/:accountRef/balance'), accounts);
    assert.notEqual(groups.routerFor('/v1/customers/:id'), accounts);
  });
});
