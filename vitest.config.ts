import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['properties/**/*.test.ts'],
    // One Redis for the suites that need it (properties/support/redis.ts).
    globalSetup: ['properties/support/redis-global.ts'],
    // Property suites run thousands of interleavings; the per-test budget is generous on
    // purpose (these machines are noisy) and speed is measured in `npm run bench`, not here.
    testTimeout: 120_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});
