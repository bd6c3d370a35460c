/**
 * continuityGuard against scripted servers on loopback: each rule it applies, shown able to
 * fail (a cursor-skipping mutant server is killed; a mutant machine lets it through), and its
 * timers bounded.
 *
 * No wall-clock assertions (these machines are noisy): a timer is shown to fire by the failure
 * code only it produces (unproven, idle, no-response), and a hang fails on the per-test timeout
 * (30 s in the timers block, the suite's default elsewhere).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import {
  continuityGuard,
  StreamResumptionError,
  type ContinuityGuardOptions,
} from '../../src/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: { server: Server; sockets: Set<Socket> }[] = [];

async function serve(handler: Handler): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer(handler);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ server, sockets });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
}

afterEach(async () => {
  for (const { server, sockets } of servers.splice(0)) {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

const SSE = { 'content-type': 'text/event-stream' };
const ev = (id: number | string, data = '{"jsonrpc":"2.0","method":"x"}') =>
  `id: ${id}\ndata: ${data}\n\n`;
/** A replay acknowledgment; with `head`, it states the server's head (docs/spec.md#caught-up). */
const ack = (after: number, floor: number, head?: number) =>
  `data: {"jsonrpc":"2.0","method":"notifications/mcp-resumption/replay","params":{"stream":"s","after":${after},"floor":${floor}${head === undefined ? '' : `,"head":${head}`}}}\n\n`;

/** A server whose POST stream sends ids 1..3 then ends; GET answers with `resume`. */
function scripted(resume: (cursor: string | undefined, res: ServerResponse) => void): Handler {
  return (req, res) => {
    if (req.method === 'POST') {
      res.writeHead(200, SSE);
      res.end(ev(1) + ev(2) + ev(3));
      return;
    }
    resume(req.headers['last-event-id'] as string | undefined, res);
  };
}

async function drain(res: Response): Promise<string> {
  return await res.text();
}

/** The proof budget of these tests (ms). */
const BUDGET_MS = 1_000;

/** POST (read the whole first stream), then GET with `cursor`, then read it. */
async function resumeThrough(
  url: string,
  options: ContinuityGuardOptions,
  cursor: string | null = '3',
) {
  // A budget the loopback answer meets even on a loaded machine: shorter, and a 200 whose
  // headers come late is judged no-response (the budget ran out before any answer), not the
  // outcome a test asserts.
  const f = continuityGuard(fetch, { proofTimeoutMs: BUDGET_MS, ...options });
  await drain(await f(url, { method: 'POST', body: '{}' }));
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (cursor !== null) headers['last-event-id'] = cursor;
  const res = await f(url, { method: 'GET', headers });
  return drain(res);
}

async function failure(p: Promise<unknown>): Promise<StreamResumptionError | null> {
  try {
    await p;
    return null;
  } catch (e) {
    if (e instanceof StreamResumptionError) return e;
    if (e instanceof Error && e.cause instanceof StreamResumptionError) return e.cause;
    throw e;
  }
}

describe('the rules, each able to fail', () => {
  test('kill: a cursor-skipping server (replays from cursor+2) is refused with skip', async () => {
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end(ev(5) + ev(6))));
    const e = await failure(resumeThrough(url, {}));
    expect(e?.code).toBe('skip');
    expect(e?.outcome).toBe('resumption-failed');
  });

  test('the faithful server (replays from cursor+1) passes, bytes intact', async () => {
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end(ev(4) + ev(5))));
    const body = await resumeThrough(url, {});
    expect(body).toContain('id: 4');
    expect(body).toContain('id: 5');
  });

  test('kill needs the guard: observing only, the skip goes through (and is reported)', async () => {
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end(ev(5))));
    const seen: string[] = [];
    const body = await resumeThrough(url, { enforce: false, onFailure: (e) => seen.push(e.code) });
    expect(body).toContain('id: 5');
    expect(seen).toEqual(['skip']);
  });

  test('kill needs the machine: with the accept-any-200 mutant machine the skip goes through', async () => {
    const mutant = MACHINE_MUTANTS.find((m) => m.name === 'accept-any-200');
    expect(mutant).toBeDefined();
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end(ev(5))));
    const body = await resumeThrough(url, { machine: mutant!.machine });
    expect(body).toContain('id: 5');
  });

  test('a rewind (cursor replayed again) is refused', async () => {
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end(ev(3) + ev(4))));
    expect((await failure(resumeThrough(url, {})))?.code).toBe('rewind');
  });

  test('an event of another stream is refused (cross-stream)', async () => {
    const url = await serve((req, res) => {
      res.writeHead(200, SSE);
      if (req.method === 'POST') res.end(ev('ab-s1-1') + ev('ab-s1-2'));
      else res.end(ev('ab-s2-3'));
    });
    expect((await failure(resumeThrough(url, {}, 'ab-s1-2')))?.code).toBe('cross-stream');
  });

  test('a 200 with nothing but comments states nothing: refused unproven within the proof bound', async () => {
    // (A comment is not the answer's first block, rule 5.1, review S7: the 200 was answered and
    // stated no floor, and no event proves it when the budget runs out, rule 7.4.)
    const url = await serve(
      scripted((_c, res) => res.writeHead(200, SSE).write(': keepalive\n\n')),
    );
    expect((await failure(resumeThrough(url, {})))?.code).toBe('unproven');
  });

  test('an acknowledgment whose head is the cursor is caught up: no clock fails the quiet stream', async () => {
    const url = await serve(
      scripted((_c, res) => {
        res.writeHead(200, SSE).write(ack(3, 1, 3));
        setTimeout(() => res.end(ev(4)), 4 * BUDGET_MS); // far longer than the proof bound
      }),
    );
    const decisions: string[] = [];
    const body = await resumeThrough(url, { onDecision: (d) => decisions.push(d.outcome) });
    expect(body).toContain('id: 4');
    expect(decisions).toEqual(['resumed']);
  });

  test('an acknowledgment whose floor covers the cursor is delayed: no false alarm, then resumed', async () => {
    const url = await serve(
      scripted((_c, res) => {
        res.writeHead(200, SSE).write(ack(3, 1));
        setTimeout(() => res.end(ev(4)), 100); // well within the proof bound
      }),
    );
    const decisions: string[] = [];
    const body = await resumeThrough(url, {
      proofTimeoutMs: 5_000,
      onDecision: (d) => decisions.push(d.outcome),
    });
    expect(body).toContain('id: 4');
    // Delayed while only the acknowledgment proved anything, then resumed by event 4.
    expect(decisions).toEqual(['delayed', 'resumed']);
  });

  test('delayed is bounded too: no event within the proof bound after the acknowledgment fails unproven (rule 7.1)', async () => {
    const url = await serve(
      scripted((_c, res) => {
        res.writeHead(200, SSE).write(ack(3, 1));
        setTimeout(() => res.end(ev(4)), 4 * BUDGET_MS); // far longer than the proof bound
      }),
    );
    const decisions: string[] = [];
    const e = await failure(resumeThrough(url, { onDecision: (d) => decisions.push(d.outcome) }));
    expect(e?.code).toBe('unproven');
    expect(decisions).toEqual(['delayed', 'resumption-failed']);
  });

  test('an acknowledgment whose floor is above cursor+1 is refused (cursor below floor)', async () => {
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end(ack(3, 9) + ev(9))));
    expect((await failure(resumeThrough(url, {})))?.code).toBe('cursor-below-floor');
  });

  test('404 is session-lost: the fetch itself rejects', async () => {
    const url = await serve(scripted((_c, res) => res.writeHead(404).end()));
    const e = await failure(resumeThrough(url, {}));
    expect(e?.outcome).toBe('session-lost');
  });

  test('a reconnect that drops the cursor is refused (cursor-dropped)', async () => {
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end(ev(4))));
    expect((await failure(resumeThrough(url, {}, null)))?.code).toBe('cursor-dropped');
  });

  test('opaque ids: the first stream passes untouched; a resume from such a cursor is refused', async () => {
    const url = await serve((req, res) => {
      res.writeHead(200, SSE);
      if (req.method === 'POST') res.end(ev('s_1733_aa') + ev('s_1733_bb'));
      else res.end(ev('s_1734_cc'));
    });
    const f = continuityGuard(fetch);
    const first = await drain(await f(url, { method: 'POST', body: '{}' }));
    expect(first).toContain('id: s_1733_bb');
    const e = await failure(
      f(url, { method: 'GET', headers: { 'last-event-id': 's_1733_bb' } }).then(drain),
    );
    expect(e?.code).toBe('unproven');
  });

  test('a gap inside an accepted first stream is refused (break)', async () => {
    const url = await serve((_req, res) => res.writeHead(200, SSE).end(ev(1) + ev(2) + ev(4)));
    const f = continuityGuard(fetch);
    expect((await failure(drain(await f(url, { method: 'POST', body: '{}' }))))?.code).toBe(
      'break',
    );
  });
});

describe('polling (MCP 2025-11-25) and id-less data', () => {
  /** POST, then GET with cursor 3 until a stream delivers something or `polls` run out. */
  async function poll(url: string, options: ContinuityGuardOptions, polls: number) {
    const f = continuityGuard(fetch, { proofTimeoutMs: 2_000, ...options });
    await drain(await f(url, { method: 'POST', body: '{}' }));
    const headers = { accept: 'text/event-stream', 'last-event-id': '3' };
    let body = '';
    for (let i = 0; i < polls && !body.includes('id:'); i++) {
      body = await drain(await f(url, { method: 'GET', headers }));
    }
    return body;
  }

  test('a server that ends two resumed streams empty, then sends cursor+1: resumed, no alarm', async () => {
    let gets = 0;
    const url = await serve(
      scripted((_c, res) => {
        gets++;
        res.writeHead(200, SSE).end(gets < 3 ? ': keepalive\n\n' : ev(4));
      }),
    );
    const decisions: string[] = [];
    const body = await poll(url, { onDecision: (d) => decisions.push(d.outcome) }, 5);
    expect(body).toContain('id: 4');
    expect(gets).toBe(3);
    expect(decisions).toEqual(['resumed']);
  });

  test('kill: with the fails-empty-poll mutant machine the first empty poll is refused', async () => {
    const mutant = MACHINE_MUTANTS.find((m) => m.name === 'fails-empty-poll')!;
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end()));
    expect((await failure(poll(url, { machine: mutant.machine }, 3)))?.code).toBe('unproven');
  });

  test('polls that end in a skip are refused (skip)', async () => {
    let gets = 0;
    const url = await serve(
      scripted((_c, res) => res.writeHead(200, SSE).end(++gets < 2 ? '' : ev(9))),
    );
    expect((await failure(poll(url, {}, 3)))?.code).toBe('skip');
  });

  test('an episode that never proves fails when its budget runs out, across polls', async () => {
    const url = await serve(scripted((_c, res) => res.writeHead(200, SSE).end()));
    const failures: string[] = [];
    await poll(url, { proofTimeoutMs: BUDGET_MS, onFailure: (e) => failures.push(e.code) }, 1);
    await new Promise((r) => setTimeout(r, 2 * BUDGET_MS));
    expect(failures).toEqual(['unproven']);
  });

  test('id-less data on the first stream: a later reconnect cannot be proven (idless-data)', async () => {
    const url = await serve((req, res) => {
      res.writeHead(200, SSE);
      if (req.method === 'POST') res.end(ev(1) + ev(2) + ev(3) + 'data: {"no":"id"}\n\n');
      else res.end(ev(4));
    });
    expect((await failure(resumeThrough(url, {})))?.code).toBe('idless-data');
  });

  test('kill: with the idless-is-keepalive mutant machine that reconnect goes through', async () => {
    const mutant = MACHINE_MUTANTS.find((m) => m.name === 'idless-is-keepalive')!;
    const url = await serve((req, res) => {
      res.writeHead(200, SSE);
      if (req.method === 'POST') res.end(ev(1) + ev(2) + ev(3) + 'data: {"no":"id"}\n\n');
      else res.end(ev(4));
    });
    expect(await resumeThrough(url, { machine: mutant.machine })).toContain('id: 4');
  });
});

describe('timers and hostile servers stay bounded', { timeout: 30_000 }, () => {
  test('idle timer: silence on the wire errors the stream after idleTimeoutMs', async () => {
    const url = await serve((_req, res) => res.writeHead(200, SSE).write(ev(1)));
    const f = continuityGuard(fetch, { idleTimeoutMs: 200 });
    await expect(drain(await f(url, { method: 'POST', body: '{}' }))).rejects.toThrow(/idle/);
  });

  test('idle timer: a reader that stops (backpressure) for 3× the timeout is not idle', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, SSE);
      let i = 1;
      const pad = 'x'.repeat(32 * 1024);
      const more = () => {
        while (i <= 200) {
          if (!res.write(ev(i++, `{"pad":"${pad}"}`))) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const f = continuityGuard(fetch, { idleTimeoutMs: 150 });
    const reader = (await f(url, { method: 'POST', body: '{}' })).body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 450)); // the application is busy; nothing is read
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
    }
    expect(bytes).toBeGreaterThan(6_000_000);
  });

  test('an endless stream flows through in constant memory; the reader decides when to stop', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, SSE);
      let i = 1;
      const chunk = 'x'.repeat(16 * 1024);
      const more = () => {
        while (!res.destroyed) {
          if (!res.write(ev(i++, `"${chunk}"`))) return void res.once('drain', more);
        }
      };
      more();
    });
    const f = continuityGuard(fetch);
    const reader = (await f(url, { method: 'POST', body: '{}' })).body!.getReader();
    const heap0 = process.memoryUsage().heapUsed;
    let bytes = 0;
    let peak = 0;
    while (bytes < 40_000_000) {
      const { value } = await reader.read();
      bytes += value!.byteLength;
      peak = Math.max(peak, process.memoryUsage().heapUsed - heap0);
    }
    await reader.cancel();
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });

  test('a 10 MB event is refused at maxEventBytes, in bounded time and memory', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, SSE);
      res.end(`id: 1\ndata: "${'x'.repeat(10 * 1024 * 1024)}"\n\n`);
    });
    const f = continuityGuard(fetch, { maxEventBytes: 1024 * 1024 });
    await expect(drain(await f(url, { method: 'POST', body: '{}' }))).rejects.toThrow(
      /larger than/,
    );
  });

  test('a server that accepts and never answers: the reconnect fails (no-response) in bound', async () => {
    let posts = 0;
    const url = await serve((req, res) => {
      if (req.method === 'POST' && posts++ === 0) return void res.writeHead(200, SSE).end(ev(1));
      // never answers
    });
    const f = continuityGuard(fetch, { proofTimeoutMs: 300 });
    await drain(await f(url, { method: 'POST', body: '{}' }));
    const e = await failure(f(url, { method: 'GET', headers: { 'last-event-id': '1' } }));
    expect(e?.code).toBe('no-response');
  });
});
