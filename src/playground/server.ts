/**
 * The playground's web server: static files from one folder, on 127.0.0.1 only, on a free
 * port unless one is asked for. Nothing else: the page does everything in the browser.
 *
 * Caching: every response says `no-cache` (the browser must ask again before it reuses a file)
 * and carries a strong ETag, the hash of the file's bytes; a request whose If-None-Match names
 * it is answered 304 with no body. A rebuilt page is therefore always fetched fresh (its ETag
 * changed), while an unchanged mermaid.min.js (3 MB) is neither sent again nor recompiled:
 * Chromium keeps its V8 code cache only for responses it may store, which `no-store` forbade.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** A running static server. */
export interface StaticServer {
  /** `http://127.0.0.1:PORT/`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The file under `root` that `urlPath` names, or `null` if it would leave `root`. */
export function resolveUnder(root: string, urlPath: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(urlPath.split('?')[0]!.split('#')[0]!);
  } catch {
    return null;
  }
  if (path.endsWith('/')) path += 'index.html';
  const file = normalize(join(root, path));
  return file === root || file.startsWith(root.endsWith(sep) ? root : root + sep) ? file : null;
}

/** The strong ETag of `body`: a quoted hash of its bytes. */
export function etagOf(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/**
 * Whether an If-None-Match header names `etag` (RFC 9110 13.1.2: `*`, or a list of entity tags
 * compared weakly, so `W/"x"` matches `"x"`).
 */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Serves `root` on 127.0.0.1:`port` (0: a free port). */
export async function serveStatic(root: string, port = 0): Promise<StaticServer> {
  const server: Server = createServer((req, res) => {
    const file =
      req.method === 'GET' || req.method === 'HEAD' ? resolveUnder(root, req.url ?? '/') : null;
    if (file === null) {
      res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 403 : 405).end();
      return;
    }
    readFile(file).then(
      (body) => {
        const etag = etagOf(body);
        const headers = { 'cache-control': 'no-cache', etag };
        if (noneMatchHits(req.headers['if-none-match'], etag)) {
          res.writeHead(304, headers).end();
          return;
        }
        res.writeHead(200, {
          ...headers,
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'content-length': body.byteLength,
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address !== null ? address.port : port;
  return {
    url: `http://127.0.0.1:${actual}/`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
