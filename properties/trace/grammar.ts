/**
 * Traces generated from a grammar of observations, and the randomness settings of the trace
 * properties (the seed is printed once per file, with the command that replays it).
 *
 * A trace is a list of steps rendered in order against a running "last id received", so that
 * successors, skips, rewinds, floors around the cursor and cursors ahead all come up often.
 */
import fc from 'fast-check';
import { OUTCOMES, type Outcome } from '../../model/outcomes.js';
import { SEED } from '../support/seed.js';

/** One generated step, before rendering to a line. */
export type Step =
  | { k: 'event'; delta: number; asString: boolean; priming: boolean }
  | { k: 'poll' }
  | { k: 'idless' }
  | { k: 'keepalive' }
  | { k: 'idle' }
  | { k: 'disconnect' }
  | { k: 'end' }
  | { k: 'open'; status: number; epoch: string | null }
  | { k: 'reconnect'; cursor: 'last' | 'behind' | 'ahead' | 'none' }
  | {
      k: 'response';
      status: number;
      floorDelta: number | null;
      /** A stated head relative to the cursor (docs/spec.md#caught-up). */
      headDelta: number | null;
      epoch: string | null;
      durable: boolean | null;
    }
  | { k: 'decision'; outcome: Outcome };

const event = fc.record({
  k: fc.constant('event' as const),
  delta: fc.constantFrom(1, 1, 1, 1, 1, 2, 3, 0, -1),
  asString: fc.boolean(),
  // A priming event (MCP 2025-11-25): an id with empty data; it counts like any id.
  priming: fc.boolean(),
});
const simple = (k: 'idless' | 'keepalive' | 'idle' | 'disconnect' | 'end') =>
  fc.constant({ k } as Step);
const reconnect = fc.record({
  k: fc.constant('reconnect' as const),
  cursor: fc.constantFrom('last', 'last', 'last', 'behind', 'ahead', 'none') as fc.Arbitrary<
    'last' | 'behind' | 'ahead' | 'none'
  >,
});
const response = fc.record({
  k: fc.constant('response' as const),
  status: fc.constantFrom(200, 200, 200, 200, 404, 410, 500),
  floorDelta: fc.option(fc.integer({ min: -2, max: 3 }), { freq: 2 }),
  headDelta: fc.option(fc.integer({ min: -1, max: 2 }), { freq: 3 }),
  epoch: fc.option(fc.constantFrom('e1', 'e2'), { freq: 2 }),
  durable: fc.option(fc.boolean(), { freq: 2 }),
});
const decision = fc.record({
  k: fc.constant('decision' as const),
  outcome: fc.constantFrom(...OUTCOMES),
});
const open = fc.record({
  k: fc.constant('open' as const),
  status: fc.constantFrom(200, 200, 200, 500),
  epoch: fc.option(fc.constantFrom('e1', 'e2'), { freq: 3 }),
});

function stepArb(withOpens: boolean): fc.Arbitrary<Step> {
  return fc.oneof(
    { weight: 8, arbitrary: event },
    { weight: 1, arbitrary: simple('idless') },
    { weight: 2, arbitrary: simple('keepalive') },
    { weight: 1, arbitrary: simple('idle') },
    { weight: 1, arbitrary: simple('disconnect') },
    { weight: 1, arbitrary: simple('end') },
    // A poll: the server ends the stream, the client reconnects with the same cursor, 200.
    { weight: 2, arbitrary: fc.constant({ k: 'poll' } as Step) },
    { weight: 3, arbitrary: reconnect },
    { weight: 3, arbitrary: response },
    { weight: 2, arbitrary: decision },
    { weight: withOpens ? 1 : 0, arbitrary: open },
  );
}

/** Renders steps to trace lines. Responses and decisions before any reconnect are dropped. */
export function render(steps: readonly Step[], first: 'open' | 'none'): string[] {
  const lines: string[] = [];
  let last = 0;
  let cursor: number | null = null;
  let reconnected = false;
  if (first === 'open') lines.push(JSON.stringify({ type: 'open', status: 200, epoch: 'e1' }));
  for (const s of steps) {
    switch (s.k) {
      case 'event': {
        const id = Math.max(0, last + s.delta);
        last = id;
        const line: Record<string, unknown> = { type: 'event', id: s.asString ? String(id) : id };
        if (s.priming) line['data'] = '';
        lines.push(JSON.stringify(line));
        break;
      }
      case 'poll':
        if (!reconnected) break;
        lines.push('{"type":"end"}');
        lines.push(JSON.stringify({ type: 'reconnect', cursor }));
        lines.push('{"type":"response","status":200}');
        break;
      case 'idless':
        lines.push('{"type":"event","data":"ping"}');
        break;
      case 'keepalive':
      case 'idle':
      case 'disconnect':
      case 'end': {
        const type = s.k === 'idle' ? 'idle-timeout' : s.k;
        lines.push(JSON.stringify({ type }));
        break;
      }
      case 'open':
        lines.push(
          JSON.stringify({
            type: 'open',
            status: s.status,
            ...(s.epoch ? { epoch: s.epoch } : {}),
          }),
        );
        if (s.status === 200) last = 0;
        break;
      case 'reconnect': {
        cursor =
          s.cursor === 'none'
            ? null
            : s.cursor === 'behind'
              ? Math.max(0, last - 1)
              : s.cursor === 'ahead'
                ? last + 2
                : last;
        reconnected = true;
        lines.push(JSON.stringify({ type: 'reconnect', cursor }));
        break;
      }
      case 'response': {
        if (!reconnected) break;
        const r: Record<string, unknown> = { type: 'response', status: s.status };
        if (s.floorDelta !== null) r['floor'] = Math.max(0, (cursor ?? 0) + s.floorDelta);
        if (s.headDelta !== null) r['head'] = Math.max(0, (cursor ?? 0) + s.headDelta);
        if (s.epoch !== null) r['epoch'] = s.epoch;
        if (s.durable !== null) r['durable'] = s.durable;
        lines.push(JSON.stringify(r));
        break;
      }
      case 'decision':
        if (reconnected) lines.push(JSON.stringify({ type: 'decision', outcome: s.outcome }));
        break;
    }
  }
  return lines;
}

/** Any trace of the grammar: opens anywhere (some failing), or no open at all. */
export const anyTrace: fc.Arbitrary<string[]> = fc
  .tuple(
    fc.array(stepArb(true), { maxLength: 60, size: 'max' }),
    fc.constantFrom('open', 'none') as fc.Arbitrary<'open' | 'none'>,
  )
  .map(([steps, first]) => render(steps, first));

/** A trace with one stream: an open on the first line (or none), no open after it. */
export const oneSessionTrace: fc.Arbitrary<string[]> = fc
  .tuple(
    fc.array(stepArb(false), { maxLength: 60, size: 'max' }),
    fc.constantFrom('open', 'none') as fc.Arbitrary<'open' | 'none'>,
  )
  .map(([steps, first]) => render(steps, first));

/** fast-check parameters: this run's seed, and a readable report on failure. */
export function params<T>(numRuns: number): fc.Parameters<T> {
  return { seed: SEED, numRuns, verbose: 1 };
}
