/**
 * Headless Chromium for the browser suites (the docs' Mermaid blocks, the playground): the
 * Debian package at /usr/bin/chromium driven by playwright-core, never a browser that a tool
 * downloads. The machine's network is closed, so every background connection Chromium would
 * try is switched off.
 *
 * One browser serves the whole run: the globalSetup (chromium-global.ts) starts it and provides
 * its endpoint, and every suite connects and gets a fresh context (its own cookies, cache and
 * pages). A suite that runs without that globalSetup, or asks for another executable, launches
 * a browser of its own with a fresh profile directory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared Chromium (`''`: none; each suite launches its own or fails). */
    chromiumEndpoint: string;
  }
}

/** How long a suite waits to connect to the run's Chromium before it says so. */
const CONNECT_TIMEOUT_MS = 30_000;

/** How long the run's Chromium may take to start before the globalSetup gives up on it. */
const LAUNCH_TIMEOUT_MS = 60_000;

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

/** The run's shared Chromium, started by the globalSetup, and the way to stop it. */
export interface ChromiumServer {
  /** The WebSocket endpoint suites connect to (loopback only). */
  endpoint: string;
  close(): Promise<void>;
}

/** Starts the run's shared Chromium, or returns `null` when it is missing. */
export async function startChromiumServer(
  path: string = CHROMIUM_PATH,
): Promise<ChromiumServer | null> {
  if (!existsSync(path)) return null;
  const server = await chromium.launchServer({
    executablePath: path,
    headless: true,
    args: ARGS,
    host: '127.0.0.1',
    timeout: LAUNCH_TIMEOUT_MS,
  });
  return { endpoint: server.wsEndpoint(), close: () => server.close() };
}

/** The endpoint the globalSetup provided, `''` outside a vitest run that has it. */
function sharedEndpoint(): string {
  try {
    return inject('chromiumEndpoint') ?? '';
  } catch {
    return '';
  }
}

/**
 * A browser context for one suite: in the run's shared Chromium when there is one (and `path`
 * is the default), else in a Chromium launched at `path`. Throws one line that names the
 * install command when Chromium is missing.
 */
export async function launchChromium(path: string = CHROMIUM_PATH): Promise<Chromium> {
  if (!existsSync(path))
    throw new Error(
      `Chromium is missing at ${path}: install it with \`${CHROMIUM_INSTALL}\` (as root)`,
    );
  const endpoint = path === CHROMIUM_PATH ? sharedEndpoint() : '';
  if (endpoint !== '') {
    const browser = await chromium.connect(endpoint, { timeout: CONNECT_TIMEOUT_MS });
    const context = await browser.newContext();
    return {
      context,
      async close() {
        await context.close();
        // A connected browser's close only disconnects: the run's Chromium stays up.
        await browser.close();
      },
    };
  }
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
