/**
 * A binding maps the wire facts of one protocol to the client machine's observations
 * (../observations.ts). The machine is protocol-neutral: it decides on OPEN, EVENT, RESPONSE,
 * END and the rest, never on an HTTP header or a JSON-RPC method. What differs between
 * protocols (which status means what, which message is a reconnect, what a duplicate is) lives
 * here, one file per binding, so a new protocol's translation costs one small file and no copy
 * of the rules. That file gives `check --binding` only: a full binding (its world, runtime guard,
 * conformance scenarios and commands) spans every layer; docs/architecture.md lists what
 * `mcp-tasks` needed, as the template.
 *
 * A wire fact is one recorded JSON object with a `type` (a line of a trace,
 * docs/trace-format.md). A binding reads the facts of its own vocabulary and says which lines
 * of the native trace format (format v1, the SSE vocabulary) it keeps as they are.
 */
import type { Observation } from '../observations.js';
import type { ReasonCode } from '../outcomes.js';

/**
 * A JSON value in a bad-input message, briefly (objects and arrays are named, not printed):
 * what every binding's messages quote.
 */
export function showWire(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** An optional object field of a fact: `undefined` when absent, else a {@link WireFactError} unless an object. */
export function wireObject(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new WireFactError(`${field} must be an object, got ${showWire(value)}`);
  }
  return value as Record<string, unknown>;
}

/** One recorded wire fact: a JSON object with a `type`. */
export type WireFact = Readonly<Record<string, unknown>>;

/**
 * Bad input in a wire fact: the message names the field and what is wrong with it. The trace
 * reader adds the line number.
 */
export class WireFactError extends Error {
  constructor(problem: string) {
    super(problem);
    this.name = 'WireFactError';
  }
}

/**
 * Turns the facts of one recording into observations, in order. One translator reads one
 * trace: it keeps what it needs of the facts before (a cursor, the task streamed).
 */
export interface BindingTranslator {
  /**
   * The observations `fact` stands for, in the order the machine must see them. An empty
   * list: the fact proves nothing and changes nothing (it still counts as a line, and its time
   * still counts against the proof budget). Throws a {@link WireFactError} for bad input.
   */
  translate(fact: WireFact): Observation[];
  /**
   * A copy that goes on independently (the exhaustive search branches a world, and the
   * client's translator with it). Absent: the translator cannot run in a world.
   */
  clone?(): BindingTranslator;
  /** What the translator keeps, as a string: equal keys, equal translators (fingerprints). */
  key?(): string;
}

/** A protocol's mapping from wire facts to the machine's observations. */
export interface Binding {
  /** The name a trace's binding line and `--binding` use, e.g. `mcp-tasks`. */
  readonly name: string;
  /** What protocol, in one line. */
  readonly summary: string;
  /** The `type`s of the facts this binding translates (its own vocabulary). */
  readonly lineTypes: readonly string[];
  /**
   * The line types of the native trace format that keep their meaning under this binding
   * (a `decision`, a `disconnect`...). Absent: every native line, and no own vocabulary.
   */
  readonly nativeLines?: readonly string[];
  /**
   * The field of a fact that names the stream it belongs to, when one recording interleaves
   * several that are judged apart (`taskId`: SEP-2694 numbers events per task). The checker
   * then gives each value its own translator and machine. Absent: one recording, one stream.
   */
  readonly partitionBy?: string;
  /**
   * Which lines of a partitioned recording start a call, name their stream as the receiver's
   * (events), or end a call, and the stream a line names (src/trace/task-partition.ts). Absent
   * under `partitionBy`: no partition.
   */
  readonly partition?: PartitionLines;
  /** The variant this binding is of its family (`a2a`: its era), when it has variants. */
  readonly variant?: string;
  /** The binding's variants (`a2a`: its eras), chosen by a binding line field or an option. */
  readonly variants?: BindingVariants;
  /** A fresh translator for one recording; absent when the native format is the binding's. */
  translator?(): BindingTranslator;
  /**
   * The machine's reason for `code` in the binding's words. The machine's texts speak of
   * cursors, ids and statuses (and, where the rule came from SSE, of `Last-Event-ID`); a report
   * on a trace of this binding rewords them. Absent: the machine's words, as they are.
   */
  phrase?(code: ReasonCode, text: string): string;
}

/** The lines of a partitioned recording, by role (see {@link Binding.partition}). */
export interface PartitionLines {
  /** Line types that start a call (a resume or an opening) of the stream they name. */
  readonly calls: readonly string[];
  /** Line types the receiver sends, naming their stream (an event of an unknown stream is the open call's). */
  readonly events: readonly string[];
  /** Line types that end the answer to a call. */
  readonly ends: readonly string[];
  /**
   * The stream a line names, `null` when it names none. Throws a {@link WireFactError} for a
   * bad name; a call or event line that must name one throws when it does not.
   */
  keyOf(fact: WireFact): string | null;
  /** The stream an answer line hints at when it names none itself (an error's data). */
  hintOf?(fact: WireFact): string | undefined;
}

/** A binding's variants: the binding line's field and the option that choose one. */
export interface BindingVariants {
  /** The binding line's field (`era`). */
  readonly field: string;
  /** The command-line option (`--a2a-era`). */
  readonly option: string;
  /** Every value, the default first. */
  readonly values: readonly string[];
  /** The binding of a value (one of `values`). */
  of(value: string): Binding;
}

/** The machine's reason in `binding`'s words (./binding.ts, `phrase`). */
export function phraseOf(binding: Binding, code: ReasonCode, text: string): string {
  return binding.phrase === undefined ? text : binding.phrase(code, text);
}
