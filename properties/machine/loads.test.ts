/**
 * Every module of the decision core and the oracle loads, imported inside a test. A mutant that
 * makes a module throw while it loads (a state machine definition that xstate refuses, say)
 * fails every test file that imports it at the top, and Stryker's vitest runner counts a file
 * that fails to load as no test run at all (stryker-js #6150): this test turns such a mutant
 * into a failed test, so it is counted killed.
 */
import { expect, test } from 'vitest';

const MODULES = [
  '../../model/guards.js',
  '../../model/reasons.js',
  '../../model/client-machine.js',
  '../../model/run.js',
  '../../src/reference.js',
  '../../src/trace/format.js',
  '../../src/trace/engine.js',
  '../../src/trace/checker.js',
];

test.each(MODULES)('%s loads', async (path) => {
  const m = (await import(path)) as Record<string, unknown>;
  expect(Object.keys(m).length).toBeGreaterThan(0);
});

test('the client machine is built and starts in connecting', async () => {
  const { clientMachine } = await import('../../model/client-machine.js');
  const { initialSnapshot, stateOf } = await import('../../model/run.js');
  expect(stateOf(initialSnapshot(clientMachine))).toBe('connecting');
});
