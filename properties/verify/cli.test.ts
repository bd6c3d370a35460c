/** `mcp-resumption verify` through the CLI: the report, JSON, replay, and bad options. */
import { describe, expect, test } from 'vitest';
import { runCli as run } from '../support/cli.js';

describe('verify command', () => {
  test('proves every claim for the model client, TLC style, with progress on stderr', async () => {
    // One thread: the report is the subject here (the workers have a test of their own).
    const r = await run(['verify', '--scope', 'small', '--policy', 'honest', '--workers', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\d+ distinct states found, \d+ states generated, depth \d+/);
    expect(r.out).toMatch(/distinct states\/min, [\d.]+ bytes\/state/);
    for (const c of ['NoUnprovenAcceptance', 'NoSilentPartialResult', 'NoFalseAlarm', 'Delivery'])
      expect(r.out).toMatch(new RegExp(`${c} +proven within scope`));
    expect(r.out).toContain('deterministic (no seed)');
  });

  test('a broken claim exits 1 with a timeline and a replay that breaks it again', async () => {
    const r = await run([
      'verify',
      '--scope',
      'small',
      '--policy',
      'honest',
      '--client',
      'drops-cursor',
      '--workers',
      '1',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('claim broken: NoUnprovenAcceptance');
    expect(r.out).toContain('timeline:');
    const replay = /replay: npx mcp-resumption verify (.*)$/m.exec(r.out)![1]!;
    const args = replay.match(/'[^']*'|\S+/g)!.map((a) => a.replace(/^'|'$/g, ''));
    const again = await run(['verify', ...args]);
    expect(again.code).toBe(1);
    expect(again.out).toContain('NoUnprovenAcceptance: BROKEN');
  });

  test('--json gives the counts and verdicts', async () => {
    const r = await run([
      'verify',
      '--scope',
      'small',
      '--policy',
      'head',
      '--json',
      '--workers',
      '1',
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      deterministic: boolean;
      runs: { distinct: number; claims: { proven: boolean }[] }[];
    };
    expect(j.deterministic).toBe(true);
    expect(j.runs[0]!.distinct).toBeGreaterThan(0);
    expect(j.runs[0]!.claims.every((c) => c.proven)).toBe(true);
  });

  test('--workers 2 reports what one thread reports, and says how many ran', async () => {
    const args = ['verify', '--scope', 'small', '--policy', 'honest-reject', '--json'];
    const one = JSON.parse((await run([...args, '--workers', '1'])).out) as {
      runs: { distinct: number; generated: number; workers: number }[];
    };
    const two = JSON.parse((await run([...args, '--workers', '2'])).out) as typeof one;
    expect(one.runs[0]!.workers).toBe(1);
    expect(two.runs[0]!.workers).toBe(2);
    expect(two.runs[0]!.distinct).toBe(one.runs[0]!.distinct);
    expect(two.runs[0]!.generated).toBe(one.runs[0]!.generated);
  });

  test('--help describes the command', async () => {
    const r = await run(['verify', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('--scope');
  });

  test.each([
    [['verify', '--scope', 'huge'], '--scope'],
    [['verify', '--policy', 'nope'], '--policy'],
    [['verify', '--client', 'nope'], '--client'],
    [['verify', '--max-states', '0'], '--max-states'],
    [['verify', '--workers', '0'], '--workers'],
    [['verify', '--workers', 'two'], '--workers'],
    [['verify', '--replay', 'Emit,Bogus', '--config', 'N=2'], '--replay'],
    [['verify', '--replay', 'Emit'], '--replay'],
    [['verify', '--config', 'N=2'], '--config'],
    [['verify', '--bogus'], 'bogus'],
  ])('%j exits 2 with one line naming the option', async (argv, option) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(option);
  });
});
