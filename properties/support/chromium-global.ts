/**
 * vitest globalSetup: one headless Chromium for every browser suite of the run (the docs'
 * Mermaid blocks, the playground pages), started once and stopped after the run. Each suite
 * connects to it and works in a browser context of its own (its own cookies, cache and pages),
 * instead of launching and tearing down a browser of its own.
 *
 * Without Chromium it provides no endpoint, and each browser suite fails (or, with
 * MCPR_SKIP_BROWSER=1 outside CI, is skipped) with the one line that names the install command.
 */
import type { TestProject } from 'vitest/node';
import { startChromiumServer } from './chromium.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startChromiumServer();
  project.provide('chromiumEndpoint', server?.endpoint ?? '');
  return async () => {
    await server?.close();
  };
}
