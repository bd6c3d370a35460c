/**
 * `a2a`: A2A (Agent2Agent) task streams: `SendStreamingMessage` opens a stream of
 * `StreamResponse` frames (a `Task` snapshot first, then `statusUpdate` and `artifactUpdate`
 * events), and `SubscribeToTask {id}` reconnects to a task's stream. The binding reads one era at
 * a time ({@link A2aEra}); docs/a2a.md is the normative page (the mapping per era, the remedy's
 * words, the two meanings of `UnsupportedOperationError`), docs/trace-format.md the lines.
 *
 * - `1.0` (A2A 1.0, released): frames carry no id or sequence, and `SubscribeToTaskRequest` has
 *   only `id` and `tenant`. Every update is id-less DATA and every `SubscribeToTask` is a
 *   RECONNECT without a cursor: resumption-failed at rule 0, whatever the answer. The remedy is
 *   to re-sync with `GetTask` after the stream ends, never to re-send the message (a new turn).
 * - `dev-1.1` (the `generation` of the v1.1 development branch): `Task`, `TaskStatusUpdateEvent`
 *   and `TaskArtifactUpdateEvent` carry a per-task `generation`, +1 per mutation. The wire still
 *   has no cursor, but the client holds one: the last generation it saw. The first frame of the
 *   answer to a `SubscribeToTask`, a `Task` with generation g, is RESPONSE 200 with floor g+1 and
 *   head g: g = c is caught up (and the next event must be c+1), g > c says events c+1..g were
 *   folded into the snapshot and never delivered as events (rule 5), g < c is a head behind the
 *   cursor. After a failed resume the client re-syncs on the snapshot: the stream goes on from g
 *   (an OPEN with cursor g), so a later gap is still seen. An update with generation at or below
 *   the cursor is a duplicate, dropped (KEEPALIVE); generation 0 or none is DATA (the spec: the
 *   server does not implement `generation`, and the client stops using it for the interaction).
 * - `1986` (epic a2aproject/A2A #1986 as proposed): `SubscribeToTask` carries a cursor,
 *   `afterGeneration`, with replay-or-gap semantics: RECONNECT with that cursor, the replay's
 *   first event must be c+1, and a gap error carrying `earliestGeneration` F is a floor (rule 5).
 *   The snapshot then states nothing (replay decides): the `mcp-tasks` binding in other words. A
 *   `SubscribeToTask` without `afterGeneration` is read as under `dev-1.1`.
 *
 * Errors are classified on the JSON-RPC body, not the HTTP status: the JS SDK sends them with
 * HTTP 200. `TaskNotFoundError` (-32001) is a session loss (404, rule 2). `UnsupportedOperationError`
 * (-32004) has two meanings that are kept apart by the call it answers: on a `SubscribeToTask` it
 * is the task that reached a terminal state while the client was away (resumption-failed, rule 3;
 * the terminal event is lost as an event, `GetTask` has the final state); on a
 * `SendStreamingMessage` it is an agent that does not stream (no stream was opened; nothing to
 * resume). Any other JSON-RPC error is a bad answer (rule 3). Without a JSON-RPC error (REST), the
 * HTTP status decides with A2A's own mapping: 404 is `TaskNotFoundError`, anything else rule 3.
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
  type WireFact,
} from './binding.js';
import { JSONRPC_ERROR_STATUS, noted } from './mcp-tasks.js';

/** The eras the binding reads: A2A 1.0, the `dev-1.1` branch's `generation`, #1986 as proposed. */
export type A2aEra = '1.0' | 'dev-1.1' | '1986';

/** Every era, the default first. */
export const A2A_ERAS: readonly A2aEra[] = ['1.0', 'dev-1.1', '1986'];

/** The line types of the A2A vocabulary (besides `keepalive`, which it reads itself). */
export const A2A_LINE_TYPES = [
  'a2a/send',
  'a2a/subscribe',
  'a2a/frame',
  'a2a/end',
  'a2a/error',
] as const;

/** The JSON-RPC code of `TaskNotFoundError` (A2A 1.0, §5.4). */
export const TASK_NOT_FOUND = -32001;
/** The JSON-RPC code of `UnsupportedOperationError` (A2A 1.0, §5.4). */
export const UNSUPPORTED_OPERATION = -32004;

/**
 * The choices where an A2A client can go wrong, each named. {@link a2aRules} gives the binding's
 * for an era; the mutants in model/mutants/binding-mutants.ts flip one choice each.
 */
export interface A2aRules {
  /** Which A2A the wire speaks. */
  era: A2aEra;
  /**
   * What decides an error answer: the JSON-RPC error in the `body` (the SDK sends it with HTTP
   * 200), or the HTTP `status` first (then an error over 200 reads as an empty 200 stream).
   */
  classifyOn: 'body' | 'status';
  /**
   * An update whose generation is at or below the cursor: `drop` it (a duplicate proves
   * nothing), or `forward` it to the machine as an event (a rewind, a false alarm).
   */
  duplicate: 'drop' | 'forward';
  /**
   * Two consecutive frames of the task with the same generation (the snapshot counts): a
   * `duplicate`, dropped, or the spec's fallback `stop` ("MUST conclude that the server does not
   * implement the generation field"): every later update is id-less DATA, and the next gap goes
   * unseen.
   */
  sameGeneration: 'duplicate' | 'stop';
  /**
   * The snapshot that answers a `SubscribeToTask`: its generation is a `statement` (floor g+1,
   * head g), or it is `ignored` (a 200 that states nothing: a snapshot that already folded the
   * event the live tap sends again lets that duplicate prove the resume).
   */
  snapshot: 'statement' | 'ignored';
}

/** The binding's rules for an era (docs/a2a.md). */
export function a2aRules(era: A2aEra): A2aRules {
  return {
    era,
    classifyOn: 'body',
    duplicate: 'drop',
    sameGeneration: 'duplicate',
    snapshot: 'statement',
  };
}

const show = showWire;

/** A JSON object of a frame or an error body. */
export type A2aJson = Record<string, unknown>;

const objectOr = wireObject;

/**
 * A generation: a non-negative integer, as a JSON number or a decimal string (proto3 JSON writes
 * an int64 as a string). `undefined` when absent.
 */
function generationOf(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new WireFactError(`${field} must be a non-negative integer, got ${show(value)}`);
  }
  return n;
}

/** A task id where one is required: a non-empty string. */
function taskIdIn(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new WireFactError(`${field} must be a non-empty string, got ${show(value)}`);
  }
  return value;
}

/** A task id where one is optional. */
function optionalTaskId(value: unknown, field: string): string | undefined {
  return value === undefined || value === null ? undefined : taskIdIn(value, field);
}

/** One `StreamResponse` frame, read: what it is, its task and its generation. */
export interface A2aFrame {
  kind: 'task' | 'message' | 'status' | 'artifact';
  taskId?: string;
  generation?: number;
}

/** The JSON-RPC error of a body, when it is one (`{"jsonrpc":"2.0","error":{…}}`). */
function jsonRpcError(body: A2aJson): A2aJson | undefined {
  return objectOr(body['error'], 'a2a/frame data.error');
}

/**
 * The `StreamResponse` of an SSE `data:` payload: a JSON-RPC response's `result`, or the object
 * itself (REST). A2A 1.0 names the member (`task`, `message`, `statusUpdate`, `artifactUpdate`;
 * snake case accepted); v0.3 names the kind (`kind`: `task`, `message`, `status-update`,
 * `artifact-update`, with `final` on a status update, which changes nothing here: the stream's
 * close ends it).
 */
export function readFrame(data: A2aJson, field = 'a2a/frame data'): A2aFrame {
  const result = 'result' in data ? objectOr(data['result'], `${field}.result`) : data;
  if (result === undefined)
    throw new WireFactError(`${field}.result must be an object, got nothing`);
  const v03 = result['kind'];
  if (v03 !== undefined) return readV03(result, v03, field);
  const members: [string, A2aFrame['kind']][] = [
    ['task', 'task'],
    ['message', 'message'],
    ['msg', 'message'],
    ['statusUpdate', 'status'],
    ['status_update', 'status'],
    ['artifactUpdate', 'artifact'],
    ['artifact_update', 'artifact'],
  ];
  for (const [name, kind] of members) {
    const member = objectOr(result[name], `${field}.${name}`);
    if (member === undefined) continue;
    const id = kind === 'task' ? member['id'] : (member['taskId'] ?? member['task_id']);
    return frameOf(kind, id, member['generation'], `${field} ${name}`);
  }
  throw new WireFactError(
    `${field} is no StreamResponse: expected one of task, message, statusUpdate, artifactUpdate (A2A 1.0) or a "kind" (v0.3)`,
  );
}

function readV03(result: A2aJson, kind: unknown, field: string): A2aFrame {
  const kinds: Record<string, A2aFrame['kind']> = {
    task: 'task',
    message: 'message',
    'status-update': 'status',
    'artifact-update': 'artifact',
  };
  const k = typeof kind === 'string' ? kinds[kind] : undefined;
  if (k === undefined) {
    throw new WireFactError(
      `${field} kind must be task, message, status-update or artifact-update (v0.3), got ${show(kind)}`,
    );
  }
  const id = k === 'task' ? result['id'] : result['taskId'];
  return frameOf(k, id, result['generation'], `${field} ${kind as string}`);
}

/** A frame of `kind` with its task id and generation, read (`where`: the member, for messages). */
function frameOf(
  kind: A2aFrame['kind'],
  id: unknown,
  generation: unknown,
  where: string,
): A2aFrame {
  const frame: A2aFrame = { kind };
  const taskId =
    kind === 'message'
      ? optionalTaskId(id, `${where} taskId`)
      : taskIdIn(id, `${where} ${kind === 'task' ? 'id' : 'taskId'}`);
  if (taskId !== undefined) frame.taskId = taskId;
  const g = generationOf(generation, `${where} generation`);
  if (g !== undefined) frame.generation = g;
  return frame;
}

/** The data of an `a2a/frame` line: `data` (the SSE data as received), an object. */
function frameData(fact: WireFact): A2aJson {
  const data = objectOr(fact['data'], 'a2a/frame data');
  if (data === undefined) {
    throw new WireFactError(
      'a2a/frame needs "data": the SSE data of the frame as received (a JSON-RPC response or a StreamResponse)',
    );
  }
  return data;
}

/**
 * The task a line names: its `taskId` field, else (a frame) the task its data names. The
 * partition of the checker reads it (`null`: the line names none).
 */
export function a2aTaskOf(fact: WireFact): string | null {
  const type = fact['type'];
  const given = optionalTaskId(fact['taskId'], `${String(type)} taskId`);
  if (type === 'a2a/frame') {
    const data = frameData(fact);
    if (jsonRpcError(data) !== undefined) return given ?? null;
    const frame = readFrame(data);
    if (given !== undefined && frame.taskId !== undefined && given !== frame.taskId) {
      throw new WireFactError(
        `a2a/frame taskId ${show(given)} differs from the task its data names, ${show(frame.taskId)}`,
      );
    }
    return given ?? frame.taskId ?? null;
  }
  if (type === 'a2a/subscribe' && given === undefined) {
    throw new WireFactError(
      'a2a/subscribe needs "taskId": the id SubscribeToTask names (params.id)',
    );
  }
  return given ?? null;
}

/** An error answer, read: the HTTP status, and the JSON-RPC error code and gap floor if any. */
interface ErrorAnswer {
  status: number;
  code?: number;
  message?: string;
  /** `earliestGeneration` of a #1986 gap signal (`error.data.earliestGeneration`). */
  earliest?: number;
}

function readErrorObject(error: A2aJson, status: number, field: string): ErrorAnswer {
  const code = error['code'];
  if (typeof code !== 'number' || !Number.isSafeInteger(code)) {
    throw new WireFactError(`${field}.code must be an integer, got ${show(code)}`);
  }
  const answer: ErrorAnswer = { status, code };
  if (typeof error['message'] === 'string') answer.message = error['message'];
  // JSON-RPC leaves `data` free: the JS SDK 1.3.0 sends a list of google.rpc details
  // (`[{"@type":"…ErrorInfo","reason":"TASK_NOT_FOUND",…}]`). Only an object can carry the
  // #1986 gap signal's earliestGeneration; any other data says nothing to the machine.
  const raw = error['data'];
  const data =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as A2aJson) : undefined;
  const earliest = generationOf(data?.['earliestGeneration'], `${field}.data.earliestGeneration`);
  if (earliest !== undefined) answer.earliest = earliest;
  return answer;
}

function readError(fact: WireFact): ErrorAnswer {
  const rawStatus = fact['status'];
  let status = 200;
  if (rawStatus !== undefined && rawStatus !== null) {
    if (
      typeof rawStatus !== 'number' ||
      !Number.isSafeInteger(rawStatus) ||
      rawStatus < 100 ||
      rawStatus > 599
    ) {
      throw new WireFactError(`a2a/error status must be an HTTP status, got ${show(rawStatus)}`);
    }
    status = rawStatus;
  }
  const body = objectOr(fact['body'], 'a2a/error body');
  // A body is a JSON-RPC response only with "jsonrpc"; a REST error body (its own "error"
  // object, google.rpc.Status-like) leaves the HTTP status to decide.
  const rpcBody = body !== undefined && body['jsonrpc'] !== undefined ? body : undefined;
  const error =
    objectOr(fact['error'], 'a2a/error error') ??
    objectOr(rpcBody?.['error'], 'a2a/error body.error');
  if (error === undefined) {
    if (status === 200) {
      throw new WireFactError(
        'a2a/error needs a JSON-RPC "error" object (or a "body" holding one) or an HTTP "status" other than 200',
      );
    }
    return { status };
  }
  return readErrorObject(
    error,
    status,
    fact['error'] !== undefined ? 'a2a/error error' : 'a2a/error body.error',
  );
}

/** Reads one recording of one A2A task (see the module comment for the mapping). */
class A2aTranslator implements BindingTranslator {
  /** The task of this recording: the first one a line named. */
  private task: string | null = null;
  /** The last generation passed on (or re-synced to); duplicates are at or below it. */
  private cursor: number | null = null;
  /** The last generation of any frame of the task (the snapshot counts): `sameGeneration`. */
  private last: number | null = null;
  /** The client stopped using generation (generation 0, or the fallback of `sameGeneration`). */
  private stopped = false;
  /** The call whose answer is being read. */
  private call: 'send' | 'subscribe' | null = null;
  /** A `SubscribeToTask` awaits its answer. */
  private awaiting = false;
  /** The cursor the latest `SubscribeToTask` carried (1986) or was judged from (dev-1.1). */
  private held: number | null = null;
  /** The latest `SubscribeToTask` sent `afterGeneration` (#1986): replay decides, not the snapshot. */
  private replay = false;
  /** Frames of the task received: a stream of it worked (the agent streams). */
  private frames = 0;

  constructor(private readonly rules: A2aRules) {}

  clone(): A2aTranslator {
    const t = new A2aTranslator(this.rules);
    Object.assign(t, this);
    return t;
  }

  key(): string {
    return [
      this.task,
      this.cursor,
      this.last,
      this.stopped,
      this.call,
      this.awaiting,
      this.held,
      this.replay,
      this.frames > 0,
    ].join('|');
  }

  private get generations(): boolean {
    return this.rules.era !== '1.0' && !this.stopped;
  }

  translate(fact: WireFact): Observation[] {
    switch (fact['type']) {
      case 'a2a/send':
        return this.send(fact);
      case 'a2a/subscribe':
        return this.subscribe(fact);
      case 'a2a/frame': {
        const data = frameData(fact);
        const error = jsonRpcError(data);
        if (error !== undefined)
          return this.error(readErrorObject(error, 200, 'a2a/frame data.error'));
        return this.frame(readFrame(data), fact);
      }
      case 'a2a/end':
        return [...this.answered(), { type: 'END' }];
      case 'a2a/error':
        return this.error(readError(fact));
      case 'keepalive':
        return [...this.answered(), { type: 'KEEPALIVE' }];
      default:
        throw new WireFactError(`unknown A2A line type ${show(fact['type'])}`);
    }
  }

  private own(task: string | undefined, type: string): void {
    if (task === undefined) return;
    if (this.task !== null && task !== this.task) {
      throw new WireFactError(
        `${type} for a second task ${show(task)}: a translator reads the lines of one task (this one's is ${show(this.task)}); the checker gives each task its own`,
      );
    }
    this.task = task;
  }

  private send(fact: WireFact): Observation[] {
    const task = optionalTaskId(fact['taskId'], 'a2a/send taskId');
    this.own(task, 'a2a/send');
    this.call = 'send';
    this.awaiting = false;
    this.cursor = null;
    this.last = null;
    const open: Observation = { type: 'OPEN', status: 200 };
    if (this.task !== null) open.stream = this.task;
    return [open];
  }

  private subscribe(fact: WireFact): Observation[] {
    const task = taskIdIn(fact['taskId'], 'a2a/subscribe taskId');
    this.own(task, 'a2a/subscribe');
    const after = generationOf(fact['afterGeneration'], 'a2a/subscribe afterGeneration');
    if (after !== undefined && this.rules.era !== '1986') {
      throw new WireFactError(
        `a2a/subscribe afterGeneration is the cursor epic #1986 proposes; SubscribeToTask has none in era ${this.rules.era} (read the trace with era 1986)`,
      );
    }
    this.call = 'subscribe';
    this.awaiting = true;
    this.replay = after !== undefined;
    if (this.rules.era === '1.0') {
      this.held = null;
      return [noted({ type: 'RECONNECT', cursor: null, stream: task }, { after: null })];
    }
    if (after !== undefined) this.cursor = after;
    this.held = this.cursor;
    return [
      noted({ type: 'RECONNECT', cursor: this.cursor, stream: task }, { after: after ?? null }),
    ];
  }

  /** The first answer to a `SubscribeToTask`: RESPONSE 200 (a frame, an end, a keepalive). */
  private answered(): Observation[] {
    if (!this.awaiting) return [];
    this.awaiting = false;
    return [{ type: 'RESPONSE', status: 200 }];
  }

  private frame(frame: A2aFrame, fact: WireFact): Observation[] {
    this.own(frame.taskId ?? optionalTaskId(fact['taskId'], 'a2a/frame taskId'), 'a2a/frame');
    this.frames++;
    const ours = frame.taskId === undefined || frame.taskId === this.task;
    const g = frame.generation;
    if (g === 0 && ours) this.stopped = true; // §3.2.7: generation 0, the server does not implement it
    if (frame.kind === 'task' && this.awaiting) return this.snapshot(frame);
    const out = this.answered();
    if (frame.kind === 'message' || !this.generations || g === undefined || g === 0) {
      if (ours && g !== undefined) this.last = g;
      out.push({ type: 'DATA' });
      return out;
    }
    const stream = frame.taskId ?? this.task ?? undefined;
    if (!ours) {
      out.push(stream === undefined ? { type: 'EVENT', id: g } : { type: 'EVENT', id: g, stream });
      return out;
    }
    const repeated = this.last === g;
    this.last = g;
    if (this.cursor !== null && g <= this.cursor) {
      if (repeated && this.rules.sameGeneration === 'stop') {
        // The spec's fallback: the client concludes the server does not implement generation.
        this.stopped = true;
        out.push({ type: 'DATA' });
        return out;
      }
      // A mid-stream Task frame at or below the cursor states nothing new; an update there is a
      // duplicate (the snapshot, or the tap, sent it already).
      if (frame.kind === 'task' || this.rules.duplicate === 'drop') {
        out.push({ type: 'KEEPALIVE' });
        return out;
      }
    } else {
      this.cursor = g;
    }
    out.push(stream === undefined ? { type: 'EVENT', id: g } : { type: 'EVENT', id: g, stream });
    return out;
  }

  /** The `Task` frame that answers a `SubscribeToTask` (see the module comment). */
  private snapshot(frame: A2aFrame): Observation[] {
    this.awaiting = false;
    const g = frame.generation;
    if (g !== undefined) this.last = g;
    if (
      !this.generations ||
      g === undefined ||
      g === 0 ||
      this.replay ||
      this.rules.snapshot === 'ignored'
    ) {
      return [{ type: 'RESPONSE', status: 200 }];
    }
    const response: Observation = { type: 'RESPONSE', status: 200, floor: g + 1, head: g };
    if (this.held === g) return [response];
    // The resume fails (events held+1..g folded, or a head behind the cursor): the client
    // re-syncs on the snapshot, and the stream goes on from g.
    this.cursor = g;
    const reopen: Observation = { type: 'OPEN', status: 200, cursor: g };
    if (this.task !== null) reopen.stream = this.task;
    return [response, reopen];
  }

  private error(e: ErrorAnswer): Observation[] {
    const call = this.call;
    if (!this.awaiting) return [{ type: 'END' }];
    this.awaiting = false;
    if (this.rules.classifyOn === 'status' && e.status === 200) {
      // Read as a 200 whose stream carried nothing (the error is in a body no one read).
      return [{ type: 'RESPONSE', status: 200 }, { type: 'END' }];
    }
    if (e.code === undefined) {
      const said =
        e.status === 404
          ? `HTTP status 404 (TaskNotFoundError, A2A's HTTP mapping): the task does not exist or is not accessible`
          : undefined;
      const o: Observation = { type: 'RESPONSE', status: e.status };
      return [
        said === undefined
          ? o
          : noted(o, { said: `session lost: ${said}; start a new task (GetTask says the same)` }),
      ];
    }
    if (e.earliest !== undefined && this.rules.era === '1986') {
      if (this.held !== null && this.held < e.earliest - 1) {
        const gone = gens(this.held + 1, e.earliest - 1);
        return [
          noted(
            { type: 'RESPONSE', status: 200, floor: e.earliest },
            {
              told: e.earliest - 1,
              said: `the gap signal (${answerOf(e)}) says the earliest generation retained is ${e.earliest}: ${gone} after the client's ${this.held} are gone; ${A2A_REMEDY}`,
            },
          ),
        ];
      }
      return [
        noted(
          { type: 'RESPONSE', status: JSONRPC_ERROR_STATUS },
          {
            said: `a gap signal with earliestGeneration ${e.earliest} contradicts itself (${answerOf(e)}): generation ${(this.held ?? -1) + 1} is retained, so the agent must replay, not refuse`,
          },
        ),
      ];
    }
    if (e.code === TASK_NOT_FOUND) {
      return [
        noted(
          { type: 'RESPONSE', status: 404 },
          {
            said: `session lost: TaskNotFoundError (${answerOf(e)}): the task does not exist or is not accessible; start a new task (GetTask says the same)`,
          },
        ),
      ];
    }
    if (e.code === UNSUPPORTED_OPERATION && call === 'subscribe') {
      const said =
        this.frames > 0
          ? `UnsupportedOperationError on SubscribeToTask (${answerOf(e)}): the task reached a terminal state while the client was away, and its terminal event is lost as an event; re-sync with GetTask (the final state is there), and do not read it as "streaming unsupported": a stream of this task worked`
          : `UnsupportedOperationError on SubscribeToTask (${answerOf(e)}): a terminal task, or an agent that does not stream (the code means both; no stream of this task was seen here); re-sync with GetTask`;
      return [noted({ type: 'RESPONSE', status: 400 }, { said })];
    }
    return [
      noted(
        { type: 'RESPONSE', status: JSONRPC_ERROR_STATUS },
        { said: `unexpected SubscribeToTask answer: ${answerOf(e)}` },
      ),
    ];
  }
}

/** An error answer in words: the JSON-RPC error code, and the HTTP status when it is not 200. */
function answerOf(e: ErrorAnswer): string {
  const code = e.code === undefined ? 'no JSON-RPC error' : `JSON-RPC error ${e.code}`;
  return e.status === 200 ? `${code} with HTTP status 200` : `${code} with HTTP status ${e.status}`;
}

/** Generations `a..b` in words: one, or a range. */
function gens(a: number, b: number): string {
  return a === b ? `generation ${a}` : `generations ${a} to ${b}`;
}

/** The remedy after a failed resume, in A2A's words (docs/a2a.md, "The remedy"). */
export const A2A_REMEDY =
  're-sync with GetTask after the stream ends (never re-send the message: that starts a new turn)';

type Rewrite = readonly [RegExp, (...groups: string[]) => string];

/** The moment that closed a wait, in A2A words. */
function moment(said: string): string {
  if (said === momentOf('END')) return 'the agent closed the stream';
  if (said === momentOf('PROOF_TIMEOUT')) return 'the proof budget ran out';
  if (said === momentOf('IDLE_TIMEOUT') || said === momentOf('DISCONNECT')) return said;
  return 'the next SubscribeToTask';
}

/** The machine's reasons in A2A words: generations, SubscribeToTask, the snapshot, the remedy. */
const A2A_WORDS: Partial<Record<ReasonCode, readonly Rewrite[]>> = {
  'no-cursor': [
    [
      /^reconnect without Last-Event-ID: .*$/,
      () =>
        `SubscribeToTask carries no cursor (A2A 1.0: frames have no id, SubscribeToTaskRequest only id and tenant): nothing can prove that no update was lost; ${A2A_REMEDY}`,
    ],
  ],
  'cursor-dropped': [
    [
      /^reconnect without Last-Event-ID although cursor (\S+) was received: .*$/,
      (c) =>
        `SubscribeToTask carries no cursor although generation ${c} was received: nothing can prove that no update was lost; ${A2A_REMEDY}`,
    ],
  ],
  'idless-data': [
    [
      /^data without an id was delivered after cursor (\S+): .*$/,
      () =>
        `updates without a generation were delivered (A2A 1.0: no update can be named), and SubscribeToTask carries no cursor: nothing can prove that no update was lost; ${A2A_REMEDY}`,
    ],
  ],
  'cursor-below-floor': [
    [
      /^cursor (\S+) below replay floor (\S+); events (\S+) are lost$/,
      (c, f) =>
        `the client's generation ${c} is below the snapshot's ${Number(f) - 1}: ${gens(Number(c) + 1, Number(f) - 1)} came folded into the snapshot, never as events; ${A2A_REMEDY}`,
    ],
  ],
  'head-behind': [
    [
      /^stated head (\S+) is below cursor (\S+): .*$/,
      (h, c) =>
        `the snapshot's generation ${h} is below the client's ${c}: the agent's task is behind what the client was given (a restart that reset generation, or a stale store); ${A2A_REMEDY}`,
    ],
  ],
  'caught-up': [
    [
      /^stated head (\S+) is the cursor: caught up, nothing is owed; the next event must be (\S+)$/,
      (h, n) =>
        `the snapshot's generation ${h} is the client's: caught up, nothing is owed; the next update must be generation ${n}`,
    ],
  ],
  successor: [
    [
      /^first event (\d+) is the cursor's successor$/,
      (g) => `first new generation ${g} is the successor of the client's ${Number(g) - 1}`,
    ],
  ],
  skip: [
    [
      /^replay gap: expected event id (\S+), got (\S+); silent skip of (\S+) event\(s\)$/,
      (e, g, n) =>
        `gap: expected generation ${e}, got ${g}; ${n} update(s) silently lost; ${A2A_REMEDY}`,
    ],
  ],
  rewind: [
    [
      /^replay rewind: expected event id (\S+), got (\S+) .*$/,
      (e, g) => `generation went back: expected ${e}, got ${g}; ${A2A_REMEDY}`,
    ],
  ],
  break: [
    [
      /^non-contiguous stream: expected (\S+), got (\S+)$/,
      (e, g) =>
        `expected generation ${e}, got ${g}: an update lost (or, under ADR-002, a mutation not streamed)`,
    ],
  ],
  'cross-stream': [
    [
      /^event of stream (.*) replayed on a resumption of stream (.*)$/,
      (o, s) => `update of task ${o} on the stream of task ${s}`,
    ],
  ],
  unproven: [
    [
      new RegExp(
        `^no event proved continuity from cursor (\\S+) before ${MOMENT_SOURCE}; a 200 proves nothing$`,
      ),
      (c, o) =>
        `no update proved continuity after generation ${c} before ${moment(o)}; a snapshot that states no generation proves nothing, and neither does a duplicate; ${A2A_REMEDY}`,
    ],
  ],
  'no-response': [
    [
      new RegExp(`^no response to the reconnect before ${MOMENT_SOURCE}$`),
      (o) => `no answer to SubscribeToTask before ${moment(o)}`,
    ],
  ],
  'bad-status': [
    [
      /^unexpected reconnect status=(-?\d+)$/,
      (st) => `unexpected SubscribeToTask answer: HTTP status ${st}; ${A2A_REMEDY}`,
    ],
  ],
  'session-gone': [
    [
      /^session lost: status=(\d+); .*$/,
      (st) => `session lost: HTTP status ${st} (TaskNotFoundError); start a new task`,
    ],
  ],
};

/** A machine reason in A2A words (the rewrites of `A2A_WORDS`); other texts as they are. */
export function a2aPhrase(code: ReasonCode, text: string): string {
  for (const [pattern, words] of A2A_WORDS[code] ?? []) {
    const m = pattern.exec(text);
    if (m !== null) return words(...m.slice(1));
  }
  return text;
}

/** An A2A binding with the given rules (the eras, and the mutants that flip one rule each). */
export function a2aBinding(rules: A2aRules): Binding {
  const eraWords: Record<A2aEra, string> = {
    '1.0': 'A2A 1.0: no generation, no cursor',
    'dev-1.1': 'A2A dev-1.1: per-task generation, no cursor on the wire',
    '1986': 'A2A with epic #1986 as proposed: SubscribeToTask with afterGeneration, replay or gap',
  };
  return {
    name: 'a2a',
    variant: rules.era,
    summary: `A2A task streams, SendStreamingMessage and SubscribeToTask (${eraWords[rules.era]})`,
    lineTypes: [...A2A_LINE_TYPES, 'keepalive'],
    nativeLines: ['idle-timeout', 'disconnect', 'decision'],
    partitionBy: 'taskId',
    partition: {
      calls: ['a2a/send', 'a2a/subscribe'],
      events: ['a2a/frame'],
      ends: ['a2a/end', 'a2a/error', 'disconnect'],
      keyOf: a2aTaskOf,
    },
    variants: {
      field: 'era',
      option: '--a2a-era',
      values: A2A_ERAS,
      of: (era) => A2A_BY_ERA[era as A2aEra],
    },
    translator: () => new A2aTranslator(rules),
    phrase: a2aPhrase,
  };
}

const A2A_BY_ERA: Record<A2aEra, Binding> = {
  '1.0': a2aBinding(a2aRules('1.0')),
  'dev-1.1': a2aBinding(a2aRules('dev-1.1')),
  '1986': a2aBinding(a2aRules('1986')),
};

/** The A2A binding of an era. */
export function a2aOfEra(era: A2aEra): Binding {
  return A2A_BY_ERA[era];
}

/** The A2A binding under its default era, 1.0 (the released protocol). */
export const a2a: Binding = A2A_BY_ERA['1.0'];
