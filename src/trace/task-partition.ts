/**
 * A recording of several tasks, judged per task. SEP-2694 numbers events per task ("Sequence
 * numbers are scoped to a single task"), and a client with two task streams writes one trace in
 * which both interleave. Splitting it is the oracle's job: each task gets its own translator
 * (model/bindings/mcp-tasks.ts) and its own machine (./judge.ts), and every line goes to the
 * task it belongs to, in one report.
 *
 * The binding says which of its lines are calls, events and ends, and which task a line names
 * (`partition` of model/bindings/binding.ts); the words below are `mcp-tasks`' (`a2a`: `a2a/send`
 * and `a2a/subscribe` are calls, `a2a/frame` an event, `a2a/end` and `a2a/error` ends).
 *
 * Which task a line belongs to:
 * - a `tasks/stream` and a `tasks/event` name theirs (`taskId`);
 * - an event of a task no line named before comes on the answer to some call: the one call
 *   open, or, in a trace of one task, that task's (the receiver's fault: `cross-stream`, or a
 *   break); before any call, the lines go to the first task named;
 * - any other line (`tasks/result`, `tasks/error`, `keepalive`, `disconnect`, `idle-timeout`,
 *   `decision`) may name its task with `taskId`; without it, it belongs to the one task it can
 *   belong to: in a trace of one task, that task; else an answer (result, error, keepalive) or a
 *   break (disconnect, idle timer) to the one task whose call is open, and a decision to the
 *   one task whose resume awaits a decision (else the one whose resume is being judged). When
 *   two or more could, the line names no task where one is needed: bad input.
 */
import type { Binding, BindingTranslator, PartitionLines } from '../../model/bindings/index.js';
import { WireFactError, type WireFact } from '../../model/bindings/index.js';
import {
  isObservation,
  translateFact,
  unknownLineType,
  vocabularyOf,
  type Vocabulary,
} from './bindings.js';
import {
  parseJsonLine,
  parseTraceObject,
  show,
  TraceInputError,
  type IdPattern,
} from './format.js';
import { StreamJudge, type JudgeShared } from './judge.js';

/**
 * The most tasks one trace may hold (one machine and translator each, kept to the end: a later
 * call of a task is judged from what came before). One more is bad input: memory stays bounded.
 * The same bound as `taskStreamGuard`'s `maxTasks` default.
 */
export const MAX_TASKS = 10_000;

/** One task of the trace: its reader and its judge. */
interface TaskSlot {
  /** The task's id; `null` for lines read before any line named a task. */
  name: string | null;
  translator: BindingTranslator;
  judge: StreamJudge;
}

/** Reads a trace of interleaved tasks; each task is judged by its own {@link StreamJudge}. */
export class TaskPartition {
  private readonly vocabulary: Vocabulary;
  /** The roles of the binding's lines: calls, events, ends (model/bindings/binding.ts). */
  private readonly roles: PartitionLines;
  private readonly calls: ReadonlySet<string>;
  private readonly events: ReadonlySet<string>;
  private readonly ends: ReadonlySet<string>;
  private readonly slots = new Map<string, TaskSlot>();
  /** Lines before any task was named (a keepalive first, say): adopted by the first task. */
  private unnamed: TaskSlot | null = null;
  /** Tasks whose latest call's answer has not ended (no result, error or disconnect yet). */
  private readonly open = new Set<TaskSlot>();
  /** Tasks with a resume (a judgement window) so far. */
  private readonly resumed = new Set<TaskSlot>();

  constructor(
    private readonly binding: Binding,
    private readonly field: string,
    private readonly shared: JudgeShared,
    private readonly idPattern: IdPattern | undefined,
  ) {
    this.vocabulary = vocabularyOf(binding);
    if (binding.partition === undefined) {
      throw new Error(
        `binding ${binding.name} partitions by ${field} but declares no partition roles`,
      );
    }
    this.roles = binding.partition;
    this.calls = new Set(this.roles.calls);
    this.events = new Set(this.roles.events);
    this.ends = new Set(this.roles.ends);
  }

  /** The number of tasks held (bounded by {@link MAX_TASKS}). */
  get tasks(): number {
    return this.slots.size + (this.unnamed === null ? 0 : 1);
  }

  /** Every judge, in the order their tasks first came. */
  judges(): StreamJudge[] {
    const all = [...this.slots.values()].map((s) => s.judge);
    return this.unnamed === null ? all : [this.unnamed.judge, ...all];
  }

  /** Reads one line (`text`, line number `line`) and hands it to its task's judge. */
  read(text: string, line: number, readTime: boolean): void {
    const obj = parseJsonLine(text, line);
    if (obj === null) return;
    const type = obj['type'];
    const own = typeof type === 'string' && this.vocabulary.own.has(type);
    if (!own && !(typeof type === 'string' && this.vocabulary.native.has(type))) {
      throw unknownLineType(this.binding, this.vocabulary, type, line);
    }
    const slot = this.slotOf(obj, type as string, line);
    if (own) {
      for (const item of translateFact(slot.translator, obj, line, readTime)) {
        if (isObservation(item)) slot.judge.takeObservation(item, line, item.t);
        else slot.judge.take(item, line);
      }
    } else {
      slot.judge.take(parseTraceObject(obj, line, this.idPattern, readTime), line);
    }
    if (this.calls.has(type as string)) this.open.add(slot);
    else if (this.ends.has(type as string)) this.open.delete(slot);
    if (slot.judge.current !== null) this.resumed.add(slot);
  }

  /** The task `line` belongs to (see the module comment). */
  private slotOf(obj: Record<string, unknown>, type: string, line: number): TaskSlot {
    const key = this.vocabulary.own.has(type) ? this.named(obj, line) : null;
    if (this.calls.has(type) && key !== null) return this.slotFor(key, line);
    if (this.events.has(type) && key !== null) {
      const task = key;
      const known = this.slots.get(task);
      if (known !== undefined) return known;
      // An event of a task no line named: the receiver's, on the answer to the call it came on
      // (before any call: the first task's, as its lines before its call are).
      if (this.slots.size === 0) return this.unnamedSlot();
      if (this.slots.size === 1) return this.slots.values().next().value!;
      if (this.open.size === 1) return this.open.values().next().value!;
      throw this.ambiguous(
        line,
        `${type} of task ${show(task)}, which no ${this.roles.calls.join(' or ')} of this trace called, came while ${this.openWords()}: which call's answer it came on cannot be told`,
      );
    }
    const given = obj[this.field];
    if (given !== undefined && given !== null) {
      if (typeof given !== 'string' || given === '') {
        throw new TraceInputError(
          line,
          `${type} ${this.field} must be a non-empty string, got ${show(given)}`,
        );
      }
      return this.slotFor(given, line);
    }
    if (this.slots.size <= 1) return this.slots.values().next().value ?? this.unnamedSlot();
    if (this.calls.has(type)) {
      throw this.ambiguous(line, `a ${type} line names no task, and the trace holds several`);
    }
    return type === 'decision' ? this.decided(line) : this.answered(obj, type, line);
  }

  /** The one task whose call a line without a task answers or breaks. */
  private answered(obj: Record<string, unknown>, type: string, line: number): TaskSlot {
    if (this.open.size === 1) return this.open.values().next().value!;
    // An answer may say its task in its data (events_gone does): it settles which open call.
    const hint = this.roles.hintOf?.(obj as WireFact);
    const said = hint === undefined ? undefined : this.slots.get(hint);
    if (said !== undefined && this.open.has(said)) return said;
    throw this.ambiguous(line, `a ${type} line names no task, and ${this.openWords()}`);
  }

  /** The one task whose resume a decision without a task is about. */
  private decided(line: number): TaskSlot {
    const awaiting = [...this.resumed].filter((s) => s.judge.awaitsDecision);
    if (awaiting.length === 1) return awaiting[0]!;
    if (awaiting.length === 0 && this.resumed.size === 1)
      return this.resumed.values().next().value!;
    if (awaiting.length === 0 && this.resumed.size === 0) {
      throw new TraceInputError(line, 'decision with no reconnect before it');
    }
    const which = awaiting.length > 0 ? awaiting : [...this.resumed];
    throw this.ambiguous(
      line,
      `a decision line names no task, and the resumes of tasks ${names(which)} ${awaiting.length > 0 ? 'await a decision' : 'are being judged'}`,
    );
  }

  private ambiguous(line: number, problem: string): TraceInputError {
    return new TraceInputError(
      line,
      `${problem}; in a trace of several tasks, add "${this.field}" to say which task the line belongs to`,
    );
  }

  /** The open calls, in words. */
  private openWords(): string {
    if (this.open.size === 0) return `no call of the trace's ${this.slots.size} tasks is open`;
    return `the calls of tasks ${names([...this.open])} are open`;
  }

  /** The task a line of the binding's own names (`null`: none; bad input for a bad name). */
  private named(obj: Record<string, unknown>, line: number): string | null {
    try {
      return this.roles.keyOf(obj as WireFact);
    } catch (e) {
      if (e instanceof WireFactError) throw new TraceInputError(line, e.message);
      throw e;
    }
  }

  /** The task `name`'s slot, made on its first line (bounded by {@link MAX_TASKS}). */
  private slotFor(name: string, line: number): TaskSlot {
    const known = this.slots.get(name);
    if (known !== undefined) return known;
    let slot = this.unnamed;
    if (slot !== null && this.slots.size === 0) {
      // The lines read before any task was named are the first task's.
      this.unnamed = null;
      slot.name = name;
    } else {
      if (this.tasks >= MAX_TASKS) {
        throw new TraceInputError(
          line,
          `more than ${MAX_TASKS} tasks in one trace: check keeps a machine for each task to the end (a later call is judged from what came before), and refuses more rather than grow without bound; split the trace`,
        );
      }
      slot = this.newSlot(name);
    }
    this.slots.set(name, slot);
    return slot;
  }

  private unnamedSlot(): TaskSlot {
    this.unnamed ??= this.newSlot(null);
    return this.unnamed;
  }

  private newSlot(name: string | null): TaskSlot {
    return { name, translator: this.binding.translator!(), judge: new StreamJudge(this.shared) };
  }
}

/** Task names in a message: the first three, quoted, and how many more. */
function names(slots: readonly TaskSlot[]): string {
  const shown = slots.slice(0, 3).map((s) => show(s.name ?? ''));
  return slots.length > 3 ? `${shown.join(', ')} and ${slots.length - 3} more` : shown.join(', ');
}
