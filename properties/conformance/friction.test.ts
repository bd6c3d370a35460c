/**
 * Friction of issue 27, each with a test that failed before:
 * - `--only` runs exactly what it names (a scenario and a row ran the scenario on the
 *   instances' rows too);
 * - the report states a keepalive interval only when one was given (it said "keepalive 100 ms"
 *   for a server at a URL whose interval nobody gave);
 * - `--json` cells carry `row`, the docs' name, and a failing cell the line of what to change;
 * - the README's scenario count is the matrix's.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { SERVER_FIX, type FlatCell } from '../../src/conformance/rendering/render.js';
import { SCENARIOS } from '../../src/conformance/scenarios/index.js';
import { runCli } from '../support/cli.js';
import { launchPlainServer } from './fixtures/plain-server-adapter.js';

describe('friction (issue 27)', () => {
  test('--only runs exactly what it names', async () => {
    const one = await runCli(['conformance', '--only', 'within-window,sdk-v1+ring', '--json']);
    const cells = (JSON.parse(one.out) as { cells: FlatCell[] }).cells;
    expect(cells.map((c) => `${c.row} × ${c.scenario}`)).toEqual(['sdk-v1+ring × within-window']);
    // A scenario of the instances' matrix and a single-instance row: that row has no such
    // scenario, so nothing of it runs (it ran all twelve of its scenarios, none of them named).
    const other = await runCli([
      'conformance',
      '--only',
      'restart-during-call,sdk-v1+ring',
      '--json',
    ]);
    const named = (JSON.parse(other.out) as { cells: FlatCell[] }).cells;
    expect(named.filter((c) => c.scenario !== 'restart-during-call')).toEqual([]);
  }, 120_000);

  test('settings: no keepalive stated unless given; --json has row and fix', async () => {
    const server = await launchPlainServer([
      '--keepalive-ms',
      '100',
      '--mutant',
      'replay-skips-one',
    ]);
    try {
      const only = ['--only', 'within-window', '--id-pattern', '^(?<stream>[^:]+):(?<seq>\\d+)$'];
      const text = await runCli(['conformance', '--url', server.url, ...only]);
      expect(text.out).toMatch(/^settings: retention 16, request bound 2000 ms$/m);
      expect(text.out).toContain(`fix (silent loss): ${SERVER_FIX['silent loss']}`);
      const given = await runCli([
        'conformance',
        '--url',
        server.url,
        '--keepalive-ms',
        '100',
        ...only,
      ]);
      expect(given.out).toMatch(/^settings: keepalive 100 ms, retention 16/m);
      const json = await runCli(['conformance', '--url', server.url, ...only, '--json']);
      const [cell] = (JSON.parse(json.out) as { cells: FlatCell[] }).cells;
      expect(cell!.row).toBe(`url ${server.url}`);
      expect(cell!.verdict).toBe('silent loss');
      expect(cell!.fix).toBe(SERVER_FIX['silent loss']);
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 60_000);

  test("the README's scenario count is the matrix's", async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const words = [
      'zero',
      'one',
      'two',
      'three',
      'four',
      'five',
      'six',
      'seven',
      'eight',
      'nine',
      'ten',
      'eleven',
      'twelve',
      'thirteen',
      'fourteen',
      'fifteen',
    ];
    const m = /<!-- scenario-count -->(\w+)<!-- \/scenario-count -->/.exec(readme);
    expect(m, 'a generated scenario count in README.md').not.toBeNull();
    expect(m![1], 'README.md is out of date: npm run docs:counts').toBe(words[SCENARIOS.length]);
  });
});
