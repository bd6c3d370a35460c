/**
 * The recorded corpus (properties/corpus/): every trace goes through the `check` command
 * in-process and must produce exactly its `.expected.json` (the `--json` report and exit
 * status, or for bad input the exit status 2 and the one-line error). The corpus must cover
 * every rule, verdict, break, cursor ahead, bad-input case and the seed's three variants.
 *
 * After an intended change, `UPDATE_CORPUS=1 npx vitest run properties/trace/corpus.test.ts`
 * rewrites the expected files; review the diff before committing it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { RULE_OF } from '../../model/rules.js';
import type { ReasonCode } from '../../model/outcomes.js';
import { checkTrace, TRACE_LINE_TYPES, VERDICTS, type CheckReport } from '../../src/trace/index.js';
import { checkText, runCli } from './helpers.js';

const DIR = fileURLToPath(new URL('../corpus/', import.meta.url));
const UPDATE = process.env['UPDATE_CORPUS'] === '1';

interface Expected {
  args?: string[];
  exit: number;
  report?: CheckReport;
  error?: string;
}

interface Case {
  name: string;
  path: string;
  expected: Expected;
}

const CASES: Case[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()
  .map((f) => {
    const name = f.slice(0, -'.jsonl'.length);
    const file = join(DIR, `${name}.expected.json`);
    // In update mode a new trace needs no expected file yet: it is written from the run.
    const expected = (
      UPDATE && !existsSync(file) ? { exit: 0 } : JSON.parse(readFileSync(file, 'utf8'))
    ) as Expected;
    return { name, path: relative(process.cwd(), join(DIR, f)), expected };
  });

const GOOD = CASES.filter((c) => c.expected.exit !== 2);
const BAD = CASES.filter((c) => c.expected.exit === 2);

/** Options of the library call that match a case's CLI arguments. */
function optionsOf(args: string[] = []) {
  const i = args.indexOf('--id-pattern');
  const b = args.indexOf('--proof-budget');
  const binding = args.indexOf('--binding');
  return {
    strict: args.includes('--strict'),
    ...(binding >= 0 ? { binding: args[binding + 1] } : {}),
    ...(i >= 0 ? { idPattern: args[i + 1] } : {}),
    ...(b >= 0 ? { proofBudget: Number(args[b + 1]) } : {}),
  };
}

function linesOf(c: Case): string[] {
  const text = readFileSync(c.path, 'utf8');
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

describe('the corpus through `check --json`', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { code, out, err } = await runCli([
      'check',
      c.path,
      '--json',
      ...(c.expected.args ?? []),
    ]);
    const got: Expected = { ...(c.expected.args ? { args: c.expected.args } : {}), exit: code };
    if (code === 2) {
      expect(out).toBe('');
      expect(err.endsWith('\n') && !err.slice(0, -1).includes('\n')).toBe(true);
      expect(err.startsWith(`check: ${c.path}: `)).toBe(true);
      got.error = err.slice(`check: ${c.path}: `.length).trimEnd();
    } else {
      expect(err).toBe('');
      got.report = JSON.parse(out) as CheckReport;
    }
    if (UPDATE) {
      writeFileSync(join(DIR, `${c.name}.expected.json`), JSON.stringify(got, null, 2) + '\n');
      return;
    }
    expect(got).toEqual(c.expected);
  });
});

describe('the corpus covers the format and the rules', () => {
  const reports = () => GOOD.map((c) => c.expected.report as CheckReport);

  it('every verdict, every expected outcome and every reason code of the machine', () => {
    const reconnects = reports().flatMap((r) => r.reconnects);
    for (const v of VERDICTS)
      expect(
        reconnects.some((r) => r.verdict === v),
        v,
      ).toBe(true);
    for (const o of ['resumed', 'delayed', 'resumption-failed', 'session-lost']) {
      expect(
        reconnects.some((r) => r.expected === o),
        o,
      ).toBe(true);
    }
    for (const code of Object.keys(RULE_OF) as ReasonCode[]) {
      if (code === 'break') continue; // a break is reported on its own, below
      expect(
        reconnects.some((r) => r.code === code),
        code,
      ).toBe(true);
    }
    for (const rule of [0, 1, 2, 3, 4, 5, 6, 7]) {
      expect(
        reconnects.some((r) => r.rule === rule),
        `rule ${rule}`,
      ).toBe(true);
    }
  });

  it('breaks, cursors ahead, every exit status, and --strict', () => {
    expect(reports().some((r) => r.breaks.length > 0)).toBe(true);
    expect(reports().some((r) => r.cursorAhead.length > 0)).toBe(true);
    for (const exit of [0, 1, 2]) expect(CASES.some((c) => c.expected.exit === exit)).toBe(true);
    const strict = GOOD.filter((c) => c.expected.args?.includes('--strict'));
    expect(strict.map((c) => c.expected.exit)).toContain(1);
  });

  it('every bad-input case of the format', () => {
    const errors = BAD.map((c) => c.expected.error as string);
    for (const re of [
      /invalid JSON/,
      /unknown type/,
      /needs a "type"/,
      /must be a JSON object/,
      /reconnect has no cursor/,
      /cursor must be an integer/,
      /event id must be an integer/,
      /negative id/,
      /negative cursor/,
      /larger than 2\^53-1/,
      /pass --id-pattern/,
      /does not match --id-pattern/,
      /response with no reconnect before it/,
      /decision with no reconnect before it/,
      /unknown decision outcome/,
    ]) {
      expect(
        errors.some((e) => re.test(e)),
        String(re),
      ).toBe(true);
    }
    for (const e of errors) expect(e).toMatch(/^line \d+: /);
  });

  it("the seed's three observed variants, accepted by the client, are all unsafe-accept", () => {
    const seeds = GOOD.filter((c) => c.name.startsWith('seed-'));
    expect(seeds.map((c) => c.name)).toEqual([
      'seed-head-resume-accepted',
      'seed-restart-404-accepted',
      'seed-restart-empty-200-accepted',
    ]);
    for (const c of seeds) {
      expect(c.expected.exit).toBe(1);
      expect(c.expected.report?.reconnects.map((r) => r.verdict)).toEqual(['unsafe-accept']);
    }
  });
});

describe('the corpus through the library', () => {
  it.each(GOOD.map((c) => [c.name, c] as const))(
    '%s: checkTrace gives the same report with either engine',
    async (_name, c) => {
      const options = optionsOf(c.expected.args);
      const compiled = await checkTrace(linesOf(c), options);
      const xstate = await checkTrace(linesOf(c), { ...options, engine: 'xstate' });
      expect(compiled).toEqual(c.expected.report);
      expect(xstate).toEqual(compiled);
    },
  );
});

describe('mutants of the machine', () => {
  it.each(MACHINE_MUTANTS.map((m) => [m.name, m] as const))(
    'the corpus kills %s',
    async (_name, m) => {
      const differs: string[] = [];
      for (const c of GOOD) {
        // A machine that leaves a reconnect undecided when its window closes (unproven-forever
        // ignores the budget's PROOF_TIMEOUT) cannot be judged at all: the oracle refuses it,
        // which kills it as surely as another report.
        const report = await checkTrace(linesOf(c), {
          ...optionsOf(c.expected.args),
          machine: m.machine,
        }).catch((e: unknown) => `refused: ${(e as Error).message}`);
        if (JSON.stringify(report) !== JSON.stringify(c.expected.report)) differs.push(c.name);
      }
      expect(differs.length, `${m.name} passes the whole corpus`).toBeGreaterThan(0);
    },
  );
});

describe('sources', () => {
  it('reads standard input (-) exactly like the file', async () => {
    const c = CASES.find((x) => x.name === 'seed-head-resume-accepted') as Case;
    const fromFile = await runCli(['check', c.path, '--json']);
    const fromStdin = await checkText(readFileSync(c.path, 'utf8'), ['--json']);
    expect(fromStdin).toEqual(fromFile);
    const bad = await checkText('{"type":"open"}\n{"type":"nope"}\n');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^check: <stdin>: line 2: unknown type "nope"/);
  });

  it('prints one block per reconnect and a summary by default', async () => {
    const c = CASES.find((x) => x.name === 'good-long-session') as Case;
    const { code, out } = await runCli(['check', c.path]);
    expect(code).toBe(0);
    expect(out.match(/^line \d+: reconnect with cursor \d+$/gm)).toHaveLength(3);
    expect(out).toMatch(/^ {2}verdict {3}ok$/m);
    expect(out).toMatch(/^summary: \d+ lines, 3 reconnects$/m);
    expect(out).toMatch(/0 violations: exit 0$/m);
  });

  it('a missing file, two files, or a bad --id-pattern is one line and exit 2', async () => {
    for (const argv of [
      ['check', 'no/such/trace.jsonl'],
      ['check', 'a.jsonl', 'b.jsonl'],
      ['check'],
      ['check', '-', '--id-pattern', '(?<nope>x)'],
      ['check', '-', '--id-pattern', '('],
      ['check', '-', '--bogus'],
    ]) {
      const r = await runCli(argv, '');
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });

  it('docs/trace-format.md specifies every line type, verdict and exit status', () => {
    const doc = readFileSync(
      fileURLToPath(new URL('../../docs/trace-format.md', import.meta.url)),
      'utf8',
    );
    for (const type of TRACE_LINE_TYPES) expect(doc).toContain(`{"type":"${type}"`);
    for (const v of VERDICTS) expect(doc).toContain(`\`${v}\``);
    for (const code of [0, 1, 2]) expect(doc).toMatch(new RegExp(`^\\| ${code} +\\|`, 'm'));
    expect(doc).toContain('--id-pattern');
  });

  it('--help documents the format', async () => {
    const { code, out } = await runCli(['check', '--help']);
    expect(code).toBe(0);
    for (const type of ['open', 'event', 'keepalive', 'reconnect', 'response', 'decision']) {
      expect(out).toContain(`{"type":"${type}"`);
    }
    expect(out).toContain('--id-pattern');
    expect(out).toContain('Exit status');
  });
});
