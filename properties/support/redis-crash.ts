/**
 * A redis-server of a test's own that can be killed -9 and restarted on the same port and data
 * directory: for the crash-and-restart case of the store contract (properties/redis/
 * store-contract.test.ts). Each persistence mode is the command-line settings that select it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { findRedisServer } from '../../src/conformance/adapters/redis-server.js';
import { freePort } from '../../src/conformance/adapters/tcp-front.js';
import type { RedisClient } from '../../src/redis/index.js';
import { connectRedis } from './redis.js';

/** A persistence mode: its name and the redis-server settings that select it. */
export interface Persistence {
  name: string;
  args: string[];
}

/** The modes the crash case runs: none, RDB snapshots, AOF (everysec, always). */
export const PERSISTENCE: Persistence[] = [
  { name: 'no persistence', args: ['--save', '', '--appendonly', 'no'] },
  { name: 'RDB (save 3600 1)', args: ['--save', '3600 1', '--appendonly', 'no'] },
  {
    name: 'AOF (appendfsync everysec)',
    args: ['--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'],
  },
  {
    name: 'AOF (appendfsync always)',
    args: ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
  },
];

/** A redis-server that can be killed -9 and restarted with its data directory. */
export interface CrashableRedis {
  url: string;
  /** SIGKILL, then wait (bounded) for the process to be gone. */
  kill9(): Promise<void>;
  /**
   * Starts it again on the same port and directory, with `extra` settings added for this start
   * (e.g. another `--maxmemory-policy`); resolves when it answers.
   */
  restart(extra?: string[]): Promise<void>;
  /** Kills it and removes its directory. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a redis-server on `port` serves commands (`PING` answers `+PONG`, not `-LOADING`). */
function serves(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => done(d.toString().startsWith('+PONG')));
    s.once('error', () => done(false));
  });
}

/** Starts a redis-server with `persistence` in a fresh temp directory on a free loopback port. */
export async function crashableRedis(persistence: Persistence): Promise<CrashableRedis> {
  const bin = findRedisServer();
  if (bin === null) throw new Error('no redis-server found');
  const dir = mkdtempSync(join(tmpdir(), 'mcpr-redis-crash-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--protected-mode', 'no'];
  args.push('--dir', dir, ...persistence.args);
  let child: ChildProcess | undefined;
  let exited = true;
  const start = async (extra: string[] = []) => {
    child = spawn(bin, [...args, ...extra], { stdio: 'ignore' });
    exited = false;
    child.once('exit', () => (exited = true));
    const deadline = Date.now() + 15_000;
    while (!(await serves(port))) {
      if (exited || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`redis-server (${persistence.name}) did not start on port ${port}`);
      }
      await sleep(25);
    }
  };
  const kill9 = async () => {
    if (!child || exited) return;
    const gone = new Promise<void>((r) => child!.once('exit', () => r()));
    child.kill('SIGKILL');
    await Promise.race([gone, sleep(5000)]);
    if (!exited) throw new Error('redis-server survived SIGKILL for 5 s');
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill9,
    restart: start,
    stop: async () => {
      await kill9();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A redis-server of the test's own with `args`, a client, and cleanup. */
export async function withRedis<T>(
  persistence: Persistence,
  run: (c: RedisClient, redis: Awaited<ReturnType<typeof crashableRedis>>) => Promise<T>,
): Promise<T> {
  const redis = await crashableRedis(persistence);
  const c = await connectRedis(redis.url);
  try {
    return await run(c, redis);
  } finally {
    c.destroy();
    await redis.stop();
  }
}
