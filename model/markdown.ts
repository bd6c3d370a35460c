/**
 * A Markdown table aligned the way Prettier aligns it, so that a generated block in the docs
 * passes `prettier --check` unchanged and a test can compare it character for character.
 */

/** The table: `right[i]` aligns column i to the right (its rule ends with `:`). */
export function alignedTable(
  head: readonly string[],
  body: readonly (readonly string[])[],
  right: readonly boolean[] = [],
): string {
  const widths = head.map((h, i) => Math.max(3, h.length, ...body.map((b) => b[i]!.length)));
  const cell = (text: string, i: number) =>
    right[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (right[i] ? '-'.repeat(w - 1) + ':' : '-'.repeat(w))).join(' | ')} |`;
  return [line(head), rule, ...body.map(line)].join('\n');
}
