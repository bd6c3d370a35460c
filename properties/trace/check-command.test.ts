/**
 * The `check` command's own edges, exactly (src/commands/check.ts): its usage errors, the
 * output it holds back until 64 KiB (so that early bad input leaves stdout empty, and later bad
 * input leaves a partial report), a missing file, and standard input that is not there.
 */
import { describe, expect, test } from 'vitest';
import { main } from '../../src/cli.js';
import { checkText, resumedReconnectLines, runCli } from './helpers.js';

/** A trace of `n` resumed reconnects, then `tail`. */
function reconnects(n: number, tail: string[] = []): string {
  const lines = ['{"type":"open"}', '{"type":"event","id":1}', ...resumedReconnectLines(n, false)];
  return [...lines, ...tail].join('\n') + '\n';
}

describe('usage errors, one line each', () => {
  test.each<[string[], string]>([
    [
      ['check', 'a.jsonl', 'b.jsonl'],
      'check: expected one FILE (or - for standard input), got 2 (see check --help)',
    ],
    [['check'], 'check: expected one FILE (or - for standard input), got 0 (see check --help)'],
    [
      ['check', '-', '--bogus'],
      "check: Unknown option '--bogus'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--bogus\" (see check --help)",
    ],
    [
      ['check', '-', '--id-pattern', '(?<nope>x)'],
      'check: --id-pattern "(?<nope>x)" has no named group (?<seq>...) for the sequence number',
    ],
    [
      ['check', '-', '--proof-budget', 'x1'],
      'check: --proof-budget must be a whole number of milliseconds, got "x1"',
    ],
    [
      ['check', '-', '--proof-budget', '1x'],
      'check: --proof-budget must be a whole number of milliseconds, got "1x"',
    ],
    ...[' 1', '0x10', '1e3'].map((b): [string[], string] => [
      ['check', '-', '--proof-budget', b],
      `check: --proof-budget must be a whole number of milliseconds, got ${JSON.stringify(b)}`,
    ]),
    [
      ['check', '-', '--proof-budget', '1.5'],
      'check: --proof-budget must be a whole number of milliseconds, got "1.5"',
    ],
    [
      ['check', '-', '--proof-budget', '99999999999999999999'],
      'check: --proof-budget must be a whole number of milliseconds, got "99999999999999999999"',
    ],
  ])('%j', async (argv, message) => {
    const r = await runCli(argv, '');
    expect(r).toEqual({ code: 2, out: '', err: `${message}\n` });
  });

  test('a budget of whole milliseconds is taken', async () => {
    expect((await checkText('{"type":"open","t":1}\n', ['--proof-budget', '60000'])).code).toBe(0);
  });

  test('- without standard input', async () => {
    let err = '';
    const code = await main(['check', '-'], { out: () => {}, err: (t) => (err += t) });
    expect([code, err]).toEqual([2, 'check: no standard input to read\n']);
  });

  test('a missing file: cannot read, with the first line of the system message', async () => {
    const r = await runCli(['check', 'no/such/trace.jsonl']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "check: cannot read no/such/trace.jsonl: ENOENT: no such file or directory, open 'no/such/trace.jsonl'\n",
    );
  });

  test('the command is listed with its summary', async () => {
    const r = await runCli(['--help']);
    expect(r.out).toMatch(
      /^ {2}check +check a recorded trace \(JSON Lines\): did the client accept a reconnect it could not prove\?$/m,
    );
  });
});

describe('held output', () => {
  test('bad input early: nothing on stdout', async () => {
    const r = await checkText(reconnects(3, ['{"type":"nope"}']));
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });

  test('bad input after more than 64 KiB of output: the report so far, then exit 2', async () => {
    const r = await checkText(reconnects(1000, ['{"type":"nope"}']));
    expect(r.code).toBe(2);
    expect(r.out.length).toBeGreaterThan(64 * 1024);
    expect(r.out).toMatch(/^line 4: reconnect with cursor 1$/m);
    expect(r.out).not.toMatch(/^summary:/m);
    expect(r.err).toMatch(/^check: <stdin>: line 4003: unknown type "nope"/);
  });

  test('a long report comes out whole, in order, once', async () => {
    const r = await checkText(reconnects(1000));
    expect(r.code).toBe(0);
    const blocks = r.out.match(/^line \d+: reconnect with cursor (\d+)$/gm) ?? [];
    expect(blocks).toHaveLength(1000);
    expect(blocks[999]).toBe('line 4000: reconnect with cursor 1000');
    expect(r.out.endsWith('0 violations: exit 0\n')).toBe(true);
  });
});
