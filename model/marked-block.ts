/**
 * Generated blocks in the docs: a block sits between a begin and an end marker line, and a
 * command rewrites what is between them while a test compares it with what the code generates.
 */

/** A generated block's markers and its content (markers included). */
export interface MarkedBlock {
  begin: string;
  end: string;
  /** The whole block, from the begin marker to the end marker inclusive. */
  text: string;
}

/** The block between `begin` and `end` in `doc` (markers included), or `null` if absent. */
export function findBlock(doc: string, begin: string, end: string): string | null {
  const start = doc.indexOf(begin);
  const stop = doc.indexOf(end, start);
  if (start < 0 || stop < start) return null;
  return doc.slice(start, stop + end.length);
}

/** `doc` with `block` in place of the block between its markers, or `null` if absent. */
export function replaceBlock(doc: string, block: MarkedBlock): string | null {
  const old = findBlock(doc, block.begin, block.end);
  if (old === null) return null;
  const start = doc.indexOf(old);
  return doc.slice(0, start) + block.text + doc.slice(start + old.length);
}
