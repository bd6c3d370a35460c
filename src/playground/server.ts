/**
 * The playground's web server: static files from one folder, on 127.0.0.1 only, on a free
 * port unless one is asked for. Nothing else: the page does everything in the browser.
 */
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
        res.writeHead(200, {
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'cache-control': 'no-store',
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
