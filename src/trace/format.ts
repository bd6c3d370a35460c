/**
 * Trace format v1: one JSON object per line, each an observation the client made or a decision
 * it took. This module turns one line of text into a typed {@link TraceLine}, or throws a
 * {@link TraceInputError} naming the line. It knows nothing of the rules: the checker feeds
 * the observations to the client machine, which decides.
 *
 * The format is specified in docs/trace-format.md.
 */
import type { Outcome } from '../../model/outcomes.js';
import { OUTCOMES } from '../../model/outcomes.js';
import { parseCommonLine } from './common-lines.js';
import type { TimedTraceLine, TraceLine } from './line.js';

export type { TimedTraceLine, TraceLine } from './line.js';

/** Bad input in a trace: one line of text, naming the line (1-based). Exit status 2. */
export class TraceInputError extends Error {
  /** The 1-based line number of the offending line (0 for errors not tied to a line). */
  readonly line: number;
  constructor(line: number, problem: string) {
    super(`line ${line}: ${oneLine(problem)}`);
    this.name = 'TraceInputError';
    this.line = line;
  }
}

/** One printable line: line breaks folded, other control characters escaped. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ').replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Every `type` a v1 trace line may have. */
export const TRACE_LINE_TYPES = [
  'open',
  'event',
  'keepalive',
  'idle-timeout',
  'disconnect',
  'end',
  'reconnect',
  'response',
  'decision',
] as const;

/** The `type` of a trace line. */
export type TraceLineType = (typeof TRACE_LINE_TYPES)[number];

/** Reads sequence numbers (and, optionally, stream names) out of opaque string ids. */
export interface IdPattern {
  regex: RegExp;
}

/**
 * Compiles an `--id-pattern`: a regular expression with a named group `seq` (decimal digits)
 * and optionally a named group `stream`. Throws a plain `Error` with a one-line message when
 * the pattern does not compile or has no `seq` group.
 */
export function compileIdPattern(pattern: RegExp | string): IdPattern {
  let regex: RegExp;
  try {
    regex = typeof pattern === 'string' ? new RegExp(pattern) : pattern;
  } catch (e) {
    throw new Error(`--id-pattern does not compile: ${oneLine((e as Error).message)}`);
  }
  if (!/\(\?<seq>/.test(regex.source)) {
    throw new Error(
      `--id-pattern ${JSON.stringify(regex.source)} has no named group (?<seq>...) for the sequence number`,
    );
  }
  // A global or sticky regex keeps state between calls; matching must not depend on history.
  if (regex.global || regex.sticky)
    regex = new RegExp(regex.source, regex.flags.replace(/[gy]/g, ''));
  return { regex };
}

const OUTCOME_SET: ReadonlySet<string> = new Set(OUTCOMES);
const DECIMAL = /^\d+$/;

interface SeqNumber {
  seq: number;
  stream?: string;
}

/** Line-level context for error messages. */
class Reader {
  constructor(
    readonly line: number,
    readonly obj: Record<string, unknown>,
    readonly idPattern: IdPattern | undefined,
  ) {}

  fail(problem: string): never {
    throw new TraceInputError(this.line, problem);
  }

  /** A non-negative safe integer from a JSON number or a decimal string. */
  private integer(field: string, value: unknown, what: string): number {
    if (typeof value === 'number') {
      if (!Number.isInteger(value)) this.fail(`${what} ${field} must be an integer, got ${value}`);
      if (value < 0) this.fail(`negative ${field} ${value} in ${what}`);
      if (!Number.isSafeInteger(value))
        this.fail(`${field} ${value} in ${what} is larger than 2^53-1`);
      return value;
    }
    if (typeof value === 'string' && DECIMAL.test(value)) {
      const n = Number(value);
      if (!Number.isSafeInteger(n))
        this.fail(`${field} ${clip(value)} in ${what} is larger than 2^53-1`);
      return n;
    }
    if (typeof value === 'string' && /^-\d+$/.test(value)) {
      this.fail(`negative ${field} ${clip(value)} in ${what}`);
    }
    return this.fail(`${what} ${field} must be an integer, got ${show(value)}`);
  }

  /** An event id or a cursor: an integer, a decimal string, or a string read by the pattern. */
  seqNumber(field: string, value: unknown, what: string): SeqNumber {
    if (typeof value === 'string' && !DECIMAL.test(value) && !/^-\d+$/.test(value)) {
      if (!this.idPattern) {
        this.fail(
          `${what} ${field} ${show(value)} is not a decimal integer; pass --id-pattern with a (?<seq>...) group to read opaque ids`,
        );
      }
      const m = this.idPattern.regex.exec(value);
      const seq = m?.groups?.['seq'];
      if (!m || seq === undefined) {
        this.fail(
          `${what} ${field} ${show(value)} does not match --id-pattern ${this.idPattern.regex}`,
        );
      }
      if (!DECIMAL.test(seq)) {
        this.fail(
          `${what} ${field} ${show(value)}: the seq group matched ${show(seq)}, not a decimal integer`,
        );
      }
      const n = this.integer(field, seq, what);
      return { seq: n, stream: m.groups?.['stream'] };
    }
    return { seq: this.integer(field, value, what) };
  }

  optionalInteger(field: string, what: string): number | undefined {
    const v = this.obj[field];
    return v === undefined || v === null ? undefined : this.integer(field, v, what);
  }

  status(what: string): number {
    const v = this.obj['status'];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
      this.fail(`${what} status must be a non-negative integer, got ${show(v)}`);
    }
    return v;
  }

  optionalString(field: string, what: string): string | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    return this.fail(`${what} ${field} must be a string, got ${show(v)}`);
  }

  optionalBoolean(field: string, what: string): boolean | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    return this.fail(`${what} ${field} must be true or false, got ${show(v)}`);
  }
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A JSON value in an error message, briefly. Arrays and objects are named, not serialised:
 * they may be nested deeper than `JSON.stringify` can recurse.
 */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'string') return clip(JSON.stringify(value.slice(0, 60)));
  return clip(String(value));
}

const WHITE = /\s/;

/**
 * The deepest nesting of arrays and objects a trace line may have: 131,072 levels. `JSON.parse`
 * builds every level, about a hundred bytes each outside the line's own characters (a line of 33
 * million nested arrays, 66 MB, took 3.28 GB); a deeper line is bad input. A line shorter than
 * the bound cannot reach it, so only longer lines are scanned.
 */
export const MAX_NESTING = 131_072;

/** `true` when `text` opens more than `max` arrays or objects at once (outside strings). */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** `true` for a line with nothing but whitespace: such lines are skipped. */
export function isBlank(text: string): boolean {
  return !/\S/.test(text);
}

/**
 * Parses one line of a v1 trace. Returns `null` for a blank line. Throws a
 * {@link TraceInputError} for bad input. With `readTime`, a `t` field is read too (it must be
 * a finite number of milliseconds) and returned on the line; without it `t` is ignored.
 */
export function parseTraceLine(
  text: string,
  line: number,
  idPattern?: IdPattern,
  readTime = false,
): TimedTraceLine | null {
  // Most lines of a long stream are events and keepalives written by JSON.stringify: they are
  // recognized without JSON.parse (./common-lines.ts). Time stamps are read only on the full path.
  if (!readTime) {
    const common = parseCommonLine(text);
    if (common !== null) return common;
  }
  return parseTraceLineViaJson(text, line, idPattern, readTime);
}

/**
 * {@link parseTraceLine} without the fast path for common lines: every line through
 * `JSON.parse`. The fast path must agree with it on every line it takes.
 */
export function parseTraceLineViaJson(
  text: string,
  line: number,
  idPattern?: IdPattern,
  readTime = false,
): TimedTraceLine | null {
  const obj = parseJsonLine(text, line);
  return obj === null ? null : parseTraceObject(obj, line, idPattern, readTime);
}

/**
 * The JSON object of one trace line (a byte-order mark on line 1 ignored), `null` for a blank
 * line. Throws a {@link TraceInputError} for invalid JSON or a value that is not an object.
 */
export function parseJsonLine(text: string, line: number): Record<string, unknown> | null {
  const src = line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // A blank line is told before JSON.parse: parsing it throws, and a throw costs microseconds
  // (a trace of 100 MB of newlines took minutes). Only a line that starts with white space can be.
  if (src.length === 0 || (WHITE.test(src[0]!) && isBlank(src))) return null;
  if (src.length > MAX_NESTING && nestedDeeperThan(src, MAX_NESTING)) {
    throw new TraceInputError(
      line,
      `JSON nested deeper than ${MAX_NESTING} levels: check refuses it rather than build it (each level costs memory outside what the line itself takes)`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(src);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new TraceInputError(line, `invalid JSON (${clip(oneLine(why))})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TraceInputError(line, `a trace line must be a JSON object, got ${show(value)}`);
  }
  return value as Record<string, unknown>;
}

/** {@link parseTraceLine} on a line's object, already read by {@link parseJsonLine}. */
export function parseTraceObject(
  obj: Record<string, unknown>,
  line: number,
  idPattern?: IdPattern,
  readTime = false,
): TimedTraceLine {
  const parsed = parseObject(new Reader(line, obj, idPattern));
  return readTime ? withTime(parsed, obj, line) : parsed;
}

/** `line` with the `t` of its object, when there is one (a finite number of ms, else bad input). */
export function withTime<L extends object>(
  parsed: L,
  obj: Record<string, unknown>,
  line: number,
): L & { t?: number } {
  const t = obj['t'];
  if (t === undefined || t === null) return parsed;
  if (typeof t !== 'number' || !Number.isFinite(t)) {
    throw new TraceInputError(line, `t must be a number of milliseconds, got ${show(t)}`);
  }
  return { ...parsed, t };
}

/**
 * The stream of an event or a reconnect: its `stream` field, else the id's `stream` group. An
 * empty name is no name, as an empty id or cursor is none: `"stream": ""` means what an absent
 * `stream` means.
 */
function streamOf(field: string | undefined, fromId: string | undefined): string | undefined {
  return field || fromId || undefined;
}

function parseObject(r: Reader): TraceLine {
  const type = r.obj['type'];
  switch (type) {
    case 'open': {
      const status = r.obj['status'] === undefined ? 200 : r.status('open');
      const epoch = r.optionalString('epoch', 'open');
      return epoch === undefined ? { type, status } : { type, status, epoch };
    }
    case 'event': {
      const raw = r.obj['id'];
      if (raw === undefined || raw === null || raw === '') return { type };
      const { seq, stream: patternStream } = r.seqNumber('id', raw, 'event');
      const stream = streamOf(r.optionalString('stream', 'event'), patternStream);
      const base = stream === undefined ? { type, id: seq } : { type, id: seq, stream };
      // `"response": true`: the event carries the call's JSON-RPC response (check --strict).
      return r.optionalBoolean('response', 'event') === true ? { ...base, response: true } : base;
    }
    case 'keepalive':
    case 'idle-timeout':
    case 'disconnect':
    case 'end':
      return { type };
    case 'reconnect': {
      if (!('cursor' in r.obj)) {
        r.fail(
          'reconnect has no cursor (use "cursor": null for a reconnect without Last-Event-ID)',
        );
      }
      const raw = r.obj['cursor'];
      if (raw === null || raw === '') return { type, cursor: null };
      const { seq, stream: patternStream } = r.seqNumber('cursor', raw, 'reconnect');
      const stream = streamOf(r.optionalString('stream', 'reconnect'), patternStream);
      return stream === undefined ? { type, cursor: seq } : { type, cursor: seq, stream };
    }
    case 'response': {
      const out: TraceLine & { type: 'response' } = { type, status: r.status('response') };
      const floor = r.optionalInteger('floor', 'response');
      if (floor !== undefined) out.floor = floor;
      // `head`: the highest id the server states it has written (docs/spec.md#caught-up).
      const head = r.optionalInteger('head', 'response');
      if (head !== undefined) out.head = head;
      const epoch = r.optionalString('epoch', 'response');
      if (epoch !== undefined) out.epoch = epoch;
      const durable = r.optionalBoolean('durable', 'response');
      if (durable !== undefined) out.durable = durable;
      return out;
    }
    case 'decision': {
      const outcome = r.obj['outcome'];
      if (typeof outcome !== 'string' || !OUTCOME_SET.has(outcome)) {
        r.fail(
          `unknown decision outcome ${show(outcome)} (expected one of ${OUTCOMES.join(', ')})`,
        );
      }
      return { type, outcome: outcome as Outcome };
    }
    default:
      // The binding line is read by the checker, and only as a trace's first line.
      if (type === 'binding') r.fail('a binding line must be the first line of the trace');
      return r.fail(
        type === undefined
          ? `a trace line needs a "type" (one of ${TRACE_LINE_TYPES.join(', ')})`
          : `unknown type ${show(type)} (expected one of ${TRACE_LINE_TYPES.join(', ')})`,
      );
  }
}
