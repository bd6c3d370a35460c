/**
 * A Redis for the harness and the tests: `REDIS_URL` when it is set, else a `redis-server` of
 * its own on a free loopback port, without persistence, stopped when done.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './tcp-front.js';

/** The one-line hint printed when no Redis can be had. */
export const REDIS_INSTALL_HINT =
  'set REDIS_URL, or install redis-server (Debian/Ubuntu: apt-get install redis-server)';

/** A Redis to use, or why there is none. */
export type RedisHandle =
  { url: string; stop(): Promise<void>; spawned: boolean } | { url: null; reason: string };

/** Whether something answers on `port` of 127.0.0.1. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** The `redis-server` binary on PATH (or in /usr/bin, /usr/sbin), `null` when none. */
export function findRedisServer(): string | null {
  for (const bin of ['redis-server', '/usr/bin/redis-server', '/usr/sbin/redis-server']) {
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return bin;
  }
  return null;
}

/**
 * `REDIS_URL` if set; else starts `redis-server --port <free> --bind 127.0.0.1 --save ''
 * --appendonly no` and waits (at most 5 s) until it answers; else `{ url: null, reason }`.
 */
export async function startRedis(env: NodeJS.ProcessEnv = process.env): Promise<RedisHandle> {
  if (env.REDIS_URL) return { url: env.REDIS_URL, spawned: false, stop: async () => {} };
  const bin = findRedisServer();
  if (bin === null) return { url: null, reason: `no redis-server found; ${REDIS_INSTALL_HINT}` };
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child: ChildProcess = spawn(bin, [...args, '--protected-mode', 'no'], {
    stdio: 'ignore',
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 5000;
  while (!(await answers(port))) {
    if (exited || Date.now() > deadline) {
      child.kill('SIGKILL');
      return { url: null, reason: `redis-server did not start on port ${port}` };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    spawned: true,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
