/**
 * An SSE block with an `id:` line and no `data:` line sets the stream's last event id (WHATWG
 * HTML, "dispatch the event": the id is set before the empty-data check), but eventsource-parser
 * 3, which the guard and both SDK clients read SSE with, drops it whole. The project reads such
 * a block as an event with that id and no data, exactly like a priming event (docs/runtime.md),
 * so the guard rewrites it into one (`data:` added) before the parser sees it: the machine
 * judges the id, and the client's cursor moves as a browser's would.
 *
 * This is line splitting only (CR, LF, CRLF, even split across chunks); fields are still parsed
 * by eventsource-parser.
 */

/** The line `input[from, to)` is the field `name` (`name` alone, or `name:` and a value). */
function isField(input: string, from: number, to: number, name: string): boolean {
  const end = from + name.length;
  return (
    end <= to && input.startsWith(name, from) && (end === to || input.charCodeAt(end) === 0x3a)
  );
}

/** `input[from, to)` holds a NUL. */
function hasNul(input: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (input.charCodeAt(i) === 0) return true;
  return false;
}

/**
 * A streaming rewriter: feed it the decoded text in order; it returns the text to hand to the
 * parser. `maxLineBytes` bounds a line held back while it has no terminator yet.
 */
export function idOnlyBlocksAsPriming(maxLineBytes: number): (text: string) => string {
  let carry = '';
  let first = true;
  let hasId = false;
  let hasData = false;
  return (text) => {
    let input = carry + text;
    if (first && input.length > 0) {
      first = false;
      if (input.charCodeAt(0) === 0xfeff) input = input.slice(1);
    }
    // The text goes out as it came, cut only where a `data:` line is added: the lines are
    // scanned in place (this runs on every byte of every guarded stream).
    let out = '';
    let copied = 0;
    let at = 0;
    let lf = input.indexOf('\n');
    let cr = input.indexOf('\r');
    for (;;) {
      if (lf >= 0 && lf < at) lf = input.indexOf('\n', at);
      if (cr >= 0 && cr < at) cr = input.indexOf('\r', at);
      // The line ends at the first CR or LF; a CRLF is one terminator.
      let end: number;
      let next: number;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
        if (cr === input.length - 1) break;
        end = cr;
        next = input.charCodeAt(cr + 1) === 0x0a ? cr + 2 : cr + 1;
      } else if (lf >= 0) {
        end = lf;
        next = lf + 1;
      } else break;
      if (end === at) {
        if (hasId && !hasData) {
          out += input.slice(copied, at) + 'data:\n';
          copied = at;
        }
        hasId = hasData = false;
      } else if (isField(input, at, end, 'id')) {
        if (!hasNul(input, at, end)) hasId = true; // the parser ignores an id with a NUL
      } else if (isField(input, at, end, 'data')) hasData = true;
      at = next;
    }
    out += input.slice(copied, at);
    carry = input.slice(at);
    if (carry.length > maxLineBytes) {
      throw new Error(`SSE event larger than ${maxLineBytes} bytes`);
    }
    return out;
  };
}
