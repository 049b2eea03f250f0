import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

describe('the build', () => {
  it('removes compiled files whose source is gone (a renamed migration is not run twice), and keeps the rest', async () => {
    const { pruneOrphans } = (await import(pathToFileURL(path.resolve(__dirname, '../../../scripts/lib/build.mjs')).href)) as {
      pruneOrphans: (root: string) => void;
    };
    const root = mkdtempSync(path.join(os.tmpdir(), 'build-pruning-'));
    try {
      const file = (relative: string) => {
        mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
        writeFileSync(path.join(root, relative), '');
      };
      for (const relative of [
        'migrations/2_kept.ts',
        'dist/migrations/2_kept.js',
        'dist/migrations/2_kept.js.map',
        'dist/migrations/1_renamed.js',
        'dist/migrations/1_renamed.js.map',
      ])
        file(relative);
      for (const relative of ['src/a/b.ts', 'dist/src/a/b.js', 'dist/src/a/gone.js', 'dist/dashboard/app.js', 'dist/workflow-bundle.js'])
        file(relative);
      pruneOrphans(root);
      const left = [
        'dist/migrations/2_kept.js',
        'dist/migrations/2_kept.js.map',
        'dist/src/a/b.js',
        'dist/dashboard/app.js',
        'dist/workflow-bundle.js',
      ];
      const gone = ['dist/migrations/1_renamed.js', 'dist/migrations/1_renamed.js.map', 'dist/src/a/gone.js'];
      assert.deepEqual(
        left.filter((relative) => !existsSync(path.join(root, relative))),
        [],
      );
      assert.deepEqual(
        gone.filter((relative) => existsSync(path.join(root, relative))),
        [],
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
