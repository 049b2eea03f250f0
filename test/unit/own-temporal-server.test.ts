import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface TemporalInfra {
  DEFAULT_PORT: number;
  DEFAULT_UI_PORT: number;
  startIsolatedTemporal: (options: { port?: number }) => Promise<unknown>;
}

describe("a Temporal server of one's own", () => {
  it("refuses npm start's ports (7233, 8233) before starting anything: a test run never binds or shares them", async () => {
    const infra = (await import(pathToFileURL(path.resolve(__dirname, '../../../scripts/infra/temporal.mjs')).href)) as TemporalInfra;
    assert.deepEqual([infra.DEFAULT_PORT, infra.DEFAULT_UI_PORT], [7233, 8233]);
    for (const port of [infra.DEFAULT_PORT, infra.DEFAULT_UI_PORT])
      await assert.rejects(infra.startIsolatedTemporal({ port }), /port \d+ is npm start's shared server's/);
  });
});
