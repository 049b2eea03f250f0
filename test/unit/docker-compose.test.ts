import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const compose = readFileSync(path.resolve(__dirname, '../../../docker-compose.yml'), 'utf8');

/** A service's block: its indented lines up to the next service or top-level key. */
function service(name: string): string {
  const match = new RegExp(`^  ${name}:\\n((?:(?:    .*)?\\n)*)`, 'm').exec(compose);
  assert.ok(match, `docker-compose.yml has a ${name} service`);
  return match[1]!;
}

describe('docker-compose.yml', () => {
  it("publishes the Temporal UI (every tenant's workflows) on loopback only, its write actions off unless asked for", () => {
    const ui = service('temporal-ui');
    const ports = /^    ports:\n((?:      - .*\n)+)/m.exec(ui);
    assert.ok(ports, 'the UI publishes a port');
    const published = [...ports[1]!.matchAll(/- '?([^'\n]+)'?/g)].map((match) => match[1]!);
    assert.ok(published.length > 0);
    for (const mapping of published) assert.match(mapping, /^127\.0\.0\.1:\d+:\d+$/, mapping);
    assert.match(ui, /^      TEMPORAL_DISABLE_WRITE_ACTIONS: \$\{TEMPORAL_DISABLE_WRITE_ACTIONS:-true\}$/m);
  });

  it('publishes the API and the sandbox (example secrets) on loopback unless PUBLISH_ADDRESS names another address', () => {
    for (const [name, port] of [
      ['api', 3000],
      ['sandbox', 4010],
    ] as const) {
      const ports = /^    ports:\n((?:      - .*\n)+)/m.exec(service(name));
      assert.ok(ports, `${name} publishes a port`);
      assert.deepEqual(
        [...ports[1]!.matchAll(/- '?([^'\n]+)'?/g)].map((match) => match[1]!),
        [`\${PUBLISH_ADDRESS:-127.0.0.1}:${port}:${port}`],
        name,
      );
    }
  });
});
