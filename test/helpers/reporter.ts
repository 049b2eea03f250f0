import { appendFileSync } from 'node:fs';
import Mocha from 'mocha';
import { runnableStarted } from './deadline';

const { EVENT_HOOK_BEGIN, EVENT_HOOK_END, EVENT_TEST_BEGIN, EVENT_TEST_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

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
    const timings = process.env.TEST_TIMINGS_FILE;
    if (timings) {
      const started = new Map<unknown, number>();
      const write = (kind: string, title: string, file: string | undefined, ms: number) =>
        appendFileSync(timings, `${JSON.stringify({ kind, title, file, ms })}\n`);
      runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => started.set(suite, Date.now()));
      runner.on(EVENT_SUITE_END, (suite: Mocha.Suite) =>
        write('suite', suite.fullTitle(), suite.file, Date.now() - (started.get(suite) ?? Date.now())),
      );
      runner.on(EVENT_HOOK_BEGIN, (hook: Mocha.Hook) => started.set(hook, Date.now()));
      runner.on(EVENT_HOOK_END, (hook: Mocha.Hook) =>
        write('hook', hook.fullTitle(), hook.file, Date.now() - (started.get(hook) ?? Date.now())),
      );
      runner.on(EVENT_TEST_END, (test: Mocha.Test) => write('test', test.fullTitle(), test.file, test.duration ?? 0));
    }
  }
}
