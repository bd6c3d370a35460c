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

test('a file the browser holds is revalidated, not sent again: 304 on a matching If-None-Match', async () => {
  const url = new URL('app.js', server.url);
  const first = await fetch(url);
  expect(first.status).toBe(200);
  // no-cache (ask before reuse), never no-store: a stored file keeps Chromium's code cache.
  expect(first.headers.get('cache-control')).toBe('no-cache');
  const etag = first.headers.get('etag');
  expect(etag).toMatch(/^"[\w-]+"$/);
  await first.text();
  for (const header of [etag!, `"other", ${etag!}`, `W/${etag!}`, '*']) {
    const again = await fetch(url, { headers: { 'if-none-match': header } });
    expect(again.status, header).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
  }
  // HEAD says the same as GET, without the body.
  const head = await fetch(url, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(head.headers.get('etag')).toBe(etag);
  expect(head.headers.get('content-length')).toBe(String('void 0;'.length));
  const headHit = await fetch(url, { method: 'HEAD', headers: { 'if-none-match': etag! } });
  expect(headHit.status).toBe(304);
});

test('a changed file is sent again with its new ETag: the tag is the content, not the name', async () => {
  writeFileSync(join(root, 'changing.js'), 'let a = 1;');
  const url = new URL('changing.js', server.url);
  const before = await fetch(url);
  const old = before.headers.get('etag');
  expect(await before.text()).toBe('let a = 1;');
  expect(old).not.toBeNull();
  expect(old).not.toBe((await fetch(new URL('app.js', server.url))).headers.get('etag'));
  writeFileSync(join(root, 'changing.js'), 'let a = 2;');
  const after = await fetch(url, { headers: { 'if-none-match': old! } });
  expect(after.status).toBe(200);
  expect(await after.text()).toBe('let a = 2;');
  const fresh = after.headers.get('etag');
  expect(fresh).not.toBeNull();
  expect(fresh).not.toBe(old);
  expect((await fetch(url, { headers: { 'if-none-match': fresh! } })).status).toBe(304);
  // A tag that is not this file's is a 200 with the body.
  const miss = await fetch(url, { headers: { 'if-none-match': '"nope", W/"nope"' } });
  expect(miss.status).toBe(200);
  expect(await miss.text()).toBe('let a = 2;');
});
