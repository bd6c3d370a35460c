/**
 * Hostile server behaviour at the HTTP level, as fast-check arbitraries, and the server that
 * plays it. The server keeps one true log per call: notes 1..N then the result (id N+1), ids
 * `s1-<seq>`. What it sends on a resume is chosen relative to the cursor it is sent
 * (`Last-Event-ID`), so a faithful replay, a skip, a rewind, a reissue (an old id with other
 * content) and another stream's events are all one draw away. A redirect points at a second
 * server whose events carry another log's content.
 */
import fc from 'fast-check';
import { REPLAY_ACK_METHOD } from '../../src/runtime/continuity-store.js';
import { hostile, SSE_HEADERS, type Answer, type Hostile, type Step } from './hostile.js';

/** The id the suite's servers use: stream and sequence. */
export const ID_PATTERN = /^(?<stream>s\d+)-(?<seq>\d+)$/;

/** The proof budget the suite's guards run with (ms). */
export const BUDGET_MS = 150;

/** One item of a resumed stream's body. */
export type Item =
  /** Events from cursor+offset on, up to the result (offset 1: faithful; >1 skip; <1 rewind). */
  | { kind: 'from'; offset: number; count: number; reissue: boolean }
  | { kind: 'other-stream' }
  | { kind: 'comment' }
  | { kind: 'idless' }
  /** A replay acknowledgment stating floor cursor+floorOffset. */
  | { kind: 'ack'; floorOffset: number }
  /** An id-only block at cursor+offset. */
  | { kind: 'id-only'; offset: number }
  | { kind: 'retry'; value: string }
  | { kind: 'wait'; ms: number };

/** How a body ends. */
export type Ending = 'end' | 'destroy' | 'hold';

/** One scripted answer to a GET. */
export interface GetScript {
  status: 200 | 404 | 500 | 307;
  contentType: 'text/event-stream' | 'text/html' | 'application/json' | null;
  headerDelayMs: number;
  items: Item[];
  ending: Ending;
  /** Byte offsets at which the body is cut into separate writes. */
  cuts: number[];
}

/** A whole run: the first stream, then the answers to the GETs in order. */
export interface Scenario {
  /** Notes in the true log (the result is N+1). */
  owed: number;
  /** Notes the first stream sends before it ends (≤ owed; `owed + 1`: it sends the result). */
  firstSends: number;
  firstEnding: Ending;
  firstCuts: number[];
  gets: GetScript[];
  /** For the direct client: whether each reconnect sends its cursor. */
  sendCursor: boolean[];
}

/** What may come before or after a replay: none of it proves anything. */
const aside: fc.Arbitrary<Item> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'comment' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'other-stream' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'idless' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('ack' as const),
      floorOffset: fc.constantFrom(1, 0, 3),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('id-only' as const),
      // Not at cursor+1: there it would declare the owed message an empty event, which no
      // client can tell from a priming event (id-only-blocks.test.ts shows it proves a resume).
      offset: fc.constantFrom(3, 0),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('retry' as const),
      value: fc.constantFrom('0', '5', '1000000000000', '10000000000000000000000000', '-5'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.constantFrom(20, BUDGET_MS / 2, BUDGET_MS + 60),
    }),
  },
);

/** A replay from cursor+offset: faithful (1), a skip (2, 4), a rewind or reissue (0, -1). */
const replay: fc.Arbitrary<Item> = fc.record({
  kind: fc.constant('from' as const),
  offset: fc.constantFrom(1, 1, 1, 2, 4, 0, -1),
  count: fc.integer({ min: 1, max: 6 }),
  reissue: fc.boolean(),
});

/** A body: things that prove nothing, a replay (or none: an empty poll), more of anything. */
const items: fc.Arbitrary<Item[]> = fc
  .tuple(
    fc.array(aside, { maxLength: 2 }),
    fc.option(replay, { freq: 3 }),
    fc.array(fc.oneof(aside, replay), { maxLength: 2 }),
  )
  .map(([before, main, after]) => [...before, ...(main ? [main] : []), ...after]);

const cuts = fc.array(fc.nat({ max: 400 }), { maxLength: 3 });

const getScript: fc.Arbitrary<GetScript> = fc.record({
  status: fc.constantFrom(200, 200, 200, 200, 200, 200, 404, 500, 307, 307),
  contentType: fc.constantFrom(
    'text/event-stream',
    'text/event-stream',
    'text/event-stream',
    'text/event-stream',
    'text/event-stream',
    'text/html',
    'application/json',
    null,
  ),
  headerDelayMs: fc.constantFrom(0, 0, 0, 40, BUDGET_MS + 60),
  items,
  ending: fc.constantFrom('end', 'end', 'destroy', 'hold'),
  cuts,
});

/** An empty poll: a 200 stream that proves nothing and ends after a while. */
const emptyPoll: fc.Arbitrary<GetScript> = fc.record({
  status: fc.constant(200 as const),
  contentType: fc.constant('text/event-stream' as const),
  headerDelayMs: fc.constantFrom(0, 20),
  items: fc.constantFrom<Item[]>(
    [{ kind: 'wait', ms: BUDGET_MS / 2 }],
    [{ kind: 'comment' }, { kind: 'wait', ms: BUDGET_MS / 2 }],
  ),
  ending: fc.constant('end' as const),
  cuts: fc.constant([]),
});

/** The answers to the GETs: any, or a run of empty polls before any (an episode of polls). */
const gets: fc.Arbitrary<GetScript[]> = fc.oneof(
  { weight: 3, arbitrary: fc.array(getScript, { minLength: 1, maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(emptyPoll, { minLength: 2, maxLength: 4 }), getScript)
      .map(([polls, last]) => [...polls, last]),
  },
);

/** A scenario: a first stream cut short (mostly), then the answers to the GETs. */
export const scenario: fc.Arbitrary<Scenario> = fc.integer({ min: 2, max: 5 }).chain((owed) =>
  fc.record({
    owed: fc.constant(owed),
    firstSends: fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1, max: owed - 1 }) },
      { weight: 1, arbitrary: fc.constant(owed + 1) },
      { weight: 1, arbitrary: fc.constant(0) },
    ),
    firstEnding: fc.constantFrom('end', 'destroy'),
    firstCuts: cuts,
    gets,
    sendCursor: fc.array(
      fc.oneof(
        { weight: 5, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      { minLength: 6, maxLength: 6 },
    ),
  }),
);

/** The i-th message of the true log (`from`: which log; another server's is another call). */
export function message(i: number, owed: number, from = 'log'): unknown {
  if (i === owed + 1) return { jsonrpc: '2.0', id: 1, result: { content: [], from } };
  return {
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data: { i, from } },
  };
}

const event = (stream: string, seq: number, data: unknown) =>
  `id: ${stream}-${seq}\ndata: ${JSON.stringify(data)}\n\n`;

/** The body text of a first stream. */
function firstBody(s: Scenario): string {
  let out = '';
  for (let i = 1; i <= Math.min(s.firstSends, s.owed + 1); i++)
    out += event('s1', i, message(i, s.owed));
  return out;
}

function seqOf(lastEventId: string | undefined): number | null {
  const m = lastEventId === undefined ? null : ID_PATTERN.exec(lastEventId);
  return m?.groups ? Number(m.groups.seq) : null;
}

/** The body text of a resumed stream, relative to cursor `c`. */
function resumeBody(g: GetScript, c: number, owed: number, from: string): Step[] {
  const steps: Step[] = [];
  let text = '';
  const flush = () => {
    if (text) steps.push({ write: text });
    text = '';
  };
  for (const it of g.items) {
    switch (it.kind) {
      case 'from':
        for (let k = 0; k < it.count; k++) {
          const seq = c + it.offset + k;
          if (seq < 1 || seq > owed + 1) break;
          const data =
            it.reissue && seq <= c ? message(seq, owed, 'reissued') : message(seq, owed, from);
          text += event('s1', seq, data);
        }
        break;
      case 'other-stream':
        text += event('s2', c + 1, message(c + 1, owed, 'other-stream'));
        break;
      case 'comment':
        text += ': keepalive\n\n';
        break;
      case 'idless':
        text += `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'idless' } })}\n\n`;
        break;
      case 'ack':
        text += `data: ${JSON.stringify({ jsonrpc: '2.0', method: REPLAY_ACK_METHOD, params: { stream: 's1', after: c, floor: c + it.floorOffset, head: owed + 1 } })}\n\n`;
        break;
      case 'id-only':
        if (c + it.offset >= 1) text += `id: s1-${c + it.offset}\n\n`;
        break;
      case 'retry':
        text += `retry: ${it.value}\n\n`;
        break;
      case 'wait':
        flush();
        steps.push({ wait: it.ms });
        break;
    }
  }
  flush();
  return steps;
}

/** Cuts the writes of `steps` at the given byte offsets (inside CRLF and UTF-8 sequences too). */
function cutSteps(steps: Step[], at: number[]): Step[] {
  const out: Step[] = [];
  for (const step of steps) {
    if (!('write' in step)) {
      out.push(step);
      continue;
    }
    const bytes =
      typeof step.write === 'string' ? new TextEncoder().encode(step.write) : step.write;
    const points = [...new Set(at.map((a) => a % Math.max(1, bytes.length)))].sort((a, b) => a - b);
    let from = 0;
    for (const p of [...points, bytes.length]) {
      if (p > from) {
        out.push({ write: bytes.subarray(from, p) });
        out.push({ wait: 1 });
      }
      from = Math.max(from, p);
    }
  }
  return out;
}

function ending(e: Ending): Step[] {
  return e === 'end' ? [{ end: true }] : e === 'destroy' ? [{ destroy: true }] : [];
}

/** The servers of a run: the scripted one, and the one its redirects point at. */
export interface Servers {
  main: Hostile;
  elsewhere: Hostile;
  close(): Promise<void>;
}

/** Starts the servers that play `s`. GETs past the script are answered 404. */
export async function playServers(s: Scenario): Promise<Servers> {
  const elsewhere = await hostile((_m, _n, seen) => {
    const c = seqOf(seen.lastEventId) ?? s.firstSends;
    return {
      status: 200,
      headers: SSE_HEADERS,
      steps: [{ write: event('s1', c + 1, message(c + 1, s.owed, 'elsewhere')) }, { end: true }],
    };
  });
  /** The call was sent: GETs from then on are the scenario's. */
  let called = false;
  let gets = 0;
  const main = await hostile((method, _n, seen): Answer => {
    if (seen.rpc === 'initialize') {
      // An SDK `Client` connects first (the transport-level runs send the call at once).
      const result = {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'hostile', version: '1.0.0' },
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json', 'mcp-session-id': 'hostile-session' },
        steps: [{ write: JSON.stringify({ jsonrpc: '2.0', id: seen.id, result }) }, { end: true }],
      };
    }
    // A Client's standalone GET, before the call: no stream here.
    if (method === 'GET' && !called) return { status: 405, steps: [{ end: true }] };
    if (method === 'POST') {
      called = true;
      return {
        status: 200,
        headers: SSE_HEADERS,
        steps: [
          ...cutSteps([{ write: firstBody(s) }], s.firstCuts),
          ...ending(s.firstSends > s.owed ? 'end' : s.firstEnding),
        ],
      };
    }
    const g = s.gets[gets++];
    if (!g) return { status: 404, steps: [{ end: true }] };
    const c = seqOf(seen.lastEventId) ?? s.firstSends;
    const headers: Record<string, string> = g.contentType ? { 'content-type': g.contentType } : {};
    if (g.status === 307) headers.location = elsewhere.url;
    const body = g.status === 200 ? cutSteps(resumeBody(g, c, s.owed, 'log'), g.cuts) : [];
    const steps: Step[] = [
      ...body,
      ...(g.status === 200 ? ending(g.ending) : [{ end: true as const }]),
    ];
    return { status: g.status, headers, steps, headerDelayMs: g.headerDelayMs };
  });
  return {
    main,
    elsewhere,
    close: async () => {
      await main.close();
      await elsewhere.close();
    },
  };
}
