/**
 * A client from npm outside the SDK family: `@ai-sdk/mcp` (1.0), which has its own HTTP
 * transport. Found here: it never reconnects a tool call's stream, so when the stream breaks
 * the call waits for ever (with or without the guard, which sees no request after the break,
 * and a faithful server cannot help either). With `clientResumes: false` the guard knows no
 * reconnect will come, and ends the call at once with its error the moment the stream breaks.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { afterEach, expect, test } from 'vitest';
import {
  continuityGuard,
  resumptionFailureOf,
  type StreamResumptionError,
} from '../../src/runtime/index.js';
import { callServer, type CallServer, type Resume } from './call-server.js';

const running: CallServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
});

/** Calls `count` once through @ai-sdk/mcp; `'waiting'` when it has not settled after `ms`. */
async function callOnce(url: string, fetchFn: typeof fetch, ms: number) {
  const client = await createMCPClient({ transport: { type: 'http', url, fetch: fetchFn } });
  try {
    const tools = await client.tools();
    const call = tools.count!.execute!({}, { toolCallId: 'c1', messages: [] }) as Promise<unknown>;
    return await Promise.race([
      call.then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      ),
      new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), ms)),
    ]);
  } finally {
    await client.close().catch(() => {});
  }
}

test.each(['faithful', 'skip', '405'] as Resume[])(
  'resume %s: the call waits (no reconnect is ever sent); with clientResumes: false it ends at once',
  async (resume) => {
    const bare = await callServer({ resume });
    running.push(bare);
    expect(await callOnce(bare.url, continuityGuard(fetch), 1_500)).toBe('waiting');
    expect(bare.seen.filter((x) => x.lastEventId !== undefined)).toEqual([]);

    const s = await callServer({ resume });
    running.push(s);
    const failures: StreamResumptionError[] = [];
    const f = continuityGuard(fetch, { clientResumes: false, onFailure: (e) => failures.push(e) });
    const t0 = Date.now();
    const got = await callOnce(s.url, f, 20_000);
    console.log(`[@ai-sdk/mcp] resume ${resume}: the call ended after ${Date.now() - t0} ms`);
    expect(got).not.toBe('waiting');
    const error = (got as { error?: unknown }).error;
    expect(failures.map((e) => [e.method, e.code])).toEqual([['tools/call', 'cursor-dropped']]);
    // What the client surfaces: the guard's JSON-RPC error, read back.
    expect(resumptionFailureOf(error) ?? String(error)).toMatchObject({
      outcome: 'resumption-failed',
    });
  },
  30_000,
);
