/**
 * Issue 32, D5: the conformance report speaks to a user of an MCP server, who knows the protocol
 * (Last-Event-ID, status codes) but not this project's words. A real run's report (servers, the
 * SDK clients through the client-command path, and `--help`) holds no internal term, and every
 * mark or borrowed word it uses (†, ⚠, "cell", "oracle", "owed", "foreign") is defined in the
 * legend printed with it; a surfaced error names no machine event (a reason says "before the
 * connection broke", not "before DISCONNECT"). The checker is
 * shown to fail on the words the report used before (the old one-line legend, "the seed",
 * "floor", "ground truth").
 */
import { describe, expect, test } from 'vitest';
import { OBSERVATION_TYPES } from '../../model/observations.js';
import { CLIENT_LEGEND } from '../../src/conformance/rows/client-command.js';
import { TEXT_LEGEND } from '../../src/conformance/rendering/legend.js';
import { runCli } from '../support/cli.js';

/** Words of the project that a report must not use at all (plain words say the same). */
const INTERNAL = [
  /\bground truth\b/i,
  /\btruth\b/i,
  /\bthe seed\b/i,
  /\bfloor\b/i,
  /\bepisodes?\b/i,
  /\bcodec\b/i,
  /\bproof budget\b/i,
  /\bmutants?\b/i,
  /\bpriming\b/i,
  // A rule cited by its number alone ("rule 5", "rule 7.1)"): a reader has no rule book.
  /\brule \d+(\.\d+)?(?![.\d]*:? [a-z])/i,
];

/** Marks and borrowed words that may appear only when the legend printed with them defines them. */
const DEFINED: { word: RegExp; key: string }[] = [
  { word: /†/, key: '†' },
  { word: /⚠/, key: '⚠' },
  { word: /\bcells?\b/, key: 'cell' },
  { word: /\boracle\b/, key: 'oracle' },
  { word: /\bowed\b/, key: 'owed' },
  { word: /\bforeign\b/, key: 'foreign' },
  { word: /\bcursors?\b/, key: 'cursor' },
  ...OBSERVATION_TYPES.map((t) => ({ word: new RegExp(`\\b${t}\\b`), key: t })),
];

/** What is wrong with `report` (empty: nothing), its legend being the lines in `legend`. */
function problems(report: string, legend: readonly string[]): string[] {
  const glossary = legend.join('\n');
  const body = report.split(glossary).join('');
  const out: string[] = [];
  for (const re of INTERNAL) {
    const m = report.match(re);
    if (m) out.push(`internal term ${JSON.stringify(m[0])}`);
  }
  for (const { word, key } of DEFINED) {
    if (word.test(body) && !glossary.includes(key)) out.push(`${key} used but not defined`);
  }
  return out;
}

describe('the conformance report uses plain words (issue 32, D5)', () => {
  let servers = '';
  let clients = '';

  test('a real run of two server rows: no internal term, every mark defined', async () => {
    const r = await runCli(['conformance', '--only', 'sdk-v1+example,sdk-v1+ring']);
    servers = r.out;
    // The run has the marks the legend explains: a † with its note, and a ⚠.
    expect(servers).toContain('†');
    expect(servers).toContain('⚠');
    expect(servers).toContain(TEXT_LEGEND.join('\n'));
    expect(problems(servers, TEXT_LEGEND)).toEqual([]);
  }, 300_000);

  test('a real run of the SDK clients through the client-command path: the same', async () => {
    const r = await runCli([
      'conformance',
      '--sdk-clients',
      '--only',
      'skip,empty-200',
      '--client-timeout',
      '4000',
    ]);
    clients = r.out;
    // The guard's surfaced errors say when a wait ended in words, not by a machine event.
    expect(clients).toMatch(/surfaced/);
    expect(clients).not.toMatch(/\b(?:DISCONNECT|PROOF_TIMEOUT|END|RECONNECT)\b/);
    expect(problems(clients, CLIENT_LEGEND)).toEqual([]);
  }, 300_000);

  test('--help: no internal term, and not the world-config legend', async () => {
    const r = await runCli(['conformance', '--help']);
    expect(r.out).toContain('Usage: mcp-resumption conformance');
    // The help defines its words in its own sentences; only the internal terms are checked
    // (in the prose: option names such as --reference-mutant are what a user types).
    const prose = r.out.replace(/--[a-z][a-z-]*/g, '');
    expect(INTERNAL.filter((re) => re.test(prose)).map(String)).toEqual([]);
    expect(r.out).not.toContain('Config fields');
  });

  test('the checker fails on the words the report used before', () => {
    expect(servers, 'runs above first').not.toBe('');
    const old = servers
      .replace(TEXT_LEGEND.join('\n'), '⚠ security finding   † oracle and ground truth disagree')
      .replace('(only an event whose id', '(the seed: only an id = cursor+1 or a declared floor');
    expect(problems(old, ['⚠ security finding   † oracle and ground truth disagree'])).toEqual(
      expect.arrayContaining([
        'internal term "ground truth"',
        'internal term "the seed"',
        'internal term "floor"',
        'cell used but not defined',
        'owed used but not defined',
      ]),
    );
    // Without its legend, the client report's borrowed words are undefined.
    expect(problems(clients, [])).toEqual(expect.arrayContaining(['cursor used but not defined']));
  });
});
