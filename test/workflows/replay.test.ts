import { Worker } from '@temporalio/worker';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJson } from '../helpers/history-json';
import { workflowBundle } from '../helpers/temporal';
import * as workflows from '../../workflows';

/** Recorded by `npm test -- record-histories` (test/replay/record-histories.ts). */
const HISTORIES_DIR = path.resolve(__dirname, '../../../test/replay/histories');

/**
 * Every workflow type the worker registers (each function workflows/index.ts exports; the worker's
 * bundle is built from that module) must have at least one recorded history.
 */
const WORKFLOW_TYPES = Object.entries(workflows)
  .filter(([, value]) => typeof value === 'function')
  .map(([name]) => name)
  .sort();

describe("replay of recorded histories: today's workflow code against runs recorded earlier", () => {
  const files = readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort();

  it('has histories of every workflow type the worker registers', () => {
    assert.ok(WORKFLOW_TYPES.length > 0, 'workflows/index.ts exports no workflow');
    for (const type of WORKFLOW_TYPES)
      assert.ok(
        files.some((file) => file.startsWith(`${type}.`)),
        `no recorded history of ${type}`,
      );
  });

  it('replays every recorded history without a nondeterminism error (a change that would break runs in flight needs patched())', async () => {
    const histories = files.map((file) => ({
      workflowId: file,
      history: historyFromJson(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8'))),
    }));
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: await workflowBundle(), replayName: 'replay-test' },
      histories,
    )) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    assert.equal(replayed, files.length);
    assert.deepEqual(failures, []);
  });
});
