/**
 * `npm run playground` (src/playground/cli.ts): --help, a bad option, and a real start: it
 * builds, prints its URL, serves the page, and stops on Ctrl-C (SIGINT) with exit 0.
 *
 * `npm run playground` runs the CLI built into dist/; this suite bundles the same source with
 * esbuild into reports/ instead, because another suite (`npm pack` in packed-install) rebuilds
 * dist/ while the suites run in parallel.
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import { bundleForNode } from '../support/bundle.js';

const CLI = fileURLToPath(new URL('../../reports/playground-cli/cli.mjs', import.meta.url));

beforeAll(async () => {
  await bundleForNode(fileURLToPath(new URL('../../src/playground/cli.ts', import.meta.url)), CLI);
});

test('--help says what the playground is and how to stop it', () => {
  const r = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^Usage: npm run playground \[-- --port N\]/);
  expect(r.stdout).toMatch(/until Ctrl-C/);
});

test('a bad option is one line and exit 2', () => {
  for (const args of [['--port', 'x'], ['--bogus']]) {
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  }
});

test('serves the page on 127.0.0.1 and stops on SIGINT', async () => {
  const child = spawn(process.execPath, [CLI], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /playground: (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl-C stops\)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before serving: ${out}`)));
  });
  try {
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>mcp-resumption playground</title>');
    expect((await fetch(new URL('app.js', url))).status).toBe(200);
    expect((await fetch(new URL('mermaid.min.js', url))).status).toBe(200);
  } finally {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }
  expect(out).toMatch(/playground: stopped\n$/);
});
