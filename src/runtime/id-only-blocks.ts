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

/** A line's field name, as the parser reads it (`id`, `data`, ...; `''` for a comment). */
function fieldOf(line: string): string {
  const colon = line.indexOf(':');
  return colon < 0 ? line : line.slice(0, colon);
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
    let out = '';
    let at = 0;
    const terminator = /\r\n|\r|\n/g;
    for (let m = terminator.exec(input); m !== null; m = terminator.exec(input)) {
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (m[0] === '\r' && m.index === input.length - 1) break;
      const line = input.slice(at, m.index);
      if (line === '') {
        if (hasId && !hasData) out += 'data:\n';
        hasId = hasData = false;
      } else {
        const field = fieldOf(line);
        if (field === 'id' && !line.includes('\0'))
          hasId = true; // the parser ignores such an id
        else if (field === 'data') hasData = true;
      }
      out += input.slice(at, terminator.lastIndex);
      at = terminator.lastIndex;
    }
    carry = input.slice(at);
    if (carry.length > maxLineBytes) {
      throw new Error(`SSE event larger than ${maxLineBytes} bytes`);
    }
    return out;
  };
}
