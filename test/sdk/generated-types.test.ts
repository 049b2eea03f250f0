import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { call } from '../helpers/http';
import { typeGenerator } from '../helpers/sdk';
import { startStack, type Stack } from '../helpers/stack';

describe('the TypeScript client: generated API types', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it('are what the generator writes from the live /openapi.json (else: npm start, then npm run generate in sdk/)', async () => {
    const { GENERATED_PATH, generateTypes } = await typeGenerator();
    const document = (await call(stack.apiUrl, 'GET', '/openapi.json')).body;
    const fresh = await generateTypes(document);
    assert.ok(fresh.includes('"/v1/accounts/{accountRef}/settle"'), 'the generator read the document');
    assert.ok(
      readFileSync(GENERATED_PATH, 'utf8') === fresh,
      `${GENERATED_PATH} is stale: the API's document changed since it was generated`,
    );
  });
});
