/** The playground's static server: files under its folder on 127.0.0.1, nothing outside it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { resolveUnder, serveStatic, type StaticServer } from '../../src/playground/server.js';

const root = mkdtempSync(join(tmpdir(), 'mcpr-static-'));
let server: StaticServer;

beforeAll(async () => {
  writeFileSync(join(root, 'index.html'), '<p>hi</p>');
  writeFileSync(join(root, 'app.js'), 'void 0;');
  server = await serveStatic(root);
});
afterAll(() => server.close());

test('serves the folder on 127.0.0.1 with content types, index.html for /', async () => {
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  const page = await fetch(server.url);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await page.text()).toBe('<p>hi</p>');
  const js = await fetch(new URL('app.js', server.url));
  expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect((await fetch(new URL('missing.js', server.url))).status).toBe(404);
  expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
});

test('refuses every path that leaves the folder', async () => {
  expect(resolveUnder(root, '/../etc/passwd')).toBeNull();
  expect(resolveUnder(root, '/%2e%2e/%2e%2e/etc/passwd')).toBeNull();
  expect(resolveUnder(root, '/%E0%A4%A')).toBeNull();
  expect(resolveUnder(root, '/a/../app.js')).toBe(join(root, 'app.js'));
  // fetch() would normalize the dots away: a raw request sends them as a client may.
  const status = await new Promise<number | undefined>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path: '/../../etc/passwd' },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', reject);
    req.end();
  });
  expect(status).toBe(403);
});
