/**
 * `mcp-tasks`: resumable task event streams, SEP-2694 (draft, modelcontextprotocol PR #2694,
 * `seps/2694-resumable-task-event-streams.md` at commit {@link SEP_2694_COMMIT}). A client calls
 * `tasks/stream {taskId, after?}`; the receiver replays every retained event with `seq > after`
 * as `notifications/tasks/event {taskId, seq}` and goes live, or answers `events_gone`
 * (`earliestSeq`, possibly as HTTP 410); it may close the stream with an empty result before
 * the task ends; clients must tolerate duplicates.
 *
 * The mapping to the machine's observations, rule by rule (docs/spec.md, "Two bindings"):
 * - `tasks/stream` with `after` is RECONNECT with cursor `after`, stream `taskId`; without
 *   `after` it opens the stream (OPEN) unless events of that task were already delivered: then
 *   it is RECONNECT without a cursor (rule 0, `cursor-dropped`): the receiver starts again at
 *   its earliest retained event, and no `events_gone` can tell a gap;
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
 *   status when it is not 200, else the JSON-RPC error code; a 404 or 410 without an
 *   `events_gone` body stays session-lost (rule 2);
 * - the empty result that closes a stream is END: a resume closed before any new event is
 *   unproven, a poll bounded by the proof budget (rule 7).
 */
import type { Observation } from '../observations.js';
import type { ReasonCode } from '../outcomes.js';
import { WireFactError, type Binding, type BindingTranslator, type WireFact } from './binding.js';

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
  /** A call without `after` once events were delivered: a `reconnect` without cursor, or an `open`. */
  missingAfter: 'reconnect' | 'open';
}

/** The rules this project derives from SEP-2694 (docs/spec.md). */
export const SEP_2694_RULES: TasksRules = {
  classifyOn: 'body',
  duplicate: 'drop',
  missingAfter: 'reconnect',
};

/** A JSON value in an error message, briefly (objects and arrays are named, not printed). */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A sequence number or a cursor: a non-negative safe integer, as SEP-2694 requires. */
function sequence(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new WireFactError(`${field} must be a non-negative integer, got ${show(value)}`);
  }
  return value;
}

function taskIdOf(fact: WireFact): string {
  const v = fact['taskId'];
  if (typeof v !== 'string' || v === '') {
    throw new WireFactError(
      `${String(fact['type'])} taskId must be a non-empty string, got ${show(v)}`,
    );
  }
  return v;
}

function objectOr(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new WireFactError(`${field} must be an object, got ${show(value)}`);
  }
  return value as Record<string, unknown>;
}

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

/** Reads one recording of task-stream calls; see the module comment for the mapping. */
class TasksTranslator implements BindingTranslator {
  /** Tasks whose events were delivered: a call without `after` on them drops the cursor. */
  private readonly delivered = new Set<string>();
  /** Tasks called before: a call again without `after` before any event resumes the start. */
  private readonly called = new Set<string>();
  /** The task of the latest `tasks/stream` call. */
  private task: string | null = null;
  /** Duplicates are at or below it: the call's `after`, then the last event passed on. */
  private cursor: number | null = null;
  /** A resume (or a cursor-less re-call) whose answer has not come yet. */
  private awaiting = false;

  constructor(private readonly rules: TasksRules) {}

  clone(): TasksTranslator {
    const t = new TasksTranslator(this.rules);
    for (const task of this.delivered) t.delivered.add(task);
    for (const task of this.called) t.called.add(task);
    t.task = this.task;
    t.cursor = this.cursor;
    t.awaiting = this.awaiting;
    return t;
  }

  key(): string {
    return `${[...this.delivered].join(',')}|${[...this.called].join(',')}|${this.task}|${this.cursor}|${this.awaiting ? 1 : 0}`;
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
      default:
        throw new WireFactError(`unknown task-stream line type ${show(fact['type'])}`);
    }
  }

  private call(fact: WireFact): Observation[] {
    const task = taskIdOf(fact);
    const raw = fact['after'];
    const after = raw === undefined || raw === null ? null : sequence(raw, 'tasks/stream after');
    const calledBefore = this.called.has(task);
    this.called.add(task);
    this.task = task;
    this.cursor = after;
    if (after === null) {
      const delivered = this.delivered.has(task);
      if (delivered && this.rules.missingAfter === 'reconnect') {
        this.awaiting = true;
        return [{ type: 'RECONNECT', cursor: null, stream: task }];
      }
      if (!delivered && calledBefore) {
        // A call again before any event: a resume from the task's start, proven only by
        // seq 0 (a receiver that lost the task and answers with an empty stream proves nothing).
        this.awaiting = true;
        return [{ type: 'RECONNECT', cursor: FIRST_SEQ - 1, stream: task }];
      }
      this.awaiting = false;
      // The call names its task, and a task stream starts at seq 0 (SEP-2694): an event of
      // another task, or a first event other than seq 0 (the receiver dropped the task's first
      // events, and started at the earliest it retains), is a break from the first event on.
      return [{ type: 'OPEN', status: 200, stream: task, cursor: FIRST_SEQ - 1 }];
    }
    this.awaiting = true;
    return [{ type: 'RECONNECT', cursor: after, stream: task }];
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
    if (ours && this.cursor !== null && seq <= this.cursor) {
      if (this.rules.duplicate === 'drop') {
        out.push({ type: 'KEEPALIVE' });
        return out;
      }
      if (this.rules.duplicate === 'proof') {
        this.cursor += 1;
        out.push({ type: 'EVENT', id: this.cursor, stream: task });
        return out;
      }
    }
    if (ours) {
      this.cursor = seq;
      this.delivered.add(task);
    }
    out.push({ type: 'EVENT', id: seq, stream: task });
    return out;
  }

  private error(e: ErrorAnswer): Observation[] {
    // An error that answers no resume (the opening call, or one ending a live stream) ends it.
    if (!this.awaiting) return [{ type: 'END' }];
    this.awaiting = false;
    const sessionGone = isSessionGoneStatus(e.status);
    if (e.gone !== undefined && !(sessionGone && this.rules.classifyOn === 'status')) {
      const floor = e.gone;
      if (floor !== null && this.cursor !== null && this.cursor < floor - 1) {
        return [{ type: 'RESPONSE', status: 200, floor }];
      }
      // events_gone whose floor covers the cursor (or with no floor) contradicts itself.
      return [{ type: 'RESPONSE', status: e.status !== 200 ? e.status : (e.code as number) }];
    }
    if (sessionGone || e.code === undefined) return [{ type: 'RESPONSE', status: e.status }];
    return [{ type: 'RESPONSE', status: e.status !== 200 ? e.status : e.code }];
  }
}

/** A machine reason's words rewritten: a pattern of the machine's text and its task words. */
type Rewrite = readonly [RegExp, (...groups: string[]) => string];

/** The answer a `status` of the translator stands for: a JSON-RPC error code, or an HTTP status. */
const answerText = (status: string) =>
  Number(status) < 0 ? `JSON-RPC error ${status}` : `HTTP status ${status}`;

/**
 * The machine's reasons in the task-stream vocabulary: `after` for the cursor, `seq` for an
 * id, tasks for streams, `events_gone` for a floor, JSON-RPC errors for statuses. Reasons that
 * a task stream cannot reach (a declared floor that covers the cursor, a session epoch,
 * id-less data) keep the machine's words.
 */
const TASK_WORDS: Partial<Record<ReasonCode, readonly Rewrite[]>> = {
  successor: [
    [/^first event (\d+) is the cursor's successor$/, (seq) => `first new seq ${seq} is after + 1`],
    [
      /^first event (\d+) taken for the cursor's successor (\d+) without proof$/,
      (seq, next) => `first seq ${seq} taken for after + 1 = ${next} without proof`,
    ],
  ],
  'no-response': [
    [/^no response to the reconnect before (\w+)$/, (o) => `no answer to tasks/stream before ${o}`],
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
      (c, f, lost) => `after ${c} below earliestSeq ${f} (events_gone); seq ${lost} are lost`,
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
        `replay rewind: expected seq ${e}, got ${g} (at or below after ${c}: a reset counter or a duplicate taken for an event)`,
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
      /^no event proved continuity from cursor (\S+) before (\w+); a 200 proves nothing$/,
      (c, o) =>
        `no new event proved continuity after seq ${c} before ${o}; an open tasks/stream proves nothing, and neither does a duplicate`,
    ],
  ],
  break: [
    [
      /^non-contiguous stream: expected (\S+), got (\S+)$/,
      (e, g) => `non-contiguous task stream: expected seq ${e}, got ${g}`,
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

/** A machine reason in the task-stream vocabulary (the rewrites of `TASK_WORDS`); other texts as they are. */
export function taskPhrase(code: ReasonCode, text: string): string {
  for (const [pattern, words] of TASK_WORDS[code] ?? []) {
    const m = pattern.exec(text);
    if (m !== null) return words(...m.slice(1));
  }
  return text;
}

/** A task-stream binding with the given rules (the mutants flip one each). */
export function tasksBinding(rules: TasksRules): Binding {
  return {
    name: 'mcp-tasks',
    summary: `MCP task event streams, tasks/stream with after (SEP-2694 draft at ${SEP_2694_COMMIT.slice(0, 8)})`,
    lineTypes: TASK_LINE_TYPES,
    nativeLines: ['keepalive', 'idle-timeout', 'disconnect', 'decision'],
    translator: () => new TasksTranslator(rules),
    phrase: taskPhrase,
  };
}

/** The task-stream binding of SEP-2694. */
export const mcpTasks: Binding = tasksBinding(SEP_2694_RULES);
