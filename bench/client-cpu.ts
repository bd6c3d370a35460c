/**
 * `npm run bench client-cpu`: what the guard costs where users feel it (issue 37). An SDK
 * `Client` (1.x and 2.x) receives 100,000 progress notifications in one call, through bare
 * `fetch` and through `continuityGuard` with the README's settings, in alternating rounds; each
 * round's figure is the client process's CPU time (user + system, `process.cpuUsage()`) per
 * notification, from the call's request to its result. The server runs in a process of its own
 * (bench/client-cpu-server.ts), so only the client's work is counted. Target: guarded / bare at
 * most 1.10 (the guard adds at most 10% CPU per message), judged on the median of the rounds;
 * a miss prints a `FAIL` line.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { continuityGuard } from '../src/runtime/index.js';
import { medianRate, pairsWanted, pairUp, spread, type Slice } from './alternate.js';
import type { Bench } from './bench.js';

const N = 100_000;
/** The target: guarded CPU per message over bare. */
const TARGET = 1.1;
/** Bound on the server's start and on one call. */
const START_WITHIN_MS = 10_000;
const CALL_TIMEOUT_MS = 300_000;

/** The server process: its URL, and how to stop it. */
async function startServer(): Promise<{ url: string; stop: () => void }> {
  const script = fileURLToPath(new URL('./client-cpu-server.js', import.meta.url));
  const child = spawn(process.execPath, [script, String(N)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('client-cpu server did not start')),
      START_WITHIN_MS,
    );
    child.stdout.once('data', (d: Buffer) => {
      clearTimeout(timer);
      resolve(Number(d.toString().trim()));
    });
    child.once('exit', () => reject(new Error('client-cpu server exited')));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

type Sdk = 'v1' | 'v2';

/** One measured call: connects (not measured), then the call's CPU time; `units` = notifications. */
async function slice(sdk: Sdk, url: string, guarded: boolean): Promise<Slice> {
  let failures = 0;
  const fetchFn = guarded
    ? continuityGuard(fetch, { idleTimeoutMs: 60_000, onFailure: () => failures++ })
    : fetch;
  let seen = 0;
  const onprogress = () => void seen++;
  const info = { name: 'client-cpu', version: '1.0.0' };
  const request = { name: 'work', arguments: {} };
  let before: NodeJS.CpuUsage;
  let used: NodeJS.CpuUsage;
  if (sdk === 'v1') {
    const client = new ClientV1(info);
    await client.connect(new TransportV1(new URL(url), { fetch: fetchFn }));
    before = process.cpuUsage();
    await client.callTool(request, undefined, { onprogress, timeout: CALL_TIMEOUT_MS });
    used = process.cpuUsage(before);
    await client.close();
  } else {
    const client = new ClientV2(info);
    await client.connect(new TransportV2(new URL(url), { fetch: fetchFn }));
    before = process.cpuUsage();
    await client.callTool(request, { onprogress, timeout: CALL_TIMEOUT_MS });
    used = process.cpuUsage(before);
    await client.close();
  }
  if (seen !== N || failures > 0) {
    throw new Error(
      `client-cpu: ${sdk} ${guarded ? 'guarded' : 'bare'} saw ${seen} of ${N} notifications, ${failures} failures`,
    );
  }
  return { units: N, secs: (used.user + used.system) / 1e6 };
}

/** See the module comment. */
export const clientCpuBench: Bench = {
  name: 'client-cpu',
  summary:
    'CPU per message of an SDK Client receiving 100,000 progress notifications, guarded vs bare',
  async run(log) {
    const server = await startServer();
    const lines: string[] = [];
    try {
      const rounds = pairsWanted();
      for (const sdk of ['v1', 'v2'] as const) {
        await slice(sdk, server.url, false); // warm-up
        await slice(sdk, server.url, true);
        const bare: Slice[] = [];
        const guard: Slice[] = [];
        for (let i = 0; i < rounds; i++) {
          bare.push(await slice(sdk, server.url, false));
          guard.push(await slice(sdk, server.url, true));
          const r = guard[i]!.secs / bare[i]!.secs;
          log(`${sdk} round ${i + 1}/${rounds}: guarded/bare ${r.toFixed(3)}`);
        }
        const ratio = pairUp(bare, guard, (b, s) => b / s);
        const us = (s: Slice[]) => (1e6 / medianRate(s)).toFixed(2);
        const met = ratio.median <= TARGET;
        const name = sdk === 'v1' ? 'SDK 1.32.2 Client' : 'SDK 2.4.0 Client';
        lines.push(
          `${name}, ${N} progress notifications in one call: CPU per message bare ${us(bare)} µs, guarded ${us(guard)} µs; guarded/bare ${spread(ratio, 3)} (target <= ${TARGET.toFixed(2)}: ${met ? 'met' : 'not met'})`,
        );
        if (!met) {
          lines.push(
            `FAIL ${name}: the guard adds ${((ratio.median - 1) * 100).toFixed(1)}% CPU per message (target at most ${((TARGET - 1) * 100).toFixed(0)}%)`,
          );
        }
      }
    } finally {
      server.stop();
    }
    return lines;
  },
};
