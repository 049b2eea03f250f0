import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Sdk from '../../sdk/dist/index';

const sdkFolder = path.resolve(__dirname, '../../../sdk');

/**
 * The TypeScript client as a tenant installs it: the built package in sdk/ (its package.json's entry
 * point, sdk/dist), never its sources. scripts/lib/build.mjs builds it before the tests.
 */
export const sdk: typeof Sdk = require(sdkFolder);

/** The client package's type generator (an ES module, run with the package's own openapi-typescript). */
export async function typeGenerator(): Promise<{ GENERATED_PATH: string; generateTypes(document: unknown): Promise<string> }> {
  return import(pathToFileURL(path.join(sdkFolder, 'scripts', 'generate-types.mjs')).href);
}
