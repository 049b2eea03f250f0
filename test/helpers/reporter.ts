import Mocha from 'mocha';
import { runnableStarted } from './deadline';

const { EVENT_HOOK_BEGIN, EVENT_TEST_BEGIN } = Mocha.Runner.constants;

/**
 * Mocha's spec reporter, which also tells test/helpers/deadline.ts when each hook and test starts, so a
 * wait can run until just before mocha would time it out instead of for a fixed guess.
 * scripts/test.mjs runs every layer with it (mocha --reporter dist/test/helpers/reporter.js).
 */
export default class SpecReporterWithDeadlines extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.on(EVENT_HOOK_BEGIN, (hook: Mocha.Hook) => runnableStarted(hook));
    runner.on(EVENT_TEST_BEGIN, (test: Mocha.Test) => runnableStarted(test));
  }
}
