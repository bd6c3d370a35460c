import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import HeavyFirst from './properties/support/heavy-first.js';

export default defineConfig({
  test: {
    include: ['properties/**/*.test.ts'],
    // One Redis for the suites that need it (properties/support/redis.ts), and one Chromium
    // for the browser suites (properties/support/chromium.ts): each started once per run.
    globalSetup: ['properties/support/redis-global.ts', 'properties/support/chromium-global.ts'],
    // Property suites run thousands of interleavings; the per-test budget is generous on
    // purpose (these machines are noisy) and speed is measured in `npm run bench`, not here.
    testTimeout: 120_000,
    hookTimeout: 30_000,
    // vitest's default is one worker fewer than the cores: a single worker on a 2-core
    // machine, where every file then waits for the one before it. Many files mostly wait (on
    // npm, servers, a browser, Redis), so one worker more than the cores keeps both busy while
    // the CPU-bound files run.
    maxWorkers: availableParallelism() + 1,
    // One process per worker for all the files it runs, instead of a fresh one per file: the
    // ~100 files each paid for starting a process and importing xstate, fast-check and the
    // model again (about 90 s of CPU in a full run on the 2-core machine, a third of the
    // whole). Shared state is what a file leaves behind: the suites restore what they change
    // (real timers after fake ones, spies restored), and the caches they share (the machine's
    // transition memo, the compiled page bundle) are pure.
    isolate: false,
    // A 64 MB young generation (V8's default is 16 MB): the property suites allocate
    // short-lived objects fast, and with the default most are copied by a scavenge before they
    // die. 13-15% less CPU for the model, world, verify and trace suites on the 2-core machine
    // (same flag for lint and typecheck: properties/support/test-all.mjs).
    execArgv: ['--max-semi-space-size=64'],
    // The heavy files start first, so that the light ones fill the gaps around them.
    sequence: { sequencer: HeavyFirst },
    reporters: ['default', './properties/support/slowest-files.ts'],
  },
});
