/** Without Chromium the browser suites fail with one line that says how to install it. */
import { expect, test } from 'vitest';
import { CHROMIUM_INSTALL, launchChromium } from '../support/chromium.js';

test('a missing Chromium is one line naming the install command', async () => {
  const err = await launchChromium('/nonexistent/chromium').then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(err?.message).toBe(
    `Chromium is missing at /nonexistent/chromium: install it with \`${CHROMIUM_INSTALL}\` (as root)`,
  );
  expect(err?.message.split('\n')).toHaveLength(1);
});
