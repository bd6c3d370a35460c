/**
 * The task-stream binding (model/bindings/mcp-tasks.ts, SEP-2694): what each task line means
 * to the machine, the choice of binding (binding line, --binding, their conflict), and the
 * binding mutants (model/mutants/binding-mutants.ts), each killed by a named corpus trace.
 * The corpus traces' full reports are held by corpus.test.ts (CLI and library).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BINDING_MUTANTS, CORPUS_BINDING_MUTANTS } from '../../model/mutants/binding-mutants.js';
import type { Binding } from '../../model/bindings/binding.js';
import {
  mcpTasks,
  SEP_2694_COMMIT,
  SEP_2694_RULES,
  TASK_LINE_TYPES,
  tasksBinding,
} from '../../model/bindings/mcp-tasks.js';
import { checkTrace, type CheckReport } from '../../src/trace/index.js';
import { checkText, runCli } from './helpers.js';

const CORPUS = fileURLToPath(new URL('../corpus/', import.meta.url));

function corpusLines(name: string): string[] {
  return readFileSync(`${CORPUS}${name}.jsonl`, 'utf8').replace(/\n$/, '').split('\n');
}

function expectedOf(name: string): { args?: string[]; exit: number; report?: CheckReport } {
  return JSON.parse(readFileSync(`${CORPUS}${name}.expected.json`, 'utf8')) as {
    args?: string[];
    exit: number;
    report?: CheckReport;
  };
}

const HEAD = '{"type":"binding","name":"mcp-tasks"}';
const call = (after?: number, task = 't1') =>
  JSON.stringify({ type: 'tasks/stream', taskId: task, ...(after === undefined ? {} : { after }) });
const ev = (seq: number, task = 't1') => JSON.stringify({ type: 'tasks/event', taskId: task, seq });
const gone = (earliestSeq: number | undefined, status?: number) =>
  JSON.stringify({
    type: 'tasks/error',
    ...(status === undefined ? {} : { status }),
    error: {
      code: -32010,
      data: { reason: 'events_gone', ...(earliestSeq === undefined ? {} : { earliestSeq }) },
    },
  });
/** Opens task t1, delivers 0..last, breaks, and resumes with `after`. */
const resumeAfter = (last: number, after: number) => [
  HEAD,
  call(),
  ...Array.from({ length: last + 1 }, (_, i) => ev(i)),
  '{"type":"disconnect"}',
  call(after),
];

async function only(lines: string[], options = {}) {
  const report = await checkTrace(lines, options);
  expect(report.reconnects).toHaveLength(1);
  return report.reconnects[0]!;
}

const tasksCases = readdirSync(CORPUS)
  .filter((f) => f.startsWith('tasks-') && f.endsWith('.jsonl'))
  .map((f) => f.slice(0, -'.jsonl'.length))
  .filter((name) => expectedOf(name).exit !== 2);

/** The corpus reports of a mutant that differ from the expected ones (a rejection differs too). */
async function killedBy(binding: (typeof BINDING_MUTANTS)[number]['binding']): Promise<string[]> {
  const differs: string[] = [];
  for (const name of tasksCases) {
    const e = expectedOf(name);
    const args = e.args ?? [];
    const b = args.indexOf('--proof-budget');
    const got = await checkTrace(corpusLines(name), {
      binding,
      strict: args.includes('--strict'),
      ...(b >= 0 ? { proofBudget: Number(args[b + 1]) } : {}),
    }).catch((err: Error) => err.message);
    if (JSON.stringify(got) !== JSON.stringify(e.report)) differs.push(name);
  }
  return differs;
}

describe('mcp-tasks: task lines as observations', () => {
  it('a resume whose after is behind the last seq delivered is proven by after + 1, not by the last seq + 1', async () => {
    // SEP-2694: persist a seq only once processed, so after may lag what was received.
    const r = await only([...resumeAfter(5, 3), ev(4), ev(5), ev(6)]);
    expect([r.expected, r.code]).toEqual(['resumed', 'successor']);
  });

  it('a repeated seq inside an accepted stream is dropped: no break, and the next seq continues', async () => {
    const report = await checkTrace([HEAD, call(), ev(0), ev(1), ev(1), ev(1), ev(2)]);
    expect(report.breaks).toEqual([]);
    expect(report.exitCode).toBe(0);
  });

  it('seq going back inside one live stream is a break (SEP-2694: MUST deliver in sequence order)', async () => {
    const report = await checkTrace([HEAD, call(), ev(0), ev(1), ev(2), ev(0), ev(3)]);
    expect(report.breaks.map((b) => [b.line, b.expected, b.got])).toEqual([[6, 3, 0]]);
    expect(report.breaks[0]!.reason).toMatch(/seq went back inside one live stream/);
  });

  it("another task's event inside an accepted stream is a break", async () => {
    const report = await checkTrace([HEAD, call(), ev(0), ev(1), ev(2, 't2')]);
    expect(report.breaks.map((b) => [b.line, b.got, b.stream])).toEqual([[5, 2, 't2']]);
  });

  it('a binding line after the first line is bad input under either binding', async () => {
    for (const head of [HEAD, '{"type":"binding","name":"mcp-sse"}']) {
      await expect(checkTrace([head, '{"type":"keepalive"}', HEAD])).rejects.toThrow(
        'line 3: a binding line must be the first line of the trace',
      );
    }
  });

  it('a skip inside an accepted stream is a break', async () => {
    const report = await checkTrace([HEAD, call(), ev(0), ev(1), ev(3)]);
    expect(report.breaks).toEqual([
      { line: 5, expected: 2, got: 3, reason: expect.any(String) as string, stream: 't1' },
    ]);
  });

  it('events_gone is resumption-failed, as a JSON-RPC error and as 404 or 410 alike', async () => {
    for (const status of [undefined, 200, 404, 410, 500]) {
      const r = await only([...resumeAfter(5, 5), gone(100, status)]);
      expect([r.expected, r.code, r.rule], String(status)).toEqual([
        'resumption-failed',
        'cursor-below-floor',
        5,
      ]);
    }
  });

  it('events_gone whose floor covers the cursor, or with no floor, contradicts itself: a bad status, never delayed', async () => {
    for (const earliest of [0, 5, 6, undefined]) {
      const r = await only([...resumeAfter(5, 5), gone(earliest), '{"type":"keepalive"}']);
      expect([r.expected, r.code], String(earliest)).toEqual(['resumption-failed', 'bad-status']);
    }
  });

  it('a 404 or 410 without an events_gone body is session-lost; any other error is a bad status', async () => {
    for (const [line, outcome] of [
      ['{"type":"tasks/error","status":404}', 'session-lost'],
      ['{"type":"tasks/error","status":410,"error":{"code":-32603}}', 'session-lost'],
      ['{"type":"tasks/error","status":400,"error":{"code":-32602}}', 'resumption-failed'],
      ['{"type":"tasks/error","error":{"code":-32601}}', 'resumption-failed'],
    ] as const) {
      const r = await only([...resumeAfter(2, 2), line]);
      expect(r.expected, line).toBe(outcome);
    }
  });

  it('a stream closed before any new event is a poll; a disconnect before any answer fails (no response)', async () => {
    const poll = await only([...resumeAfter(2, 2), '{"type":"tasks/result"}']);
    expect([poll.expected, poll.code]).toEqual(['resumption-failed', 'unproven']);
    const cut = await only([...resumeAfter(2, 2), '{"type":"disconnect"}']);
    expect([cut.expected, cut.code]).toEqual(['resumption-failed', 'no-response']);
  });

  it('an error answering the opening call ends that stream; a call again without after resumes from seq 0', async () => {
    const report = await checkTrace([
      HEAD,
      call(),
      '{"type":"tasks/error","error":{"code":-32601}}',
      call(),
      ev(0),
      ev(1),
    ]);
    // The task was called before: the second call is a resume from its start (after -1),
    // proven by seq 0, not a fresh stream that would take any first seq.
    expect(report.reconnects.map((r) => [r.line, r.cursor, r.expected, r.code])).toEqual([
      [4, -1, 'resumed', 'successor'],
    ]);
    expect(report.exitCode).toBe(0);
  });

  it('a call again before any event is proven only by seq 0: a later first seq is a skip, an empty stream fails at P', async () => {
    const skip = await only([HEAD, call(), '{"type":"disconnect"}', call(), ev(3)]);
    expect([skip.expected, skip.code]).toEqual(['resumption-failed', 'skip']);
    const empty = await only(
      [
        '{"type":"binding","name":"mcp-tasks","proofBudget":1000}',
        '{"type":"tasks/stream","taskId":"t1","t":0}',
        '{"type":"disconnect","t":10}',
        '{"type":"tasks/stream","taskId":"t1","t":20}',
        '{"type":"keepalive","t":600}',
        '{"type":"keepalive","t":1200}',
      ],
      {},
    );
    // Keepalives answer the call (its stream is open): unproven, not "no answer".
    expect([empty.expected, empty.code]).toEqual(['resumption-failed', 'unproven']);
  });

  it('the first event of a fresh stream must be seq 0: a receiver that starts at a later retained event is a break', async () => {
    const report = await checkTrace([HEAD, call(), ev(2), ev(3)]);
    expect(report.breaks.map((b) => [b.line, b.expected, b.got])).toEqual([[3, 0, 2]]);
  });

  it('a call without after is an open the first time, a resume from seq 0 again, and a resume from the last seq once the task delivered an event', async () => {
    const again = await only([HEAD, call(), '{"type":"tasks/result"}', call(), ev(0)]);
    expect([again.cursor, again.after, again.expected]).toEqual([-1, null, 'resumed']);
    // SEP-2694: without after the receiver starts at its earliest retained event: seq 0 is a
    // duplicate, seq 1 the successor of the last seq seen.
    const resumed = await only([
      HEAD,
      call(),
      ev(0),
      '{"type":"disconnect"}',
      call(),
      ev(0),
      ev(1),
    ]);
    expect([resumed.expected, resumed.code, resumed.cursor, resumed.after]).toEqual([
      'resumed',
      'successor',
      0,
      null,
    ]);
    const skipped = await only([HEAD, call(), ev(0), '{"type":"disconnect"}', call(), ev(2)]);
    expect([skipped.expected, skipped.code]).toEqual(['resumption-failed', 'skip']);
  });

  it("another task's event is never a duplicate, whatever its seq", async () => {
    const r = await only([...resumeAfter(5, 5), ev(2, 't2')]);
    expect([r.expected, r.code]).toEqual(['resumption-failed', 'cross-stream']);
  });

  it('a cursor ahead of the last seq delivered is reported, as for SSE', async () => {
    const report = await checkTrace([...resumeAfter(2, 4), ev(5)]);
    expect(report.cursorAhead).toEqual([{ line: 7, cursor: 4, lastReceived: 2, stream: 't1' }]);
  });

  it("a dropped duplicate's t still counts against the budget, and --proof-budget wins over the trace's", async () => {
    const lines = corpusLines('tasks-duplicates-forever');
    const byTrace = await only(lines);
    expect(byTrace.reason).toMatch(/proof budget of 3000 ms from line 10 ran out by line 17/);
    // Without the trace's budget the run of duplicates going back to seq 0 fails first: seq
    // out of sequence order on one answer (SEP-2694: MUST deliver in sequence order).
    const byFlag = await only(lines, { proofBudget: 1_000_000 });
    expect([byFlag.expected, byFlag.code, byFlag.decidedAt]).toEqual([
      'resumption-failed',
      'rewind',
      17,
    ]);
  });
});

describe('the budget belongs to the episode, not to the binding', () => {
  it('a binding that turns every duplicate into a fresh poll (END, then the same resume) still fails at P', async () => {
    // What a client that restarts its wait on each duplicate would record: the checker joins
    // the polls into one episode and measures the budget from its first reconnect.
    const real = mcpTasks.translator!();
    const repolls: Binding = {
      ...mcpTasks,
      translator: () => ({
        translate(fact) {
          const out = real.translate(fact);
          return out.some((o) => o.type === 'KEEPALIVE')
            ? [
                ...out.filter((o) => o.type !== 'KEEPALIVE'),
                { type: 'END' },
                { type: 'RECONNECT', cursor: 5, stream: 'task-123' },
                { type: 'RESPONSE', status: 200 },
              ]
            : out;
        },
      }),
    };
    const report = await checkTrace(corpusLines('tasks-duplicates-forever'), { binding: repolls });
    const first = report.reconnects[0]!;
    expect(first.episode).toEqual({ first: 10, polls: 7 });
    expect([first.expected, first.code, first.decidedAt]).toEqual([
      'resumption-failed',
      'unproven',
      17,
    ]);
    expect(first.reason).toMatch(/proof budget of 3000 ms from line 10 ran out by line 17/);
    // A poll after the failure is a new resume with its own budget: it fails at P too.
    expect(new Set(report.reconnects.map((r) => r.expected))).toEqual(
      new Set(['resumption-failed']),
    );
  });
});

describe('choosing the binding', () => {
  it('--binding mcp-tasks reads a trace without a binding line exactly as the line does', async () => {
    const lines = corpusLines('tasks-skip');
    const withLine = await runCli(['check', `${CORPUS}tasks-skip.jsonl`, '--json']);
    const withFlag = await checkText(lines.slice(1).join('\n') + '\n', [
      '--json',
      '--binding',
      'mcp-tasks',
    ]);
    const flagged = JSON.parse(withFlag.out) as CheckReport;
    const lined = JSON.parse(withLine.out) as CheckReport;
    expect(withFlag.code).toBe(1);
    expect(flagged.reconnects.map((r) => [r.line + 1, r.expected, r.verdict])).toEqual(
      lined.reconnects.map((r) => [r.line, r.expected, r.verdict]),
    );
    // The same binding named twice is no conflict.
    expect(
      (await runCli(['check', `${CORPUS}tasks-skip.jsonl`, '--binding', 'mcp-tasks'])).code,
    ).toBe(1);
  });

  it('a binding line naming mcp-sse, or none, reads the native lines as always', async () => {
    const sse = readFileSync(`${CORPUS}rule6-skip.jsonl`, 'utf8');
    const plain = await checkTrace(sse);
    const lined = await checkTrace('{"type":"binding","name":"mcp-sse"}\n' + sse);
    expect(lined.reconnects.map((r) => r.line - 1)).toEqual(plain.reconnects.map((r) => r.line));
    expect(lined.reconnects.map((r) => r.code)).toEqual(plain.reconnects.map((r) => r.code));
  });

  it('an unknown --binding, a conflict, or task lines under mcp-sse: exit 2 and one line', async () => {
    const tasks = readFileSync(`${CORPUS}tasks-clean-resume.jsonl`, 'utf8');
    for (const [text, args, message] of [
      [
        tasks,
        ['--binding', 'mcp-grpc'],
        /^check: unknown --binding "mcp-grpc" \(expected one of mcp-sse, mcp-tasks, a2a\)\n$/,
      ],
      [
        tasks,
        ['--binding', 'mcp-sse'],
        /^check: <stdin>: line 1: the binding line says mcp-tasks, but the binding chosen \(--binding\) is mcp-sse\n$/,
      ],
      [
        tasks.split('\n').slice(1).join('\n'),
        [],
        /^check: <stdin>: line 1: unknown type "tasks\/stream"/,
      ],
      [
        '{"type":"binding","name":"mcp-tasks","proofBudget":-1}\n',
        [],
        /line 1: binding line proofBudget must be a non-negative number of ms, got -1\n$/,
      ],
    ] as const) {
      const r = await checkText(text, [...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(message);
    }
  });

  it('the library rejects an unknown binding name', async () => {
    await expect(checkTrace([], { binding: 'mcp-grpc' })).rejects.toThrow(
      /unknown binding "mcp-grpc"/,
    );
  });
});

describe('binding mutants', () => {
  it('the real binding passes the whole task corpus', async () => {
    expect(await killedBy(mcpTasks)).toEqual([]);
  });

  // Each mutant with the trace that must kill it, and what it wrongly says there.
  const KILLS: Record<string, [trace: string, expected: string, code: string]> = {
    'tasks-410-is-session-lost': ['tasks-events-gone-410', 'session-lost', 'session-gone'],
    'tasks-duplicate-is-rewind': ['tasks-duplicates-then-successor', 'resumption-failed', 'rewind'],
    'tasks-duplicate-proves': ['tasks-duplicates-forever', 'resumed', 'successor'],
    'tasks-missing-after-opens': ['tasks-missing-after', 'no reconnect', 'no reconnect'],
  };

  it('every binding mutant has a named killing trace', () => {
    expect(Object.keys(KILLS).sort()).toEqual(BINDING_MUTANTS.map((m) => m.name).sort());
  });

  it.each(BINDING_MUTANTS.map((m) => [m.name, m] as const))(
    'the corpus kills %s',
    async (name, m) => {
      const [trace, expected, code] = KILLS[name]!;
      expect(await killedBy(m.binding)).toContain(trace);
      const lines = corpusLines(trace).filter((l) => !l.includes('"decision"'));
      const report = await checkTrace(lines, { binding: m.binding });
      const got = report.reconnects.at(-1);
      expect(got ? [got.expected, got.code] : ['no reconnect', 'no reconnect']).toEqual([
        expected,
        code,
      ]);
    },
  );
});

describe('corpus-only binding mutants', () => {
  const mutantNamed = (name: string) => CORPUS_BINDING_MUTANTS.find((m) => m.name === name)!;

  it('a seam duplicate (a resumed answer sends again what it passed on) is dropped, with --strict too, and noted', async () => {
    const lines = corpusLines('tasks-seam-duplicates-strict');
    const report = await checkTrace(lines, { strict: true });
    expect([report.breaks, report.exitCode]).toEqual([[], 0]);
    expect(report.summary.notes?.[0]).toMatch(
      /^line 15: seq 7 came again on the answer to a resume, after later seqs \(a snapshot\/live seam\)/,
    );
    // The mutant that reads it as out of order breaks the stream: a false alarm.
    const mutant = await checkTrace(lines, {
      strict: true,
      binding: mutantNamed('tasks-seam-duplicate-is-break').binding,
    });
    expect(mutant.breaks.map((b) => [b.line, b.expected, b.got])).toEqual([[15, 9, 7]]);
    expect(mutant.exitCode).toBe(1);
  });

  it("going back below the call's cursor, or past the seam to a gap, is still judged", async () => {
    // After 2: seq 3, then 0 (below the cursor): out of sequence order, a rewind.
    const rewind = await only([...resumeAfter(2, 2), ev(3), ev(0)]);
    expect([rewind.expected, rewind.code]).toEqual(['resumed', 'successor']);
    const back = await checkTrace([...resumeAfter(2, 2), ev(3), ev(0), ev(4)]);
    expect(back.breaks.map((b) => [b.expected, b.got])).toEqual([[4, 0]]);
    // A seam, then a skip: 6, 7, 8, 7, 10 after 5 loses 9.
    const skip = await checkTrace([...resumeAfter(5, 5), ev(6), ev(7), ev(8), ev(7), ev(10)]);
    expect(skip.breaks.map((b) => [b.expected, b.got])).toEqual([[9, 10]]);
    // On the answer to an opening call no reconnect came: going back is a break.
    const live = await checkTrace([HEAD, call(), ev(0), ev(1), ev(2), ev(1), ev(3)]);
    expect(live.breaks.map((b) => [b.expected, b.got])).toEqual([[3, 1]]);
  });

  it('two recoveries without after: the second is judged from the last seq received, not earliestSeq - 1', async () => {
    const lines = corpusLines('tasks-two-recoveries-without-after').filter(
      (l) => !l.includes('"decision"'),
    );
    const report = await checkTrace(lines);
    expect(report.reconnects.map((r) => [r.line, r.cursor, r.expected, r.code])).toEqual([
      [6, 1, 'resumption-failed', 'cursor-below-floor'],
      [8, 99, 'resumed', 'successor'],
      [16, 105, 'resumed', 'successor'],
    ]);
    const mutant = await checkTrace(lines, {
      binding: mutantNamed('tasks-recovery-from-earliest-seq').binding,
    });
    expect(mutant.reconnects.at(-1)).toMatchObject({
      cursor: 99,
      expected: 'resumption-failed',
      code: 'skip',
    });
  });

  it.each(CORPUS_BINDING_MUTANTS.map((m) => [m.name, m] as const))(
    'the corpus kills %s',
    async (_name, m) => {
      expect(await killedBy(m.binding)).not.toEqual([]);
    },
  );
});

describe('the rule this binding changed from SSE', () => {
  // Before SEP-2694 was read closely, a call without after once events were seen was rule 0
  // (cursor-dropped). SEP-2694: "If after is omitted, the receiver MUST start at the earliest
  // event it still retains for the task": the first new seq proves the resume or shows the gap.
  const dropsCursor = tasksBinding({ ...SEP_2694_RULES, missingAfter: 'reconnect' });

  it('a binding that reads a call without after as a dropped cursor fails the corpus (a false alarm)', async () => {
    for (const name of [
      'tasks-no-after-duplicates-then-successor',
      'tasks-no-after-retained-tail',
    ]) {
      const lines = corpusLines(name).filter((l) => !l.includes('"decision"'));
      const real = await only(lines);
      const old = await only(lines, { binding: dropsCursor });
      expect([real.expected, real.code], name).toEqual(['resumed', 'successor']);
      expect([old.expected, old.code], name).toEqual(['resumption-failed', 'cursor-dropped']);
    }
  });
});

describe('documentation', () => {
  it('docs/trace-format.md maps every task line and names the SEP-2694 commit modelled', () => {
    const doc = readFileSync(
      fileURLToPath(new URL('../../docs/trace-format.md', import.meta.url)),
      'utf8',
    );
    for (const type of TASK_LINE_TYPES) expect(doc).toContain(`{"type":"${type}"`);
    expect(doc).toContain('{"type":"binding","name":"mcp-tasks"');
    expect(doc).toContain(SEP_2694_COMMIT);
  });

  it('check --help documents --binding and the task lines', async () => {
    const { code, out } = await runCli(['check', '--help']);
    expect(code).toBe(0);
    expect(out).toContain('--binding');
    for (const type of TASK_LINE_TYPES) expect(out).toContain(`{"type":"${type}"`);
  });
});

describe("the binding's words and the first stream", () => {
  const SSE_WORDS = /Last-Event-ID|status=|event id|cursor \d|a 200 proves|replay floor/;

  it('no report on a task trace of the corpus speaks SSE: every reason is in the binding words', async () => {
    const names = readdirSync(CORPUS)
      .filter((f) => f.startsWith('tasks-') && f.endsWith('.jsonl') && !f.includes('-bad-'))
      .map((f) => f.slice(0, -'.jsonl'.length));
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      const { args } = expectedOf(name);
      const budget = args?.includes('--proof-budget')
        ? { binding: 'mcp-tasks', proofBudget: Number(args[args.indexOf('--proof-budget') + 1]) }
        : { binding: 'mcp-tasks' };
      const report = await checkTrace(corpusLines(name), budget);
      for (const r of [...report.reconnects, ...report.breaks]) {
        // The checker's own frame ("[poll 1 of 2 with cursor 5 ...]") is not a machine reason.
        expect(r.reason.replace(/\[poll .*\]$/, ''), `${name} line ${r.line}`).not.toMatch(
          SSE_WORDS,
        );
      }
    }
  });

  /**
   * Words a task report must never use: SSE's header and id, a cursor of -1, the machine's
   * internal event names, SSE status text. Task reports speak of after, seq, events_gone,
   * earliestSeq and the task id.
   */
  const SSE_ONLY =
    /Last-Event-ID|\bids?\b|cursor -1|cursor\s+-?\d|after -\d|same after|[A-Z]+_[A-Z]+|\b(?:DISCONNECT|RECONNECT|KEEPALIVE|RESPONSE|EVENT|OPEN|END)\b|status=|replay floor|\b(\d+)\.\.\1 are lost/;

  it('no text or --json report on a task trace says an SSE-only word (the whole output, not only reasons)', async () => {
    const names = readdirSync(CORPUS)
      .filter((f) => f.startsWith('tasks-') && f.endsWith('.jsonl') && !f.includes('-bad-'))
      .map((f) => f.slice(0, -'.jsonl'.length));
    for (const name of names) {
      const args = expectedOf(name).args ?? [];
      const text = await runCli(['check', `${CORPUS}${name}.jsonl`, ...args]);
      expect(text.out, name).not.toMatch(SSE_ONLY);
      const json = JSON.parse(
        (await runCli(['check', `${CORPUS}${name}.jsonl`, '--json', ...args])).out,
      ) as CheckReport;
      for (const r of [...json.reconnects, ...json.breaks]) {
        expect(r.reason, `${name} line ${r.line}`).not.toMatch(SSE_ONLY);
      }
    }
  });

  it('the SSE-only pattern catches each word the task reports used to say', () => {
    for (const old of [
      'line 8: reconnect with no Last-Event-ID on stream task-123',
      'line 4: reconnect with cursor -1 on stream t1',
      'line 9: break: expected id 8, got 9 (stream t1): non-contiguous task stream: expected seq 8, got 9',
      'but the last id received was 5',
      'no new event proved continuity after seq 5 before PROOF_TIMEOUT',
      'after 5 below earliestSeq 7 (events_gone); seq 6..6 are lost',
      '[poll 2 of 2 with after -1: one episode, reconnects from line 4 to line 6]',
      'polled again with the same after: ok',
    ]) {
      expect(old).toMatch(SSE_ONLY);
    }
  });

  it('the machine keeps its own words under mcp-sse', async () => {
    const report = await checkTrace(corpusLines('cursor-dropped'));
    expect(report.reconnects[0]!.reason).toMatch(/Last-Event-ID/);
  });

  it("another task's event as the first event of the first stream is a break (the call names its task)", async () => {
    const report = await checkTrace(corpusLines('tasks-other-task-first-stream'));
    expect(report.breaks).toEqual([
      {
        line: 3,
        expected: 0,
        got: 0,
        reason: 'event of task task-456 on the stream of task task-123',
        stream: 'task-456',
      },
    ]);
    // And it does not take the other task for the stream: the called task's events are its own.
    const own = await checkTrace([HEAD, call(undefined, 'a'), ev(0, 'a'), ev(1, 'a')]);
    expect(own.breaks).toEqual([]);
  });

  it("a binding's observations reach the machine whole: a RESPONSE's durable and epoch are kept", async () => {
    // Written as native lines and read back, the observations lost these fields.
    const real = mcpTasks.translator!();
    const saysNotDurable: Binding = {
      ...mcpTasks,
      translator: () => ({
        translate(fact) {
          return real
            .translate(fact)
            .map((o) => (o.type === 'RESPONSE' ? { ...o, durable: false } : o));
        },
      }),
    };
    const report = await checkTrace([...resumeAfter(3, 3), ev(4)], { binding: saysNotDurable });
    expect(report.reconnects.map((r) => r.code)).toEqual(['not-durable']);
  });
});
