/**
 * An SSE block with an `id:` line and no `data:` line sets the stream's last event id (WHATWG
 * HTML, "dispatch the event": the id is set before the empty-data check), but eventsource-parser
 * 3, which the guard and both SDK clients read SSE with, drops it whole. The project reads such
 * a block as an event with that id and no data, exactly like a priming event (docs/runtime.md),
 * so the guard rewrites it into one (`data:` added) before the parser sees it: the machine
 * judges the id, and the client's cursor moves as a browser's would.
 *
 * This is line splitting only (CR, LF, CRLF, even split across chunks); fields are still parsed
 * by eventsource-parser. The bytes become text first ({@link ChunkText}).
 */
import { Buffer, isAscii } from 'node:buffer';

/**
 * The text of a stream of UTF-8 chunks, exactly as one `TextDecoder` (`stream: true`, a byte
 * order mark at the very start dropped) reads it. A chunk of ASCII bytes, while every chunk so
 * far was one, is read as Latin-1 (the same characters for bytes below 0x80) at about half the
 * decoder's cost, after a check that costs a hundredth of it: this runs on every byte of every
 * guarded stream, and MCP's JSON is almost always ASCII. From the first chunk that is not ASCII
 * on, the decoder reads everything: one that has not seen the stream begin is told to keep a
 * U+FEFF, which is then not at the start.
 */
export class ChunkText {
  private decoder: InstanceType<typeof TextDecoder> | null = null;
  /** Bytes read as ASCII so far: the stream has begun without the decoder. */
  private begun = false;

  /** The text of the next chunk. */
  push(bytes: Uint8Array): string {
    if (this.readsAscii(this.decoder === null) && isAscii(bytes)) {
      if (bytes.length > 0) this.begun = true;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    }
    this.decoder ??= new TextDecoder('utf-8', { ignoreBOM: this.keepsBom(this.begun) });
    return this.decoder.decode(bytes, { stream: true });
  }

  /**
   * Whether a chunk may be read as ASCII without the decoder: only while the decoder has not
   * begun (`undecoded`), since it may hold half a character.
   */
  protected readsAscii(undecoded: boolean): boolean {
    return undecoded;
  }

  /**
   * Whether the decoder, made now, keeps a U+FEFF at its start: when the stream has `begun`
   * without it, that U+FEFF is not at the stream's start, so it is no byte order mark.
   */
  protected keepsBom(begun: boolean): boolean {
    return begun;
  }

  /** The text the decoder still holds at the end (a character cut short: U+FFFD). */
  end(): string {
    return this.decoder === null ? '' : this.decoder.decode();
  }
}

/**
 * The line `input[from, to)`, whose first character was matched already, is the field of that
 * character and `rest` (`data` is `d` and `ata`): the name alone, or the name, `:` and a value.
 * Compared character by character: cheaper than `startsWith` on every line of every stream.
 * (`input[to]` is the line's CR or LF, which no name holds: a line shorter than the name fails
 * there, so no bound is checked.)
 */
function isNamed(input: string, from: number, to: number, rest: string): boolean {
  const end = from + 1 + rest.length;
  for (let i = 0; i < rest.length; i++) {
    if (input.charCodeAt(from + 1 + i) !== rest.charCodeAt(i)) return false;
  }
  return end === to || input.charCodeAt(end) === 0x3a;
}

/**
 * {@link isNamed} for `data` (`d` matched), its characters written out: the field of every
 * event, on every stream, where the loop over `rest` was a tenth of the line scan.
 */
function isData(input: string, from: number, to: number): boolean {
  if (input.charCodeAt(from + 1) !== 0x61 || input.charCodeAt(from + 2) !== 0x74) return false;
  if (input.charCodeAt(from + 3) !== 0x61) return false;
  return from + 4 === to || input.charCodeAt(from + 4) === 0x3a;
}

/** {@link isNamed} for `id` (`i` matched), written out like {@link isData}. */
function isId(input: string, from: number, to: number): boolean {
  if (input.charCodeAt(from + 1) !== 0x64) return false;
  return from + 2 === to || input.charCodeAt(from + 2) === 0x3a;
}

/** `input[from, to)` holds a NUL. */
function hasNul(input: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (input.charCodeAt(i) === 0) return true;
  return false;
}

/**
 * A streaming rewriter: feed it the decoded text in order ({@link SseLines.push}); it returns the
 * text to hand to the parser, complete lines only. `maxLineBytes` bounds a line held back while
 * it has no terminator yet.
 *
 * It also tells where the blocks end, for the guard to hand on the server's own text for the
 * blocks it accepted: after a push, {@link SseLines.boundary} is the end (in the text returned)
 * of the last block that eventsource-parser, fed that text, has seen whole (`-1`: none), and
 * {@link SseLines.tailCallbacks} says whether a comment or `retry:` line (which the parser
 * reports at once) came after it. The parser holds back a last line that ends in a lone CR
 * (it may be the first half of a CRLF), so a block ended by it is not counted until the next
 * push.
 */
export class SseLines {
  private carry = '';
  private first = true;
  /** The block so far has an id the parser takes (an `id` line without NUL). */
  private hasId = false;
  private hasData = false;
  /**
   * An `id` line of the block, in the latest text, not yet looked at for NUL (`-1`: none): the
   * look is needed only if the block ends without data, or the text ends first (the next push
   * has other text), so the common block (an id, then data) never scans its id line twice.
   */
  protected idFrom = -1;
  private idTo = 0;
  /** End of the last block the parser has seen whole, in the text of the latest push. */
  boundary = -1;
  /** A comment or `retry:` line came after {@link boundary} in the latest push. */
  tailCallbacks = false;
  /** A `retry:` line came in the latest push (valid or not: the guard writes retries anew). */
  retry = false;

  constructor(private readonly maxLineBytes: number) {}

  /** Looks at the pending `id` line of `input` for NUL: without one, the parser takes the id. */
  protected idLine(input: string): void {
    if (this.idFrom >= 0 && !hasNul(input, this.idFrom, this.idTo)) this.hasId = true;
    this.idFrom = -1;
  }

  push(text: string): string {
    let input = this.carry + text;
    if (this.first && input.length > 0) {
      this.first = false;
      if (input.charCodeAt(0) === 0xfeff) input = input.slice(1);
    }
    // The text goes out as it came, cut only where a `data:` line is added: the lines are
    // scanned in place (this runs on every byte of every guarded stream).
    let out = '';
    let copied = 0;
    let at = 0;
    let lf = input.indexOf('\n');
    let cr = input.indexOf('\r');
    // Block ends (the latest and the one before), and where the latest line and the latest
    // comment or retry line start, all in the coordinates of the text returned.
    let boundary = -1;
    let before = -1;
    let lineOut = 0;
    let callbackOut = -1;
    let loneCr = false;
    let retry = false;
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
        loneCr = next === cr + 1;
      } else if (lf >= 0) {
        end = lf;
        next = lf + 1;
        loneCr = false;
      } else break;
      lineOut = out.length + (at - copied);
      // (The field is told by its first character first: only `d`, `i`, `:` and `r` lines
      // matter, and most lines are `data` or `id`.)
      const c = end === at ? -1 : input.charCodeAt(at);
      if (c === -1) {
        if (!this.hasData) this.idLine(input);
        if (this.hasId && !this.hasData) {
          out += input.slice(copied, at) + 'data:\n';
          copied = at;
        }
        this.hasId = this.hasData = false;
        this.idFrom = -1;
        before = boundary;
        boundary = out.length + (next - copied);
      } else if (c === 0x64) {
        if (!this.hasData && isData(input, at, end)) this.hasData = true;
      } else if (c === 0x69) {
        // The parser ignores an id with a NUL: the look waits (see `idFrom`). An earlier id
        // line of the block is looked at first, and none once the block has an id or data.
        if (!this.hasId && !this.hasData && isId(input, at, end)) {
          this.idLine(input);
          this.idFrom = at;
          this.idTo = end;
        }
      } else if (c === 0x3a) callbackOut = out.length + (at - copied);
      else if (c === 0x72 && isNamed(input, at, end, 'etry')) {
        retry = true;
        callbackOut = out.length + (at - copied);
      }
      at = next;
    }
    this.textEnds(input);
    out += input.slice(copied, at);
    this.carry = input.slice(at);
    if (this.carry.length > this.maxLineBytes) {
      throw new Error(`SSE event larger than ${this.maxLineBytes} bytes`);
    }
    // The parser holds a last line that ends in a lone CR: a block it ends is not seen yet.
    if (loneCr && boundary > lineOut) boundary = before;
    this.boundary = boundary;
    this.retry = retry;
    this.tailCallbacks = callbackOut >= 0 && callbackOut >= boundary;
    return out;
  }

  /**
   * The text `input` ends inside a block, which goes on in the next text: its pending id line
   * is looked at while this text is here.
   */
  protected textEnds(input: string): void {
    this.idLine(input);
  }
}

/** {@link SseLines} as a function of the text: the text to hand to the parser. */
export function idOnlyBlocksAsPriming(maxLineBytes: number): (text: string) => string {
  const lines = new SseLines(maxLineBytes);
  return (text) => lines.push(text);
}
