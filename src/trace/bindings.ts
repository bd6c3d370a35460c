/**
 * Traces under a binding other than the native one (model/bindings/): each line is read as a
 * wire fact of the binding's vocabulary and translated into the machine's observations, which the
 * checker consumes as they are, or, for the native lines the binding keeps (`decision`,
 * `disconnect`...), parsed by ./format.ts as usual. The binding line at the head of a trace names the binding.
 */
import type { Observation } from '../../model/observations.js';
import {
  BINDING_NAMES,
  bindingNamed,
  WireFactError,
  type Binding,
  type BindingTranslator,
} from '../../model/bindings/index.js';
import {
  parseJsonLine,
  parseTraceObject,
  TRACE_LINE_TYPES,
  show,
  TraceInputError,
  withTime,
  type IdPattern,
  type TimedTraceLine,
} from './format.js';

/**
 * What one line of a trace stands for: a line of the native format (a `decision`, or any line
 * under `mcp-sse`), or an observation a binding translated a wire fact into, with the fact's
 * `t`. Observations go to the checker as they are, not written back as native lines first.
 */
export type ReadItem = TimedTraceLine | (Observation & { t?: number });

/** `true` when `item` is an observation (upper-case types) rather than a native line. */
export function isObservation(item: ReadItem): item is Observation & { t?: number } {
  const c = item.type.charCodeAt(0);
  return c >= 65 && c <= 90;
}

/** Reads one line of a trace into what it stands for (nothing: a blank line). */
export type LineReader = (text: string, line: number, readTime: boolean) => readonly ReadItem[];

/** What a binding line at the head of a trace says. */
export interface BindingHeader {
  binding: Binding;
  /** `proofBudget` of the header, in ms, when it states one. */
  proofBudget?: number;
  /** The variant the line states (`a2a`: its `era`), when it states one. */
  variant?: string;
}

/**
 * A binding speaks through facts a client records; timers stay native. Id-less data is a
 * binding's too: an A2A 1.0 update names no position (DATA).
 */
const BINDING_EMITS: ReadonlySet<string> = new Set([
  'OPEN',
  'EVENT',
  'DATA',
  'KEEPALIVE',
  'END',
  'RECONNECT',
  'RESPONSE',
]);

const DROPPED: readonly Observation[] = [{ type: 'KEEPALIVE' }];

/**
 * The observations a binding's translator makes of one fact of its own vocabulary (a dropped
 * fact: one KEEPALIVE, which still carries the fact's time), with the fact's `t` when time is
 * read. Throws a {@link TraceInputError} naming the line for bad input in the fact.
 */
export function translateFact(
  translator: BindingTranslator,
  obj: Record<string, unknown>,
  line: number,
  readTime: boolean,
): readonly ReadItem[] {
  let observations: Observation[];
  try {
    observations = translator.translate(obj);
  } catch (e) {
    if (e instanceof WireFactError) throw new TraceInputError(line, e.message);
    throw e;
  }
  for (const o of observations) {
    if (!BINDING_EMITS.has(o.type))
      throw new Error(`a binding translated a fact into ${o.type}, which no binding may emit`);
  }
  // A dropped fact still carries its time: the budget runs on it.
  const items = observations.length > 0 ? observations : DROPPED;
  return readTime ? items.map((o) => withTime(o, obj, line)) : items;
}

/** The vocabulary of a binding: its own line types, and the native ones it keeps. */
export interface Vocabulary {
  own: ReadonlySet<string>;
  native: ReadonlySet<string>;
}

/** The line types `binding` reads: its own, and the native ones it keeps. */
export function vocabularyOf(binding: Binding): Vocabulary {
  return {
    own: new Set(binding.lineTypes),
    native: new Set(binding.nativeLines ?? TRACE_LINE_TYPES),
  };
}

/** Bad input: a line whose `type` is not in the binding's vocabulary (or a late binding line). */
export function unknownLineType(
  binding: Binding,
  vocabulary: Vocabulary,
  type: unknown,
  line: number,
): TraceInputError {
  if (type === 'binding') {
    return new TraceInputError(line, 'a binding line must be the first line of the trace');
  }
  const expected = [...vocabulary.own, ...vocabulary.native].join(', ');
  return new TraceInputError(
    line,
    type === undefined
      ? `a trace line needs a "type" (under binding ${binding.name}: one of ${expected})`
      : `unknown type ${show(type)} under binding ${binding.name} (expected one of ${expected})`,
  );
}

/**
 * The reader of a binding's lines, or `undefined` for a binding whose vocabulary is the native
 * format's (`mcp-sse`): the checker then parses lines itself, as it always has. One translator
 * reads every line (a trace of one recording).
 */
export function lineReaderFor(binding: Binding, idPattern?: IdPattern): LineReader | undefined {
  if (binding.translator === undefined) return undefined;
  const translator = binding.translator();
  const vocabulary = vocabularyOf(binding);
  return (text, line, readTime) => {
    const obj = parseJsonLine(text, line);
    if (obj === null) return [];
    const type = obj['type'];
    if (typeof type === 'string' && vocabulary.own.has(type)) {
      return translateFact(translator, obj, line, readTime);
    }
    if (typeof type === 'string' && vocabulary.native.has(type)) {
      return [parseTraceObject(obj, line, idPattern, readTime)];
    }
    throw unknownLineType(binding, vocabulary, type, line);
  };
}

/**
 * The binding line `{"type":"binding","name":"mcp-tasks"}` when `text` is one, else `null`.
 * Only the first line of a trace may be one. Throws a {@link TraceInputError} for an unknown
 * binding or a bad `proofBudget`.
 */
export function readBindingHeader(text: string, line: number): BindingHeader | null {
  // Cheap test first: line 1 of every trace comes through here. A line with a JSON escape
  // (`"bin\u0064ing"`) is parsed whatever it looks like: it is read as JSON, escapes included.
  if (!text.includes('"binding"') && !text.includes('\\')) return null;
  const obj = parseJsonLine(text, line);
  if (obj === null || obj['type'] !== 'binding') return null;
  const name = obj['name'];
  const binding = typeof name === 'string' ? bindingNamed(name) : undefined;
  if (binding === undefined) {
    throw new TraceInputError(
      line,
      `unknown binding ${show(name)} in the binding line (expected one of ${BINDING_NAMES.join(', ')})`,
    );
  }
  const header: BindingHeader = { binding };
  const variants = binding.variants;
  const variant = variants === undefined ? undefined : obj[variants.field];
  if (variants !== undefined && variant !== undefined && variant !== null) {
    if (typeof variant !== 'string' || !variants.values.includes(variant)) {
      throw new TraceInputError(
        line,
        `binding line ${variants.field} must be one of ${variants.values.join(', ')} under binding ${binding.name}, got ${show(variant)}`,
      );
    }
    header.binding = variants.of(variant);
    header.variant = variant;
  }
  const budget = obj['proofBudget'];
  if (budget === undefined || budget === null) return header;
  if (typeof budget !== 'number' || !Number.isFinite(budget) || budget < 0) {
    throw new TraceInputError(
      line,
      `binding line proofBudget must be a non-negative number of ms, got ${show(budget)}`,
    );
  }
  header.proofBudget = budget;
  return header;
}
