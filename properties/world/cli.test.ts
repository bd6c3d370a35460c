/** `mcp-resumption explore` and `mutants` through the CLI entry: report sections and exit codes. */
import { describe, expect, test } from 'vitest';
import { runCli as run } from '../support/cli.js';

describe('explore and mutants commands', () => {
  test('explore is the default command and prints the whole report', async () => {
    const r = await run(['--runs', '300', '--seed', '7', '--mutant-runs', '200']);
    expect(r.code).toBe(0);
    for (const s of [
      'mcp-resumption explore: seed 7',
      'interleavings explored: 300',
      'steps (commands):',
      'NoUnprovenAcceptance   held',
      'NoFalseAlarm',
      'machine states visited:',
      'machine transitions taken:',
      '| mutant',
      "The founding incident's three variants (replay each: explore --scenario NAME):",
      '-> resumption-failed',
      '-> session-lost',
      'rerun: npx mcp-resumption explore --seed 7 --runs 300',
    ])
      expect(r.out).toContain(s);
  });

  test('a broken claim exits 1 with its counterexample and replay command', async () => {
    const r = await run(['explore', '--runs', '2000', '--seed', '3', '--mutant', 'head']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/claim broken: (NoFalseAlarm|Delivery): /);
    expect(r.out).toMatch(/replay: npx mcp-resumption explore --seed 3 --path [\d:]+ /);
  });

  test.each([
    [['explore', '--seconds', 'x']],
    [['explore', '--runs', '0']],
    [['explore', '--config', 'Z=1']],
    [['explore', '--kind', 'nope']],
    [['explore', '--mutant', 'nope']],
    [['explore', '--bogus']],
    [['mutants', '--runs', '-1']],
  ])('bad options %j: one line on stderr, exit 2', async (argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  test("--scenario tells the seed's incident: the naive client breaks, the model escalates", async () => {
    const naive = await run([
      'explore',
      '--scenario',
      'seven-minute-stall',
      '--mutant',
      'trusts-any-200',
    ]);
    expect(naive.code).toBe(1);
    expect(naive.out).toMatch(/NoUnprovenAcceptance +BROKEN +delivered event 130 right after 41/);
    const model = await run(['explore', '--scenario', 'seven-minute-stall']);
    expect(model.code).toBe(0);
    expect(model.out).toMatch(/answers 200 \(holds 67\.\.130\), replays 130/);
    expect(model.out).toMatch(/machine <- EVENT 130 stream=tool +resumptionFailed/);
  });

  test('mutants prints the kill table and each kill with its replay command', async () => {
    const r = await run(['mutants', '--only', 'head,idle-on-app-thread', '--runs', '500']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\| head +\| server \| NoFalseAlarm +\|/);
    expect(r.out).toContain('replay: `npx mcp-resumption explore --seed 1 --path');
  });

  test('mutants --only names an unknown mutant at once, and says where a machine mutant is killed', async () => {
    // keepalive-is-proof is a machine mutant: no claim of the world sees it, so it is not in
    // the kill table (tutorial exercise 7); a reader who asks for it gets told so, not a search.
    const r = await run(['mutants', '--only', 'head,keepalive-is-proof', '--runs', '10']);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/--only: keepalive-is-proof is not in the kill table/);
    expect(r.err).toMatch(/machine mutant/);
    expect(r.out).toBe('');
  });
});
