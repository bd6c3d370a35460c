/**
 * Headless Chromium for the browser suites (the docs' Mermaid blocks, the playground): the
 * Debian package at /usr/bin/chromium driven by playwright-core, never a browser that a tool
 * downloads. The machine's network is closed, so every background connection Chromium would
 * try is switched off, and each launch gets a fresh profile directory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where Chromium is expected (`MCPR_CHROMIUM` overrides it). */
export const CHROMIUM_PATH = process.env.MCPR_CHROMIUM ?? '/usr/bin/chromium';

/** The one command that installs it (as root; `.ci/run` does it on a fresh machine). */
export const CHROMIUM_INSTALL = 'apt-get update && apt-get install -y chromium';

/** The flags the machine needs: no sandbox as root, no GPU, no background network. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * `true` when the browser suites may be skipped: Chromium is missing and the developer said
 * so with `MCPR_SKIP_BROWSER=1`. Under `CI=true` they never are: a missing browser fails.
 */
export function skipBrowserSuites(): boolean {
  return (
    !existsSync(CHROMIUM_PATH) && process.env.MCPR_SKIP_BROWSER === '1' && process.env.CI !== 'true'
  );
}

/** A running browser and the way to stop it (and remove its profile). */
export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium (at `path`), or throws one line that names the install command. */
export async function launchChromium(path: string = CHROMIUM_PATH): Promise<Chromium> {
  if (!existsSync(path))
    throw new Error(
      `Chromium is missing at ${path}: install it with \`${CHROMIUM_INSTALL}\` (as root)`,
    );
  const profile = mkdtempSync(join(tmpdir(), 'mcpr-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: path,
    headless: true,
    args: ARGS,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
