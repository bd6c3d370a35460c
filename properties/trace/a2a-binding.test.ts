/**
 * The A2A binding (model/bindings/a2a.ts): what each A2A line means to the machine in each era,
 * the choice of era (binding line, --a2a-era, their conflict), bad input, and the A2A binding
 * mutants (model/mutants/binding-mutants.ts), each killed by a named corpus trace. The corpus
 * traces' full reports are held by corpus.test.ts (CLI and library).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { A2A_BINDING_MUTANTS } from '../../model/mutants/binding-mutants.js';
import { a2aOfEra, a2aRules, a2aBinding, A2A_REMEDY, readFrame } from '../../model/bindings/a2a.js';
import { checkTrace, type CheckReport } from '../../src/trace/index.js';
import { checkText, runCli } from './helpers.js';

const CORPUS = fileURLToPath(new URL('../corpus/', import.meta.url));

const corpusLines = (name: string) =>
  readFileSync(`${CORPUS}${name}.jsonl`, 'utf8').replace(/\n$/, '').split('\n');
const expectedOf = (name: string) =>
  JSON.parse(readFileSync(`${CORPUS}${name}.expected.json`, 'utf8')) as {
    args?: string[];
    exit: number;
    report?: CheckReport;
    error?: string;
  };
const eraOf = (name: string) =>
  (JSON.parse(corpusLines(name)[0]!) as { era?: string }).era ?? '1.0';

const a2aCases = readdirSync(CORPUS)
  .filter((f) => f.startsWith('a2a-') && f.endsWith('.jsonl'))
  .map((f) => f.slice(0, -'.jsonl'.length))
  .filter((name) => expectedOf(name).exit !== 2);

/** The corpus traces of the mutant's era whose report differs under the mutant. */
async function killedBy(m: (typeof A2A_BINDING_MUTANTS)[number]): Promise<string[]> {
  const differs: string[] = [];
  for (const name of a2aCases.filter((n) => eraOf(n) === m.rules.era)) {
    const e = expectedOf(name);
    const got = await checkTrace(corpusLines(name), {
      binding: m.binding,
      strict: (e.args ?? []).includes('--strict'),
    }).catch((err: Error) => err.message);
    if (JSON.stringify(got) !== JSON.stringify(e.report)) differs.push(name);
  }
  return differs;
}

/** The trace each mutant must fail on, and what it gets wrong there. */
const KILLS: Record<string, { trace: string; why: (r: CheckReport) => void }> = {
  'a2a-error-on-http-status': {
    trace: 'a2a-p3-task-not-found-http-200',
    // TaskNotFound over HTTP 200 read as an empty 200 stream: no session loss.
    why: (r) => expect(r.reconnects[0]!.expected).not.toBe('session-lost'),
  },
  'a2a-duplicate-is-rewind': {
    trace: 'a2a-ce2-seam-duplicate',
    // The repeat of generation 5 after the re-sync breaks the stream where the gap 7 -> 9 did.
    why: (r) => expect(r.breaks[0]!.got).toBe(5),
  },
  'stops-on-duplicate-generation': {
    trace: 'a2a-ce2-seam-duplicate',
    // After the fallback the gap 7 -> 9 is id-less data: no break.
    why: (r) => expect(r.breaks).toEqual([]),
  },
  'a2a-snapshot-ignored': {
    trace: 'a2a-ce2-seam-duplicate',
    // The repeat of the folded generation 5 proves the resume: resumed where it failed.
    why: (r) => expect(r.reconnects[0]!.expected).toBe('resumed'),
  },
};

describe('A2A binding mutants, each killed by a named corpus trace', () => {
  it('every mutant has a named kill', () => {
    expect(Object.keys(KILLS).sort()).toEqual(A2A_BINDING_MUTANTS.map((m) => m.name).sort());
  });

  it.each(A2A_BINDING_MUTANTS.map((m) => [m.name, m] as const))(
    '%s is killed by its trace, for the named reason',
    async (name, m) => {
      const kill = KILLS[name]!;
      expect(await killedBy(m)).toContain(kill.trace);
      kill.why(await checkTrace(corpusLines(kill.trace), { binding: m.binding }));
    },
  );

  it('the binding itself passes its whole corpus (the kills are the flipped rules)', async () => {
    const real = {
      ...A2A_BINDING_MUTANTS[0]!,
      rules: a2aRules('dev-1.1'),
      binding: a2aBinding(a2aRules('dev-1.1')),
    };
    expect(await killedBy(real)).toEqual([]);
  });
});

const HEAD = (era: string) => JSON.stringify({ type: 'binding', name: 'a2a', era });
const frame = (member: string, body: object) =>
  JSON.stringify({
    type: 'a2a/frame',
    data: { jsonrpc: '2.0', id: 1, result: { [member]: body } },
  });
const status = (g?: number) =>
  frame('statusUpdate', {
    taskId: 'T',
    status: { state: 'TASK_STATE_WORKING' },
    ...(g === undefined ? {} : { generation: g }),
  });
const snapshot = (g?: number) =>
  frame('task', {
    id: 'T',
    status: { state: 'TASK_STATE_WORKING' },
    ...(g === undefined ? {} : { generation: g }),
  });
const SEND = '{"type":"a2a/send","taskId":"T"}';
const SUB = '{"type":"a2a/subscribe","taskId":"T"}';

describe('the eras', () => {
  it('1.0: every SubscribeToTask fails at rule 0, and the reason says the remedy, never re-send', async () => {
    for (const answer of [snapshot(), '{"type":"a2a/error","error":{"code":-32001}}']) {
      const r = await checkTrace([
        HEAD('1.0'),
        SEND,
        snapshot(),
        status(),
        '{"type":"disconnect"}',
        SUB,
        answer,
      ]);
      expect(r.reconnects[0]!.expected).toBe('resumption-failed');
      expect(r.reconnects[0]!.rule).toBe(0);
      expect(r.reconnects[0]!.reason).toContain(A2A_REMEDY);
    }
    expect(A2A_REMEDY).toContain('GetTask');
    expect(A2A_REMEDY).toMatch(/never re-send the message/);
  });

  it('dev-1.1: a snapshot equal to the cursor is caught up; the next update must be its successor', async () => {
    const base = [
      HEAD('dev-1.1'),
      SEND,
      snapshot(1),
      status(2),
      '{"type":"disconnect"}',
      SUB,
      snapshot(2),
    ];
    const ok = await checkTrace([...base, status(3)]);
    expect(ok.reconnects[0]!.code).toBe('caught-up');
    expect(ok.breaks).toEqual([]);
    const gap = await checkTrace([...base, status(4)]);
    expect(gap.breaks.map((b) => [b.expected, b.got])).toEqual([[3, 4]]);
  });

  it('dev-1.1: a snapshot behind the cursor is head-behind; generation 0 is id-less data', async () => {
    const behind = await checkTrace([
      HEAD('dev-1.1'),
      SEND,
      snapshot(1),
      status(2),
      status(3),
      '{"type":"disconnect"}',
      SUB,
      snapshot(2),
    ]);
    expect(behind.reconnects[0]!.code).toBe('head-behind');
    const zero = await checkTrace([
      HEAD('dev-1.1'),
      SEND,
      snapshot(0),
      status(0),
      '{"type":"disconnect"}',
      SUB,
      snapshot(0),
      status(0),
    ]);
    expect(zero.reconnects[0]!.rule).toBe(0);
  });

  it('1986: afterGeneration is a cursor; it is bad input in the other eras', async () => {
    const after = '{"type":"a2a/subscribe","taskId":"T","afterGeneration":2}';
    const r = await checkTrace([
      HEAD('1986'),
      SEND,
      snapshot(1),
      status(2),
      '{"type":"disconnect"}',
      after,
      snapshot(9),
      status(3),
    ]);
    expect(r.reconnects[0]!.code).toBe('successor');
    for (const era of ['1.0', 'dev-1.1']) {
      const bad = await checkText([HEAD(era), SEND, after].join('\n') + '\n');
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(
        /^check: <stdin>: line 3: a2a\/subscribe afterGeneration .* era 1986/,
      );
    }
  });

  it('the -32004 split: on a subscribe a terminal task (rule 3), on a send no stream at all', async () => {
    const err = '{"type":"a2a/error","error":{"code":-32004}}';
    const sub = await checkTrace([
      HEAD('dev-1.1'),
      SEND,
      snapshot(1),
      '{"type":"disconnect"}',
      SUB,
      err,
    ]);
    expect(sub.reconnects[0]!.code).toBe('bad-status');
    expect(sub.reconnects[0]!.reason).toMatch(/terminal state/);
    expect(sub.reconnects[0]!.reason).not.toMatch(/does not stream/);
    const send = await checkTrace([HEAD('dev-1.1'), SEND, err]);
    expect(send.reconnects).toEqual([]);
    expect(send.exitCode).toBe(0);
  });
});

describe('the three wire shapes read alike', () => {
  it('JSON-RPC, REST and v0.3 give the same frame', () => {
    const jsonrpc = readFrame({
      jsonrpc: '2.0',
      id: 1,
      result: { statusUpdate: { taskId: 'T', generation: 4 } },
    });
    const rest = readFrame({ statusUpdate: { taskId: 'T', generation: '4' } });
    const v03 = readFrame({
      jsonrpc: '2.0',
      id: 1,
      result: { kind: 'status-update', taskId: 'T', generation: 4, final: false },
    });
    expect(rest).toEqual(jsonrpc);
    expect(v03).toEqual(jsonrpc);
  });
});

describe('choosing the era', () => {
  it('--a2a-era implies --binding a2a; a bad era or a conflict is one line and exit 2', async () => {
    const trace =
      [SEND, snapshot(1), status(2), '{"type":"disconnect"}', SUB, snapshot(2)].join('\n') + '\n';
    const dev = await checkText(trace, ['--json', '--a2a-era', 'dev-1.1']);
    expect(dev.code).toBe(0);
    expect((JSON.parse(dev.out) as CheckReport).reconnects[0]!.code).toBe('caught-up');
    const plain = await checkText(trace, ['--json', '--binding', 'a2a']);
    expect((JSON.parse(plain.out) as CheckReport).reconnects[0]!.rule).toBe(0);
    for (const [args, message] of [
      [
        ['--a2a-era', '2.0'],
        /^check: --a2a-era must be one of 1\.0, dev-1\.1, 1986, got "2\.0"\n$/,
      ],
      [
        ['--a2a-era', '1986', '--binding', 'mcp-tasks'],
        /^check: --a2a-era applies to --binding a2a/,
      ],
    ] as const) {
      const r = await runCli(['check', '-', ...args], trace);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
    }
    const conflict = await checkText(HEAD('dev-1.1') + '\n' + trace, ['--a2a-era', '1986']);
    expect(conflict.code).toBe(2);
    expect(conflict.err).toMatch(
      /^check: <stdin>: line 1: the binding line says era dev-1\.1, but the one chosen \(--a2a-era\) is 1986\n$/,
    );
    expect(a2aOfEra('1986').variant).toBe('1986');
  });

  it('--help names the binding, its era option and its lines', async () => {
    const { out } = await runCli(['check', '--help']);
    for (const s of [
      '--a2a-era',
      'a2a/send',
      'a2a/subscribe',
      'a2a/frame',
      'a2a/end',
      'a2a/error',
      'dev-1.1',
      '1986',
    ]) {
      expect(out).toContain(s);
    }
  });
});

describe('reports speak A2A', () => {
  it.each(a2aCases.map((n) => [n] as const))(
    '%s: no SSE word, and every failed resume says to re-sync with GetTask, never to re-send',
    async (name) => {
      const text = await runCli(['check', `${CORPUS}${name}.jsonl`]);
      for (const word of [
        'Last-Event-ID',
        'reconnect with',
        're-initialize',
        're-issue',
        'replay floor',
        'event id',
      ]) {
        expect(text.out, word).not.toContain(word);
      }
      expect(text.out.replace(/never re-send the message/g, '')).not.toMatch(/re-send/);
      for (const r of expectedOf(name).report!.reconnects) {
        if (r.expected === 'resumption-failed')
          expect(r.reason, `line ${r.line}`).toContain('GetTask');
      }
    },
  );
});

describe('the translator branches (the world clones it)', () => {
  it('a clone goes on independently, and equal keys mean equal translations', () => {
    const t = a2aOfEra('dev-1.1').translator!();
    const facts = [SEND, snapshot(1), status(2)].map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    for (const f of facts) t.translate(f);
    const c = t.clone!();
    expect(c.key!()).toBe(t.key!());
    const next = JSON.parse(status(3)) as Record<string, unknown>;
    expect(c.translate(next)).toEqual([{ type: 'EVENT', id: 3, stream: 'T' }]);
    expect(c.key!()).not.toBe(t.key!());
    // The original did not see generation 3: it still passes it on, not as a duplicate.
    expect(t.translate(next)).toEqual([{ type: 'EVENT', id: 3, stream: 'T' }]);
    expect(c.translate(next)).toEqual([{ type: 'KEEPALIVE' }]);
  });
});
