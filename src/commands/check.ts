/**
 * `mcp-resumption check FILE`: the trace oracle. Reads a trace recorded from any
 * implementation (format v1, docs/trace-format.md), decides every reconnect with the client
 * machine, and compares with what the implementation decided.
 */
import { A2A_ERAS, BINDING_NAMES, bindingNamed, type A2aEra } from '../../model/bindings/index.js';
import { parseCommandArgs, UsageError, type Command } from './cli-kit.js';
import { corpusFallback } from '../docs-gen/corpus-path.js';
import { TraceChecker } from '../trace/checker.js';
import { compileIdPattern, TraceInputError } from '../trace/format.js';
import { forEachLine, openTraceSource } from '../trace/read.js';
import { jsonRenderer, textRenderer, type Write } from '../trace/render.js';

/** Output is held until this many characters, so that early bad input leaves stdout empty. */
const HOLD_CHARS = 64 * 1024;

/** Holds output up to {@link HOLD_CHARS}, then streams it. */
function heldOutput(out: Write) {
  let held: string[] | null = [];
  let size = 0;
  return {
    write(text: string) {
      if (held === null) return out(text);
      held.push(text);
      size += text.length;
      if (size > HOLD_CHARS) this.flush();
    },
    flush() {
      if (held !== null && held.length) out(held.join(''));
      held = null;
    },
  };
}

const HELP = `Usage: mcp-resumption check FILE [--json] [--strict] [--id-pattern REGEX] [--proof-budget MS]
                             [--binding mcp-sse|mcp-tasks|a2a] [--a2a-era 1.0|dev-1.1|1986]

Checks a trace recorded from an MCP client: did it ever accept a reconnect it could not
prove? Every reconnect is decided by the rules of docs/spec.md ("The rules"; mcp-resumption
table prints them), as the client machine encodes them, on the lines between it and the next
reconnect (its judgement window), and compared with the implementation's own decision. FILE
is a path, or - for standard input. The trace streams: memory stays flat. A path under
properties/corpus/ that is not in the current directory is read from the installed package's
corpus, so the docs' reproduction commands run outside a clone too.

Trace format v1 (docs/trace-format.md): JSON Lines, one object per line with a "type"; "t"
(ms) is optional everywhere; unknown fields are ignored; blank lines are skipped.
  {"type":"open","status":200,"epoch":"e1"}       stream opened (status default 200, epoch optional)
  {"type":"event","id":41}                        SSE event; id = integer or decimal string;
                                                  optional stream, kind, data (a priming event,
                                                  an id with empty data, and an id-only SSE block
                                                  are such lines: they count like any id)
  {"type":"event","data":"..."}                   id-less data: delivered, never replayable; a
                                                  reconnect after it (before the next id) fails
  {"type":"keepalive"}                            an SSE comment (": ..."): never delivered, states
                                                  no position; a data block without an id is an
                                                  event line without an id, never a keepalive
  {"type":"idle-timeout"}  {"type":"disconnect"}  {"type":"end"}   (end: the server ended the stream)
  {"type":"reconnect","cursor":41}                reconnect with Last-Event-ID (null: none sent);
                                                  stream optional
  {"type":"response","status":200,"floor":42,"epoch":"e1","durable":true}
                                                  answer to the latest reconnect; floor, epoch,
                                                  durable optional
  {"type":"decision","outcome":"resumed"}         the implementation's decision on the latest
                                                  reconnect: resumed, delayed, resumption-failed,
                                                  session-lost (the last one in the window counts)
Without an open before the first line that needs a stream, the stream is taken as opened.

Bindings: the lines above are mcp-sse (the default: resumable SSE streams, Last-Event-ID).
A first line {"type":"binding","name":"mcp-tasks"} (optional "proofBudget": MS) or --binding
mcp-tasks reads MCP task event streams (SEP-2694 draft) instead:
  {"type":"tasks/stream","taskId":"t1","after":5} the call; with after: a resume (reconnect);
                                                  without after once t1's events were seen: a
                                                  resume from the last seq seen, whose repeats
                                                  are duplicates
  {"type":"tasks/event","taskId":"t1","seq":6}    notifications/tasks/event; a duplicate (seq not
                                                  above after, then not above the last seq passed
                                                  on, in order) is dropped:
                                                  it proves nothing and extends no wait
  {"type":"tasks/result"}                         the empty result: the stream was closed (a poll)
  {"type":"tasks/error","status":410,"error":{"code":-32010,"data":{"reason":"events_gone",
   "earliestSeq":100}}}                           an error answer; events_gone is classified on the
                                                  body (resumption-failed, even as HTTP 410)
  plus keepalive, idle-timeout, disconnect and decision lines as above.
  A trace of several tasks is judged per task, each by its own machine, in one report; a line
  without taskId (result, error, keepalive, disconnect, idle-timeout, decision) belongs to the
  one task it can, else it needs "taskId" (bad input without it).

A first line {"type":"binding","name":"a2a","era":"dev-1.1"} or --binding a2a reads A2A task
streams (docs/a2a.md), in one era: 1.0 (the default: no generation, no cursor: every
SubscribeToTask fails at rule 0), dev-1.1 (per-task generation: the snapshot's generation g
is floor g+1 and head g), 1986 (epic #1986 as proposed: SubscribeToTask with afterGeneration,
replay or gap). --a2a-era ERA chooses it (and implies --binding a2a); a binding line's era
that differs is bad input. Lines, per task as under mcp-tasks:
  {"type":"a2a/send","taskId":"t1"}               SendStreamingMessage (v0.3 message/stream): opens
  {"type":"a2a/subscribe","taskId":"t1"}          SubscribeToTask (v0.3 tasks/resubscribe): a
                                                  reconnect; era 1986 also "afterGeneration":N
  {"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1",
   "generation":5}}}}                             one SSE data payload as received: JSON-RPC,
                                                  REST (the StreamResponse alone) or v0.3 ("kind")
  {"type":"a2a/end"}                              the stream closed
  {"type":"a2a/error","status":200,"error":{"code":-32001}}
                                                  an error answer, classified on the JSON-RPC
                                                  body (the SDK sends HTTP 200): -32001 session
                                                  lost; -32004 on a subscribe: the task ended
                                                  while away (rule 3), on a send: no streaming
  plus keepalive, idle-timeout, disconnect and decision lines as above.

Expected outcome: the first of resumed, resumption-failed or session-lost that the machine
reaches in the window; delayed if it stays delayed until the window closes (with --proof-budget,
for at most that budget from the episode's first reconnect: rule 7.4); a reconnect still
unproven when the window closes (next reconnect, end of trace) is resumption-failed.
Polling: when the server ends a 200 answer without a floor before any event (a poll), the next
reconnect with the same cursor continues one episode, judged as one (delayed on an intermediate
poll is ok); a reconnect without Last-Event-ID is never resumed or delayed (rule 0).

Verdicts: ok; unsafe-accept (said resumed or delayed, oracle says resumption-failed or
session-lost); false-alarm (escalated, oracle says resumed or delayed); misclassified (the other
escalation); unchecked (no decision line). Also reported: a break (inside an accepted stream,
an id that is not the successor of the previous one) and a cursor ahead (a reconnect whose
cursor is above the last id received: the client skips events itself).

Options:
  --json              one JSON object: {"reconnects":[...],"breaks":[...],"cursorAhead":[...],
                      "summary":{...},"exitCode":N}
  --strict            false-alarm and misclassified are violations too, and so is a dropped
                      call: a stream that ended (end, disconnect) without its response and
                      with no reconnect after it; it needs a trace that marks the event
                      carrying the response ("response": true), else a note says so
  --id-pattern REGEX  read sequence numbers out of opaque ids with a named group (?<seq>\\d+),
                      and optionally (?<stream>...): e.g. '^(?<stream>.+)_(?<seq>\\d+)$'
  --proof-budget MS   an episode still unproven or delayed MS ms (by the lines' "t" fields) after
                      its first reconnect has failed; a reconnect after a delayed one with the
                      same cursor keeps that start; a "t" that is not a number, or less than
                      an earlier line's "t", is then bad input; wins over a binding line's
                      proofBudget. Default: no budget, an episode is judged when its window
                      closes, and "t" is not checked
  --binding NAME      mcp-sse (default), mcp-tasks or a2a; a trace's binding line that names
                      another binding is bad input (exit 2)
  --a2a-era ERA       the A2A era: 1.0 (default), dev-1.1 or 1986; implies --binding a2a; a
                      binding line with another era is bad input (exit 2)

Exit status: 0 no violation; 1 an unsafe-accept, a break or a cursor ahead (with --strict also
false-alarm, misclassified, a dropped call); 2 bad input, one line naming the line: a line longer than 64 Mi
characters or nested deeper than 131072 levels, more than 100000 stream names since an open or
10000 tasks (memory stays bounded), invalid JSON, unknown type,
missing or non-integer cursor or id, negative id, response or decision before any reconnect,
unknown outcome.`;

/** The `check` subcommand. */
export const checkCommand: Command = {
  name: 'check',
  summary:
    'check a recorded trace (JSON Lines): did the client accept a reconnect it could not prove?',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(
      'check',
      argv,
      {
        json: { type: 'boolean' },
        strict: { type: 'boolean' },
        'id-pattern': { type: 'string' },
        'proof-budget': { type: 'string' },
        binding: { type: 'string' },
        'a2a-era': { type: 'string' },
      },
      true,
    );
    if (positionals.length !== 1) {
      throw new UsageError(
        `check: expected one FILE (or - for standard input), got ${positionals.length} (see check --help)`,
      );
    }
    const label = positionals[0] === '-' ? '<stdin>' : (positionals[0] as string);
    const source = corpusFallback(positionals[0] as string);
    let idPattern: RegExp | undefined;
    if (typeof values['id-pattern'] === 'string') {
      try {
        idPattern = compileIdPattern(values['id-pattern']).regex;
      } catch (e) {
        throw new UsageError(`check: ${(e as Error).message}`);
      }
    }
    let proofBudget: number | undefined;
    const budgetText = values['proof-budget'];
    if (typeof budgetText === 'string') {
      if (!/^\d+$/.test(budgetText) || !Number.isSafeInteger(Number(budgetText))) {
        throw new UsageError(
          `check: --proof-budget must be a whole number of milliseconds, got ${JSON.stringify(budgetText)}`,
        );
      }
      proofBudget = Number(budgetText);
    }
    let binding = values.binding;
    if (typeof binding === 'string' && bindingNamed(binding) === undefined) {
      throw new UsageError(
        `check: unknown --binding ${JSON.stringify(binding)} (expected one of ${BINDING_NAMES.join(', ')})`,
      );
    }
    // --a2a-era chooses the A2A binding's era, and implies --binding a2a.
    const era = values['a2a-era'];
    if (typeof era === 'string') {
      if (binding !== undefined && binding !== 'a2a') {
        throw new UsageError(
          `check: --a2a-era applies to --binding a2a, not ${JSON.stringify(binding)}`,
        );
      }
      if (!A2A_ERAS.includes(era as A2aEra)) {
        throw new UsageError(
          `check: --a2a-era must be one of ${A2A_ERAS.join(', ')}, got ${JSON.stringify(era)}`,
        );
      }
      binding = 'a2a';
    }
    if (source === '-' && !io.stdin) throw new UsageError('check: no standard input to read');
    const out = heldOutput(io.out);
    let checker: TraceChecker | undefined = undefined;
    const render = (values.json ? jsonRenderer : textRenderer)(
      (t) => out.write(t),
      () => checker?.bindingName ?? 'mcp-sse',
    );
    checker = new TraceChecker(
      {
        idPattern,
        strict: values.strict === true,
        ...(proofBudget !== undefined ? { proofBudget } : {}),
        ...(typeof binding === 'string' ? { binding } : {}),
        ...(typeof era === 'string' ? { variant: era } : {}),
      },
      render,
    );
    try {
      await forEachLine(openTraceSource(source, io.stdin), (line) => checker.push(line));
    } catch (e) {
      // What is still held is never flushed: early bad input leaves stdout empty.
      if (e instanceof TraceInputError) throw new UsageError(`check: ${label}: ${e.message}`);
      if (typeof (e as NodeJS.ErrnoException | null)?.code !== 'string') throw e;
      throw new UsageError(`check: cannot read ${label}: ${(e as Error).message.split('\n')[0]}`);
    }
    const { exitCode, ...summary } = checker.finish();
    render.finish(summary, exitCode);
    out.flush();
    return exitCode;
  },
};
