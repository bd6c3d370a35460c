/**
 * The streaming trace checker. It reads a trace one line at a time and hands each line's
 * observations to the judge of its stream (./judge.ts), which feeds them to the client machine
 * (`model/client-machine.ts`, run by ./engine.ts) and judges each reconnect by the outcome the
 * machine reaches in that reconnect's judgement window; a reconnect still pending when its
 * window closes is settled with PROOF_TIMEOUT, as `settle()` in model/run.ts does. It holds no
 * rule of its own: what is resumed, delayed or failed is the machine's decision.
 *
 * One judge reads an SSE trace. Under a binding that partitions its facts (`mcp-tasks`: by
 * `taskId`), a recording of several tasks is judged per task, one judge each
 * (./task-partition.ts), in one report.
 *
 * Polling (MCP 2025-11-25): a resumed stream that the server ends before any event leaves the
 * machine in `polling`, and a next reconnect with the same cursor continues the same *episode*
 * instead of closing the window. An episode is judged as one: every reconnect of it gets the
 * episode's outcome; a `delayed` decision on a poll that is not the episode's last is the
 * waiting that polling is, and is never a violation. With `proofBudget` and `t` fields, an
 * episode still unproven more than that many ms after its first reconnect has failed.
 *
 * Memory is bounded whatever the trace's length: a reconnect is reported (and forgotten) when
 * its window closes. What it keeps: per stream (per task), the machine's snapshot, the episode
 * being judged (one small record per poll), the last id received per stream name (at most
 * MAX_STREAM_NAMES), and the breaks found while a window is open; at most MAX_TASKS tasks.
 */
import type { ClientMachine } from '../../model/client-machine.js';
import { bindingNamed, mcpSse, BINDING_NAMES, type Binding } from '../../model/bindings/index.js';
import { isObservation, lineReaderFor, readBindingHeader, type LineReader } from './bindings.js';
import { engineFor, type Engine, type EngineName } from './engine.js';
import { compileIdPattern, parseTraceLine, TraceInputError, type IdPattern } from './format.js';
import {
  outcomeCounts,
  StreamJudge,
  type CheckSink,
  type Counts,
  type JudgeShared,
} from './judge.js';
import { TaskPartition } from './task-partition.js';
import { isViolation, VERDICTS, type CheckSummary, type Verdict } from './report.js';

export { IDLESS_NOTE, MAX_STREAM_NAMES, observationOf, verdictOf } from './judge.js';
export type { CheckSink } from './judge.js';
export { MAX_TASKS } from './task-partition.js';

/** Options of the checker. */
export interface CheckOptions {
  /** Reads sequence numbers out of opaque string ids: a regex with a named group `seq`. */
  idPattern?: RegExp | string;
  /** Count false alarms and misclassifications as violations (exit status 1). */
  strict?: boolean;
  /**
   * The machine that decides; the real client machine unless a test injects a mutant. Any
   * machine over the same observations and context is judged the same way: the first decisive
   * outcome in a window is the reconnect's (a later one does not replace it; a delay is kept only
   * until a decisive outcome follows), a decision with no window open is nobody's, a reason
   * without an outcome decides nothing, and the settling PROOF_TIMEOUT goes only to a machine in
   * a pending state (properties/trace/custom-machine.test.ts).
   */
  machine?: ClientMachine;
  /** How the machine is run (./engine.ts); `compiled` unless a test compares the two. */
  engine?: EngineName;
  /**
   * Proof budget in ms, measured on the lines' `t` fields from an episode's first reconnect:
   * an episode still unproven past it has failed (rule 7). Without it (or without `t`), an
   * episode is unproven until its window closes.
   */
  proofBudget?: number;
  /**
   * The binding the trace is read under (model/bindings/): a name (`mcp-sse`, the default, or
   * `mcp-tasks`) or a binding (a mutant, for tests). A binding line at the head of the trace
   * names it too; when both are given and differ, the trace is bad input.
   */
  binding?: string | Binding;
  /**
   * The variant of the binding (`a2a`: its era, `1.0`, `dev-1.1` or `1986`), as `--a2a-era`
   * gives it. A binding line that states another is bad input; without either, the binding's
   * default (the first of its variants).
   */
  variant?: string;
}

/** The binding of the options: a binding, a known name, or none (the trace's line, or mcp-sse). */
function bindingOf(
  b: string | Binding | undefined,
  variant: string | undefined,
): Binding | undefined {
  if (b === undefined || typeof b !== 'string') return b;
  const found = bindingNamed(b);
  if (found === undefined) {
    throw new Error(
      `unknown binding ${JSON.stringify(b)} (expected one of ${BINDING_NAMES.join(', ')})`,
    );
  }
  if (variant === undefined) return found;
  const variants = found.variants;
  if (variants === undefined || !variants.values.includes(variant)) {
    throw new Error(
      variants === undefined
        ? `binding ${found.name} has no variants, got ${JSON.stringify(variant)}`
        : `${variants.option} must be one of ${variants.values.join(', ')}, got ${JSON.stringify(variant)}`,
    );
  }
  return variants.of(variant);
}

/**
 * Checks a trace line by line. `push` each line (without its newline), then `finish`.
 * Findings go to the sink as soon as they are final, in line order (under `mcp-tasks`, each
 * task's in line order; a task's come when its windows close). `push` throws a
 * {@link TraceInputError} on bad input; the checker must not be used after that.
 */
export class TraceChecker implements JudgeShared {
  readonly engine: Engine;
  private readonly idPattern: IdPattern | undefined;
  readonly strict: boolean;
  budget: number | undefined;
  /** The binding chosen by the options, if any (a binding line must then agree). */
  private readonly chosen: Binding | undefined;
  /** The options named the variant (or gave a binding object): a binding line may not change it. */
  private readonly variantFixed: boolean;
  /** Reads a line under a non-native binding; `undefined`: native lines (`mcp-sse`). */
  private readLine: LineReader | undefined;
  /** The binding the trace is read under: its words phrase the machine's reasons. */
  binding: Binding;
  readonly notes: string[] = [];
  private lineNo = 0;
  /** The judge of a trace of one stream; `undefined` until the first line after the header. */
  private judge: StreamJudge | undefined;
  /** The tasks of a partitioned trace (`mcp-tasks`), each with its judge. */
  private partition: TaskPartition | undefined;
  /** The latest `t` read (only with a budget) and its line. */
  private lastT: { t: number; line: number } | undefined = undefined;
  readonly counts: Counts = {
    reconnects: 0,
    expected: outcomeCounts(),
    verdicts: Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>,
    breaks: 0,
    cursorAhead: 0,
  };

  constructor(
    options: CheckOptions = {},
    readonly sink: CheckSink = {},
  ) {
    this.engine = engineFor(options.machine, options.engine);
    this.idPattern =
      options.idPattern === undefined ? undefined : compileIdPattern(options.idPattern);
    this.strict = options.strict ?? false;
    if (
      options.proofBudget !== undefined &&
      !(Number.isFinite(options.proofBudget) && options.proofBudget >= 0)
    ) {
      throw new Error(
        `proofBudget must be a non-negative number of ms, got ${options.proofBudget}`,
      );
    }
    this.budget = options.proofBudget;
    this.chosen = bindingOf(options.binding, options.variant);
    this.variantFixed =
      options.variant !== undefined ||
      (options.binding !== undefined && typeof options.binding !== 'string');
    this.binding = this.chosen ?? mcpSse;
  }

  /** The name of the binding the trace is read under (known once its first line was read). */
  get bindingName(): string {
    return this.binding.name;
  }

  /** Lines read so far. */
  get lines(): number {
    return this.lineNo;
  }

  /** Tasks held so far (a partitioned trace), else 1 once a line was read. */
  get streams(): number {
    return this.partition?.tasks ?? (this.judge === undefined ? 0 : 1);
  }

  /** Reads one line of the trace. */
  push(text: string): void {
    const line = ++this.lineNo;
    // A blank line (a lone CR or LF read as one) is skipped before any parsing.
    if (text.length === 0) return;
    if (line === 1 && this.readHeader(text)) return;
    const readTime = this.budget !== undefined;
    if (this.partition !== undefined || this.startReading()) {
      this.partition!.read(text, line, readTime);
      return;
    }
    const judge = this.judge!;
    if (this.readLine !== undefined) {
      for (const item of this.readLine(text, line, readTime)) {
        if (isObservation(item)) judge.takeObservation(item, line, item.t);
        else judge.take(item, line);
      }
      return;
    }
    const l = parseTraceLine(text, line, this.idPattern, readTime);
    if (l === null) return;
    judge.take(l, line);
  }

  /** The first line after the header: the binding is known. `true`: the trace is partitioned. */
  private startReading(): boolean {
    if (this.judge !== undefined) return false;
    const field = this.binding.partitionBy;
    if (field !== undefined && this.binding.translator !== undefined) {
      this.partition = new TaskPartition(this.binding, field, this, this.idPattern);
      return true;
    }
    this.readLine = lineReaderFor(this.binding, this.idPattern);
    this.judge = new StreamJudge(this);
    return false;
  }

  /** The binding line at the head of a trace: it chooses the binding and may set the budget. */
  private readHeader(text: string): boolean {
    const header = readBindingHeader(text, 1);
    if (header === null) return false;
    const { binding, proofBudget, variant } = header;
    if (this.chosen === undefined) {
      this.binding = binding;
    } else if (this.chosen.name !== binding.name) {
      throw new TraceInputError(
        1,
        `the binding line says ${binding.name}, but the binding chosen (--binding) is ${this.chosen.name}`,
      );
    } else if (variant !== undefined && this.variantFixed && variant !== this.chosen.variant) {
      const field = binding.variants?.field ?? 'variant';
      throw new TraceInputError(
        1,
        `the binding line says ${field} ${variant}, but the one chosen (${binding.variants?.option ?? '--binding'}) is ${this.chosen.variant ?? 'none'}`,
      );
    } else if (variant !== undefined && !this.variantFixed) {
      this.binding = binding;
    }
    // A budget given by the caller (--proof-budget) wins over the trace's.
    if (this.budget === undefined) this.budget = proofBudget;
    return true;
  }

  /** Closes the last judgement window and returns the summary. */
  finish(): CheckSummary & { exitCode: 0 | 1 } {
    if (this.judge === undefined && this.partition === undefined) this.startReading();
    const judges = this.partition?.judges() ?? [this.judge!];
    for (const j of judges) j.finish(this.lineNo);
    const dropped = judges.flatMap((j) => j.dropped);
    const marksResponses = judges.some((j) => j.marksResponses);
    const c = this.counts;
    let violations = c.breaks + c.cursorAhead;
    if (this.strict && marksResponses) violations += dropped.length;
    else if (this.strict && dropped.length > 0) {
      const d = dropped[0]!;
      this.notes.push(
        `line ${d.line}: a stream ended after id ${d.cursor} with no reconnect, but the trace marks no response ("response": true on the event that carries it), so a dropped call cannot be told from a finished one`,
      );
    }
    for (const v of VERDICTS) if (isViolation(v, this.strict)) violations += c.verdicts[v];
    return {
      lines: this.lineNo,
      reconnects: c.reconnects,
      expected: { ...c.expected },
      verdicts: { ...c.verdicts },
      breaks: c.breaks,
      cursorAhead: c.cursorAhead,
      violations,
      strict: this.strict,
      ...(this.notes.length > 0 ? { notes: [...this.notes] } : {}),
      ...(this.strict && marksResponses && dropped.length > 0 ? { dropped: [...dropped] } : {}),
      exitCode: violations > 0 ? 1 : 0,
    };
  }

  /**
   * `t` is read only with a budget, and the budget is measured on it: a `t` that goes back
   * (a clock reset, lines out of order) would shrink an elapsed time and turn an over-budget
   * episode into a proven one. It is bad input.
   */
  checkTimeOrder(line: number, t: number): void {
    const last = this.lastT;
    if (last !== undefined && t < last.t) {
      throw new TraceInputError(
        line,
        `t ${t} is earlier than t ${last.t} on line ${last.line}: with a proof budget, t must not decrease`,
      );
    }
    this.lastT = { t, line };
  }
}
