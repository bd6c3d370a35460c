/**
 * `check --strict` and a dropped call (issue 27, misjudgment 5): a client whose call's stream
 * ends after cursor 5 with no response and no reconnect has lost the call, and said nothing.
 * Before, `check --strict` gave 0 violations on such a trace. A trace marks the event that
 * carries the call's response with `"response": true` (the conformance harness's traces do).
 */
import { describe, expect, test } from 'vitest';
import { checkTrace } from '../../src/trace/check.js';
import { runCli } from '../support/cli.js';

const lines = (...objs: object[]) => objs.map((o) => JSON.stringify(o));
const events = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ type: 'event', id: from + i }));

/** A finished call: events 1..3, the response on 4, the stream ends. */
const finished = lines(
  { type: 'open', status: 200 },
  ...events(1, 3),
  { type: 'event', id: 4, response: true },
  { type: 'end' },
);

/** A dropped call: events 1..5, the stream ends, nothing more. */
const dropped = lines({ type: 'open', status: 200 }, ...events(1, 5), { type: 'end' });

describe('check --strict: a dropped call', () => {
  test('a stream that ended without its response and without a reconnect is a violation', async () => {
    const report = await checkTrace([...finished, ...dropped], { strict: true });
    expect(report.summary.dropped).toEqual([{ line: 13, cursor: 5 }]);
    expect(report.summary.violations).toBe(1);
    expect(report.exitCode).toBe(1);
    const cli = await runCli(['check', '-', '--strict'], [...finished, ...dropped].join('\n'));
    expect(cli.code).toBe(1);
    expect(cli.out).toMatch(
      /dropped call: line 13: the stream ended after id 5 without its response/,
    );
  });

  test('not a violation without --strict, nor when the call finished or reconnected', async () => {
    expect((await checkTrace([...finished, ...dropped])).exitCode).toBe(0);
    expect((await checkTrace(finished, { strict: true })).exitCode).toBe(0);
    // A disconnect followed by a reconnect that resumes: the client did not drop the call.
    const resumed = lines(
      { type: 'open', status: 200 },
      ...events(1, 5),
      { type: 'disconnect' },
      { type: 'reconnect', cursor: 5 },
      { type: 'response', status: 200 },
      { type: 'event', id: 6, response: true },
      { type: 'decision', outcome: 'resumed' },
      { type: 'end' },
    );
    const r = await checkTrace([...finished, ...resumed], { strict: true });
    expect(r.summary.dropped).toBeUndefined();
    expect(r.exitCode).toBe(0);
    // A client that gave up and said so (resumption-failed) surfaced the loss.
    const gaveUp = lines(
      { type: 'open', status: 200 },
      ...events(1, 5),
      { type: 'disconnect' },
      { type: 'reconnect', cursor: 5 },
      { type: 'response', status: 404 },
      { type: 'decision', outcome: 'session-lost' },
      { type: 'disconnect' },
    );
    expect((await checkTrace([...finished, ...gaveUp], { strict: true })).exitCode).toBe(0);
  });

  test('a trace that marks no response cannot show a drop: a note says so, no violation', async () => {
    const r = await checkTrace(dropped, { strict: true });
    expect(r.exitCode).toBe(0);
    expect(r.summary.notes?.join('\n')).toMatch(/marks no response/);
  });
});
