import { describe, expect, it } from 'vitest';
import { checkTrace, TraceInputError } from '../../src/index.js';

const events = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => JSON.stringify({ type: 'event', id: from + i }));

describe('checkTrace (library API)', () => {
  it("flags the seed's head-resume incident, accepted, as unsafe-accept", async () => {
    const report = await checkTrace([
      '{"type":"open","status":200,"epoch":"e1"}',
      ...events(1, 41),
      '{"type":"idle-timeout"}',
      '{"type":"reconnect","cursor":41}',
      '{"type":"response","status":200}',
      '{"type":"event","id":130}',
      '{"type":"decision","outcome":"resumed"}',
    ]);
    expect(report.reconnects).toHaveLength(1);
    expect(report.reconnects[0]).toMatchObject({
      line: 44,
      cursor: 41,
      expected: 'resumption-failed',
      actual: 'resumed',
      verdict: 'unsafe-accept',
    });
    expect(report.exitCode).toBe(1);
  });

  it('reads async iterables and rejects bad input with the line number', async () => {
    async function* lines() {
      yield '{"type":"open"}';
      yield '{"type":"event","id":-1}';
    }
    const err = await checkTrace(lines()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TraceInputError);
    expect((err as TraceInputError).line).toBe(2);
    expect((err as Error).message).toMatch(/^line 2: /);
  });
});

describe('checkTrace inputs', () => {
  it('reads an empty cursor as no Last-Event-ID, like null', async () => {
    const lines = (cursor: string) => [
      '{"type":"event","id":1}',
      `{"type":"reconnect","cursor":${cursor}}`,
    ];
    const empty = await checkTrace(lines('""'));
    expect(empty.reconnects[0]).toMatchObject({ cursor: null, code: 'cursor-dropped' });
    expect(empty).toEqual(await checkTrace(lines('null')));
  });

  it('takes a single string as the whole text of a trace', async () => {
    const text = '{"type":"open"}\n{"type":"event","id":1}\r\n{"type":"reconnect","cursor":1}\n';
    const report = await checkTrace(text);
    expect(report.summary.lines).toBe(3);
    expect(report.reconnects.map((r) => r.line)).toEqual([3]);
  });
});
