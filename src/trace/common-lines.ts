/**
 * A fast path for the two commonest kinds of trace line: an event with a plain integer id, and
 * a line that carries nothing but its type (keepalive, idle-timeout, disconnect, end). In a
 * long-running stream they are nearly every line, and `JSON.parse` of each, which builds an
 * object the checker then reads two fields of, costs more than everything else `check` does.
 *
 * The fast path is a recognizer, not a parser: a line is taken only when it matches a strict
 * subset of JSON written the way `JSON.stringify` writes it (no whitespace, no escapes, no
 * fractions or exponents, `"type"` first, nested values at most one flat object deep), and
 * when no key that the line's kind reads appears twice (a duplicate key is the last one in
 * `JSON.parse`; the pattern refuses it instead of choosing). Every such line is valid JSON and
 * yields exactly what {@link parseTraceLine} yields through `JSON.parse`; any other line returns
 * `null` and takes the full path, which names the problem when there is one.
 * properties/trace/common-lines.property.test.ts holds the two paths equal on generated lines,
 * and kills a pattern that lets a duplicate `id` through.
 */
import type { TraceLine } from './line.js';

/** A JSON integer as `JSON.stringify` writes it: no leading zero, no fraction, no exponent. */
const INT = '-?(?:0|[1-9]\\d{0,15})';
/** A JSON string with no escape and no character outside `[A-Za-z0-9_.:-]`. */
const STR = '"[\\w.:-]*"';
const SCALAR = `(?:${INT}|${STR}|true|false|null)`;
/** A flat object of scalars (`"data":{"done":1}`); deeper nesting takes the full path. */
const FLAT = `\\{(?:"\\w+":${SCALAR}(?:,"\\w+":${SCALAR})*)?\\}`;
/** Further members: any key but those the line's kind reads, each with a scalar or flat value. */
const rest = (read: string) => `(?:,"(?!(?:${read})")\\w+":(?:${SCALAR}|${FLAT}))*`;

/** `{"type":"event","id":N,...}` with N a non-negative integer below 10^15 (a safe integer). */
export const EVENT_LINE = new RegExp(
  `^\\{"type":"event","id":(0|[1-9]\\d{0,14})${rest('type|id|stream|response')}\\}$`,
);

/** `{"type":"keepalive",...}` and the other kinds that carry nothing but their type. */
export const BARE_LINE = new RegExp(
  `^\\{"type":"(keepalive|idle-timeout|disconnect|end)"${rest('type')}\\}$`,
);

/**
 * The parsed line when `text` is a common line in the form above, else `null` (take the full
 * path). Never throws: a line it takes is valid by construction. `t` is not read: the caller
 * uses the fast path only when time stamps are ignored.
 */
export function parseCommonLine(
  text: string,
  event: RegExp = EVENT_LINE,
  bare: RegExp = BARE_LINE,
): TraceLine | null {
  // One character decides which pattern can match: `{"type":"e` (event or end) or another.
  if (text.charCodeAt(9) === 101 /* e */ && text.charCodeAt(10) === 118 /* v */) {
    const m = event.exec(text);
    return m === null ? null : { type: 'event', id: Number(m[1]) };
  }
  const m = bare.exec(text);
  return m === null ? null : { type: m[1] as 'keepalive' | 'idle-timeout' | 'disconnect' | 'end' };
}
