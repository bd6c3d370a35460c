/**
 * vitest globalSetup: one headless Chromium for every browser suite of the run (the docs'
 * Mermaid blocks, the playground pages), started once and stopped after the run. Each suite
 * connects to it and works in a browser context of its own (its own cookies, cache and pages),
 * instead of launching and tearing down a browser of its own.
 *
 * Without Chromium it provides no endpoint, and each browser suite fails (or, with
 * MCPR_SKIP_BROWSER=1 outside CI, is skipped) with the one line that names the install command.
 * A Chromium that is there but does not start fails only the browser suites, not the run: each
 * then launches its own and reports why it could not.
 */
import type { TestProject } from 'vitest/node';
import { startChromiumServer, type ChromiumServer } from './chromium.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: ChromiumServer | null = null;
  try {
    server = await startChromiumServer();
  } catch (e) {
    const why = (e as Error).message.split('\n')[0];
    console.warn(
      `the run's shared Chromium did not start (${why}): each browser suite launches its own`,
    );
  }
  project.provide('chromiumEndpoint', server?.endpoint ?? '');
  return async () => {
    await server?.close();
  };
}
