/**
 * `mcp-tasks`: resumable task event streams, SEP-2694 (draft, modelcontextprotocol PR #2694,
 * `seps/2694-resumable-task-event-streams.md` at commit {@link SEP_2694_COMMIT}). A client calls
 * `tasks/stream {taskId, after?}`; the receiver replays every retained event with `seq > after`
 * as `notifications/tasks/event {taskId, seq}` and goes live, or answers `events_gone`
 * (`earliestSeq`, possibly as HTTP 410); it may close the stream with an empty result before
 * the task ends; clients must tolerate duplicates.
 *
 * The mapping to the machine's observations, rule by rule (docs/spec.md, "Two bindings"):
 * - a translator reads the calls of one task: the checker gives each task of a trace its own
 *   (`partitionBy: 'taskId'`, src/trace/task-partition.ts), and a `tasks/stream` for a second
 *   task handed to one translator is bad input;
 * - `tasks/stream` with `after` is RECONNECT with cursor `after`, stream `taskId`; without
 *   `after` it opens the stream (OPEN) unless events of that task were already delivered (or an
 *   `events_gone` told the client its `earliestSeq`): then it is RECONNECT with the last seq
 *   known as cursor (the later of the last seq delivered and `earliestSeq - 1`). SEP-2694: "If
 *   `after` is omitted, the receiver MUST start at the earliest event it still retains": what
 *   the client has comes again as duplicates, and the first new seq proves the resume or shows
 *   the gap;
 * - after an `events_gone` the client was told the gap: a call with `after = earliestSeq - 1`
 *   (the SEP's recovery) is a resume like any other, not a cursor ahead;
 * - an event is EVENT with id `seq` on stream `taskId`, preceded by RESPONSE 200 when it is the
 *   first answer to a resume (a task stream has no status line of its own);
 * - a duplicate, an event of the task streamed with `seq` not above the cursor (`after`, then the
 *   last event passed on), is dropped: KEEPALIVE, which proves nothing, breaks nothing and
 *   restarts no timer. A receiver that restarted its counter under the same task id feeds an
 *   endless run of them, and the resume still fails when the proof budget runs out;
 * - `events_gone` is RESPONSE with floor `earliestSeq` (rule 5), classified on the JSON-RPC body
 *   before the HTTP status, so that a 410 carrying it is resumption-failed, not session-lost;
 *   an `events_gone` whose floor covers the cursor contradicts itself and is a bad status;
 * - any other error (`-32602` for an invalid `after`, ...) is a bad status (rule 3): the HTTP
 *   status when it is not 200, else {@link JSONRPC_ERROR_STATUS} (a JSON-RPC error code is
 *   never read as an HTTP status: code 404 is no session loss); a 404 or 410 without an
 *   `events_gone` body stays session-lost (rule 2);
 * - a `keepalive` after a call is the call's answer (bytes on its stream): unproven, not "no
 *   answer";
 * - the empty result that closes a stream is END: a resume closed before any new event is
 *   unproven, a poll bounded by the proof budget (rule 7);
 * - no answer is ever caught up: SEP-2694 states no head (no `latestSeq`), and its `events_gone`
 *   duty does not make a receiver's silence one (a restarted counter keeps it too), so the
 *   RESPONSE this binding writes never carries `head`, and a resume answered by keepalives alone
 *   fails when `P` runs out (docs/spec.md#task-streams-no-caught-up-marker; the marker it lacks
 *   is docs/spec-changes.md, change 12).
 */
import type { Observation } from '../observations.js';
import type { ReasonCode } from '../outcomes.js';
import { MOMENT_SOURCE, momentOf } from '../reasons.js';
import {
  showWire,
  wireObject,
  WireFactError,
  type Binding,
  type BindingTranslator,
  type PartitionLines,
  type WireFact,
} from './binding.js';

/** The commit of modelcontextprotocol/modelcontextprotocol whose SEP-2694 text is modelled. */
export const SEP_2694_COMMIT = 'e695539c7c0e65c2b5412092df9a1e14191070cb';

/** The `seq` of a task's first event (SEP-2694: "The first event in a task stream MUST use seq: 0"). */
export const FIRST_SEQ = 0;

/** The line types of the task-stream vocabulary. */
export const TASK_LINE_TYPES = [
  'tasks/stream',
  'tasks/event',
  'tasks/result',
  'tasks/error',
] as const;

/**
 * The choices where a task-stream client can go wrong, each named. {@link SEP_2694_RULES} is the
 * binding; the mutants in model/mutants/binding-mutants.ts flip one choice each.
 */
export interface TasksRules {
  /** What decides an error answer: the JSON-RPC body (`events_gone`) or the HTTP status first. */
  classifyOn: 'body' | 'status';
  /**
   * A duplicate (`seq` not above the cursor): `drop` it (proves nothing), `forward` it to the
   * machine as an event (a rewind: duplicates not tolerated), or take it as `proof` (as if it
   * were the cursor's successor).
   */
  duplicate: 'drop' | 'forward' | 'proof';
  /**
   * A call without `after` once events were delivered (or an `events_gone` told the gap): a
   * `resume` from the last seq known (SEP-2694: the receiver starts at its earliest retained
   * event, so what the client has comes again as duplicates), a `reconnect` without cursor
   * (rule 0: a false alarm), or an `open` of a fresh stream (its duplicates passed on again).
   */
  missingAfter: 'resume' | 'reconnect' | 'open';
  /**
   * A seam duplicate: on the answer to a resume, a `seq` that goes back to one this answer
   * already passed on above the call's cursor (a receiver that replays its log, then its live
   * feed, sends the overlap again). `drop` it, as SEP-2694's "Clients MUST tolerate duplicate
   * delivery after reconnect" says, or take it as out of sequence order (`break`: a false alarm).
   */
  seam: 'drop' | 'break';
  /**
   * Where a call without `after` is judged from once an `events_gone` told the gap: the `later`
   * of the last seq delivered and `earliestSeq - 1`, or always `earliestSeq - 1` (`gone`: a
   * second recovery without `after`, after events past it came, reads the next seq as a skip).
   */
  knownEnd: 'later' | 'gone';
}

/** The rules this project derives from SEP-2694 (docs/spec.md). */
export const SEP_2694_RULES: TasksRules = {
  classifyOn: 'body',
  duplicate: 'drop',
  missingAfter: 'resume',
  seam: 'drop',
  knownEnd: 'later',
};

const show = showWire;

/** A sequence number or a cursor: a non-negative safe integer, as SEP-2694 requires. */
function sequence(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new WireFactError(`${field} must be a non-negative integer, got ${show(value)}`);
  }
  return value;
}

/** The `taskId` of a fact: a non-empty string, else a {@link WireFactError}. */
export function taskIdOf(fact: WireFact): string {
  const v = fact['taskId'];
  if (typeof v !== 'string' || v === '') {
    throw new WireFactError(
      `${String(fact['type'])} taskId must be a non-empty string, got ${show(v)}`,
    );
  }
  return v;
}

const objectOr = wireObject;

/** An error answer, read: the HTTP status, the JSON-RPC error code, and `events_gone`. */
interface ErrorAnswer {
  status: number;
  code?: number;
  /** `earliestSeq` of an `events_gone` body (`null`: events_gone without one). */
  gone?: number | null;
}

function readError(fact: WireFact): ErrorAnswer {
  const rawStatus = fact['status'];
  let status = 200;
  if (rawStatus !== undefined && rawStatus !== null) {
    if (typeof rawStatus !== 'number' || !Number.isSafeInteger(rawStatus) || rawStatus < 0) {
      throw new WireFactError(`tasks/error status must be an HTTP status, got ${show(rawStatus)}`);
    }
    status = rawStatus;
  }
  const error = objectOr(fact['error'], 'tasks/error error');
  if (error === undefined) {
    if (status === 200) {
      throw new WireFactError(
        'tasks/error needs a JSON-RPC "error" object or an HTTP "status" other than 200',
      );
    }
    return { status };
  }
  const code = error['code'];
  if (typeof code !== 'number' || !Number.isSafeInteger(code)) {
    throw new WireFactError(`tasks/error error.code must be an integer, got ${show(code)}`);
  }
  const data = objectOr(error['data'], 'tasks/error error.data');
  if (data?.['reason'] !== 'events_gone') return { status, code };
  const earliest = data['earliestSeq'];
  const gone =
    earliest === undefined || earliest === null
      ? null
      : sequence(earliest, 'tasks/error error.data.earliestSeq');
  return { status, code, gone };
}

const isSessionGoneStatus = (status: number) => status === 404 || status === 410;

/**
 * What the checker may print beside an observation (never read by the machine): the `after` a
 * call sent, and the receiver's answer in task words when the machine's words would mislead.
 */
export interface TaskNote {
  /** On a RECONNECT or OPEN: the call's `after` (`null`: none). */
  after?: number | null;
  /** On a RESPONSE: what the receiver said, in task words (the reason the checker reports). */
  said?: string;
  /**
   * On a RESPONSE of `events_gone`: the seq up to which the client was told the gap
   * (`earliestSeq - 1`): a later call with `after` up to it is SEP-2694's recovery, not a
   * cursor ahead of what the client received.
   */
  told?: number;
  /**
   * On a KEEPALIVE: the seq of a seam duplicate dropped (it went back, on the answer to a
   * resume, to one this answer had passed on).
   */
  seam?: number;
}

/** The HTTP-like status the machine is fed for a JSON-RPC error: never 200, 404 or 410. */
export const JSONRPC_ERROR_STATUS = 502;

/** `o` with a note for the checker (the machine reads only the observation's own fields). */
export function noted(o: Observation, note: TaskNote): Observation {
  return Object.assign(o, note);
}

/** Reads one recording of task-stream calls (one task); see the module comment for the mapping. */
class TasksTranslator implements BindingTranslator {
  /** The task of this recording: the one the first `tasks/stream` named. */
  private task: string | null = null;
  /** The seq of the last event of the task passed on (`null`: none yet). */
  private delivered: number | null = null;
  /** `earliestSeq` of the last `events_gone` that failed a resume: the gap the client was told. */
  private gone: number | null = null;
  /** Duplicates are at or below it: the call's cursor, then the last event passed on. */
  private cursor: number | null = null;
  /** A resume (or a cursor-less re-call) whose answer has not come yet. */
  private awaiting = false;
  /** The seq of the task's last event on the current call's answer, duplicates included. */
  private previous: number | null = null;
  /**
   * On the answer to a resume: the cursor the call was judged from. A `seq` above it that goes
   * back to one already passed on is a seam duplicate. `null` on the answer to an opening call.
   */
  private seamFloor: number | null = null;

  constructor(private readonly rules: TasksRules) {}

  clone(): TasksTranslator {
    const t = new TasksTranslator(this.rules);
    t.task = this.task;
    t.delivered = this.delivered;
    t.gone = this.gone;
    t.cursor = this.cursor;
    t.awaiting = this.awaiting;
    t.previous = this.previous;
    t.seamFloor = this.seamFloor;
    return t;
  }

  key(): string {
    return `${this.task}|${this.delivered}|${this.gone}|${this.cursor}|${this.previous}|${this.seamFloor}|${this.awaiting ? 1 : 0}`;
  }

  translate(fact: WireFact): Observation[] {
    switch (fact['type']) {
      case 'tasks/stream':
        return this.call(fact);
      case 'tasks/event':
        return this.event(fact);
      case 'tasks/result':
        return [...this.answered(), { type: 'END' }];
      case 'tasks/error':
        return this.error(readError(fact));
      case 'keepalive':
        // Bytes on the call's answer (an SSE comment): the receiver answered, nothing is proven.
        return [...this.answered(), { type: 'KEEPALIVE' }];
      default:
        throw new WireFactError(`unknown task-stream line type ${show(fact['type'])}`);
    }
  }

  /**
   * The cursor a call without `after` is judged from: the last seq passed on, or the floor an
   * `events_gone` told the client of (the gap it already surfaced), whichever is later; `null`
   * when the client has seen nothing.
   */
  private knownEnd(): number | null {
    const floor = this.gone === null ? null : this.gone - 1;
    if (this.delivered === null || (floor !== null && this.rules.knownEnd === 'gone')) return floor;
    return floor === null ? this.delivered : Math.max(this.delivered, floor);
  }

  private call(fact: WireFact): Observation[] {
    const task = taskIdOf(fact);
    const raw = fact['after'];
    const after = raw === undefined || raw === null ? null : sequence(raw, 'tasks/stream after');
    if (this.task !== null && task !== this.task) {
      throw new WireFactError(
        `tasks/stream for a second task ${show(task)}: a trace holds the calls of one task (this one's is ${show(this.task)}); split it into one trace per task, each with its task's tasks/stream calls and their answers`,
      );
    }
    const calledBefore = this.task !== null;
    this.task = task;
    this.previous = null;
    this.seamFloor = null;
    const note: TaskNote = { after };
    if (after !== null) {
      this.cursor = after;
      this.seamFloor = after;
      this.awaiting = true;
      return [noted({ type: 'RECONNECT', cursor: after, stream: task }, note)];
    }
    const known = this.knownEnd();
    if (known !== null && this.rules.missingAfter !== 'open') {
      this.awaiting = true;
      if (this.rules.missingAfter === 'reconnect') {
        this.cursor = null;
        return [noted({ type: 'RECONNECT', cursor: null, stream: task }, note)];
      }
      // SEP-2694: without after "the receiver MUST start at the earliest event it still
      // retains": what the client has are duplicates, and the first new seq is known + 1 or
      // shows the gap (the receiver answers no events_gone to a call without after).
      this.cursor = known;
      this.seamFloor = known;
      return [noted({ type: 'RECONNECT', cursor: known, stream: task }, note)];
    }
    if (known === null && calledBefore) {
      // A call again before any event: a resume from the task's start, proven only by
      // seq 0 (a receiver that lost the task and answers with an empty stream proves nothing).
      this.cursor = FIRST_SEQ - 1;
      this.seamFloor = FIRST_SEQ - 1;
      this.awaiting = true;
      return [noted({ type: 'RECONNECT', cursor: FIRST_SEQ - 1, stream: task }, note)];
    }
    this.cursor = FIRST_SEQ - 1;
    this.delivered = null;
    this.awaiting = false;
    // The call names its task, and a task stream starts at seq 0 (SEP-2694): an event of
    // another task, or a first event other than seq 0 (the receiver dropped the task's first
    // events, and started at the earliest it retains), is a break from the first event on.
    return [noted({ type: 'OPEN', status: 200, stream: task, cursor: FIRST_SEQ - 1 }, note)];
  }

  /** The first answer to a resume: a task stream has no status line, its events are the 200. */
  private answered(): Observation[] {
    if (!this.awaiting) return [];
    this.awaiting = false;
    return [{ type: 'RESPONSE', status: 200 }];
  }

  private event(fact: WireFact): Observation[] {
    const task = taskIdOf(fact);
    const seq = sequence(fact['seq'], 'tasks/event seq');
    const out = this.answered();
    const ours = task === this.task;
    // SEP-2694: "Servers MUST deliver events in sequence order." A seq below the one before it
    // on the same answer goes to the machine (a rewind, or a break in a live stream); only a
    // duplicate in order (a replay of what the client has, after a call) is tolerated.
    const inOrder = !ours || this.previous === null || seq >= this.previous;
    if (ours) this.previous = seq;
    // SEP-2694: "Clients MUST tolerate duplicate delivery after reconnect". A receiver that
    // answers a resume from its log, then from its live feed, sends the overlap again: a seq
    // that goes back to one this answer passed on above the call's cursor is such a duplicate.
    // Below the call's cursor, or on an opening call's answer, going back stays out of order.
    const seam =
      ours &&
      !inOrder &&
      this.seamFloor !== null &&
      this.cursor !== null &&
      seq > this.seamFloor &&
      seq <= this.cursor;
    if (seam && this.rules.seam === 'drop') {
      out.push(noted({ type: 'KEEPALIVE' }, { seam: seq }));
      return out;
    }
    if (ours && inOrder && this.cursor !== null && seq <= this.cursor) {
      if (this.rules.duplicate === 'drop') {
        out.push({ type: 'KEEPALIVE' });
        return out;
      }
      if (this.rules.duplicate === 'proof') {
        this.cursor += 1;
        this.delivered = this.cursor;
        out.push({ type: 'EVENT', id: this.cursor, stream: task });
        return out;
      }
    }
    // An event out of order never moves the cursor back: the machine judges it, and what the
    // client has stays what it has.
    if (ours && (this.cursor === null || seq > this.cursor)) {
      this.cursor = seq;
      this.delivered = seq;
    }
    out.push({ type: 'EVENT', id: seq, stream: task });
    return out;
  }

  private error(e: ErrorAnswer): Observation[] {
    // An error that answers no resume (the opening call, or one ending a live stream) ends it.
    if (!this.awaiting) return [{ type: 'END' }];
    this.awaiting = false;
    const sessionGone = isSessionGoneStatus(e.status);
    const bad = e.status !== 200 ? e.status : JSONRPC_ERROR_STATUS;
    if (e.gone !== undefined && !(sessionGone && this.rules.classifyOn === 'status')) {
      const floor = e.gone;
      if (floor !== null && this.cursor !== null && this.cursor < floor - 1) {
        this.gone = floor;
        return [noted({ type: 'RESPONSE', status: 200, floor }, { told: floor - 1 })];
      }
      const said =
        floor === null
          ? `events_gone without earliestSeq (${answerOf(e)}): nothing says which events are gone, so nothing proves the resume`
          : `events_gone with earliestSeq ${floor} contradicts itself (${answerOf(e)}): it says seq ${floor} and later are retained, which covers after ${this.cursor} (seq ${(this.cursor ?? -1) + 1} is the next one), so the receiver must replay, not refuse`;
      return [
        noted({ type: 'RESPONSE', status: sessionGone ? JSONRPC_ERROR_STATUS : bad }, { said }),
      ];
    }
    if (e.code === undefined) return [{ type: 'RESPONSE', status: e.status }];
    if (sessionGone) return [{ type: 'RESPONSE', status: e.status }];
    // A JSON-RPC error code is not an HTTP status: code 404 is no session loss, code 200 no 200.
    return [
      noted(
        { type: 'RESPONSE', status: bad },
        { said: `unexpected tasks/stream answer: ${answerOf(e)}` },
      ),
    ];
  }
}

/** An error answer in words: the JSON-RPC error code, and the HTTP status when it is not 200. */
function answerOf(e: ErrorAnswer): string {
  const code = e.code === undefined ? 'no JSON-RPC error' : `JSON-RPC error ${e.code}`;
  return e.status === 200 ? code : `${code} with HTTP status ${e.status}`;
}

/** A machine reason's words rewritten: a pattern of the machine's text and its task words. */
type Rewrite = readonly [RegExp, (...groups: string[]) => string];

/** The answer a `status` of the translator stands for: a JSON-RPC error code, or an HTTP status. */
const answerText = (status: string) => `HTTP status ${status}`;

/**
 * The machine's reasons in the task-stream vocabulary: `after` for the cursor, `seq` for an
 * id, tasks for streams, `events_gone` for a floor, JSON-RPC errors for statuses. Reasons that
 * a task stream cannot reach (a declared floor that covers the cursor, a session epoch,
 * id-less data) keep the machine's words.
 */
const TASK_WORDS: Partial<Record<ReasonCode, readonly Rewrite[]>> = {
  successor: [
    [
      /^first event (\d+) is the cursor's successor$/,
      (seq) => `first new seq ${seq} is the successor of the cursor (seq ${Number(seq) - 1})`,
    ],
    [
      /^first event (\d+) taken for the cursor's successor (\d+) without proof$/,
      (seq, next) => `first seq ${seq} taken for after + 1 = ${next} without proof`,
    ],
  ],
  'no-response': [
    [
      new RegExp(`^no response to the reconnect before ${MOMENT_SOURCE}$`),
      (o) => `no answer to tasks/stream (no event, result, error or keepalive) before ${moment(o)}`,
    ],
  ],
  'session-gone': [
    [
      /^session lost: status=(\d+); re-initialize required$/,
      (st) => `session lost: HTTP status ${st} without an events_gone body; re-initialize required`,
    ],
  ],
  'bad-status': [
    [
      /^unexpected reconnect status=(-?\d+)$/,
      (st) => `unexpected tasks/stream answer: ${answerText(st)}`,
    ],
  ],
  'cursor-below-floor': [
    [
      /^cursor (\S+) below replay floor (\S+); events (\S+) are lost$/,
      (c, f, lost) => `after ${c} below earliestSeq ${f} (events_gone); ${lostSeqs(lost)}`,
    ],
  ],
  skip: [
    [
      /^replay gap: expected event id (\S+), got (\S+); silent skip of (\S+) event\(s\)$/,
      (e, g, n) => `replay gap: expected seq ${e}, got ${g}; silent skip of ${n} event(s)`,
    ],
  ],
  rewind: [
    [
      /^replay rewind: expected event id (\S+), got (\S+) \(at or below cursor (\S+): a reset counter or a duplicate\)$/,
      (e, g, c) =>
        `seq went back: expected seq ${e}, got ${g} (at or below seq ${c}) out of sequence order on one answer; SEP-2694: servers MUST deliver events in sequence order`,
    ],
  ],
  'cross-stream': [
    [
      /^event of stream (.*) replayed on a resumption of stream (.*)$/,
      (other, own) => `event of task ${other} on the stream of task ${own}`,
    ],
  ],
  unproven: [
    [
      new RegExp(
        `^no event proved continuity from cursor (\\S+) before ${MOMENT_SOURCE}; a 200 proves nothing$`,
      ),
      (c, o) =>
        `no new event proved continuity after ${afterWords(c)} before ${moment(o)}; an open tasks/stream proves nothing, and neither does a duplicate or a keepalive`,
    ],
  ],
  break: [
    [
      /^non-contiguous stream: expected (\S+), got (\S+)$/,
      (e, g) =>
        Number(g) < Number(e)
          ? `seq went back inside one live stream: expected seq ${e}, got ${g}; SEP-2694: servers MUST deliver events in sequence order`
          : `non-contiguous task stream: expected seq ${e}, got ${g}`,
    ],
  ],
  'cursor-dropped': [
    [
      /^reconnect without Last-Event-ID although cursor (\S+) was received: the server cannot replay$/,
      (c) =>
        `tasks/stream without after although seq ${c} was received: the receiver starts again at its earliest retained event, and no events_gone can tell a gap`,
    ],
  ],
  'no-cursor': [
    [/^reconnect without Last-Event-ID: (.*)$/, (rest) => `tasks/stream without after: ${rest}`],
  ],
};

/** The moment that closed a wait, as the machine's reason says it, in task words. */
function moment(said: string): string {
  // The machine's moment (model/reasons.ts momentOf) in the task's words.
  if (said === momentOf('END')) return 'the receiver closed the stream';
  if (said === momentOf('PROOF_TIMEOUT')) return 'the proof budget ran out';
  if (said === momentOf('IDLE_TIMEOUT') || said === momentOf('DISCONNECT')) return said;
  // The next reconnect, a new stream, or any other next observation: the next call.
  return 'the next tasks/stream call';
}

/** A cursor in task words: `-1` is a call from the task's start (no event seen). */
function afterWords(cursor: string): string {
  return cursor === '-1' ? "the task's start (seq 0 expected)" : `seq ${cursor}`;
}

/** `a..b` of lost seqs in words: one seq, or a range. */
function lostSeqs(range: string): string {
  const [a, b] = range.split('..');
  return a === b ? `seq ${a} is lost` : `seq ${range} are lost`;
}

/** A machine reason in the task-stream vocabulary (the rewrites of `TASK_WORDS`); other texts as they are. */
export function taskPhrase(code: ReasonCode, text: string): string {
  for (const [pattern, words] of TASK_WORDS[code] ?? []) {
    const m = pattern.exec(text);
    if (m !== null) return words(...m.slice(1));
  }
  return text;
}

/** The roles of the task lines in a recording of several tasks (src/trace/task-partition.ts). */
const TASK_PARTITION: PartitionLines = {
  calls: ['tasks/stream'],
  events: ['tasks/event'],
  ends: ['tasks/result', 'tasks/error', 'disconnect'],
  keyOf: (fact) =>
    fact['type'] === 'tasks/stream' || fact['type'] === 'tasks/event' ? taskIdOf(fact) : null,
  // An error may say its task in its data (events_gone does).
  hintOf: (fact) => {
    const data = (fact['error'] as { data?: { taskId?: unknown } } | undefined)?.data;
    return typeof data?.taskId === 'string' ? data.taskId : undefined;
  },
};

/** A task-stream binding with the given rules (the mutants flip one each). */
export function tasksBinding(rules: TasksRules): Binding {
  return {
    name: 'mcp-tasks',
    summary: `MCP task event streams, tasks/stream with after (SEP-2694 draft at ${SEP_2694_COMMIT.slice(0, 8)})`,
    // A keepalive is read by the binding: after a call it is the call's answer (unproven).
    lineTypes: [...TASK_LINE_TYPES, 'keepalive'],
    nativeLines: ['idle-timeout', 'disconnect', 'decision'],
    // A recording may interleave several tasks: each is judged with its own machine.
    partitionBy: 'taskId',
    partition: TASK_PARTITION,
    translator: () => new TasksTranslator(rules),
    phrase: taskPhrase,
  };
}

/** The task-stream binding of SEP-2694. */
export const mcpTasks: Binding = tasksBinding(SEP_2694_RULES);
