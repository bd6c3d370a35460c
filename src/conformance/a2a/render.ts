/**
 * The A2A cells as text and Markdown: the matrix row × scenario (each cell the checker's verdict
 * beside the ground truth), then every cell with what supports it. The Markdown is the
 * generated block `conformance-a2a` of docs/conformance-cells.md (`npm run conformance:docs:a2a`).
 */
import { packageVersion } from '../versions.js';
import type { A2aCell, A2aOracle } from './cells.js';
import { A2A_ROWS } from './cells.js';
import { A2A_SCENARIOS } from './scenarios.js';

/** The ground truth's word for a cell, with the events it names (`loss e6`). */
export function truthWord(c: A2aCell): string {
  const t = c.truth;
  if (t.truth === 'error') return 'error';
  const ks = (xs: number[]) => xs.map((k) => `e${k}`).join(',');
  if (t.truth === 'loss') return `loss ${ks(t.lost)}`;
  if (t.truth === 'duplicate') return `duplicate ${ks(t.duplicated)}`;
  if (t.truth === 'loss+duplicate') return `loss ${ks(t.lost)}, duplicate ${ks(t.duplicated)}`;
  return t.truth;
}

function oracleText(o: A2aOracle | null): string {
  if (o === null) return 'not judged';
  const rule = o.rule === null ? '' : ` (rule ${o.rule}${o.code ? `, ${o.code}` : ''})`;
  const breaks = o.breaks.length > 0 ? `; then a break: ${o.breaks.join('; ')}` : '';
  return `${o.outcome}${rule}${breaks}`;
}

const verdictWord = (c: A2aCell) => c.verdict?.outcome ?? 'error';

/** The rows' descriptions (the Markdown's list). */
function rowLines(): string[] {
  return A2A_ROWS.map((r) =>
    r.latency
      ? `- \`${r.name}\`: the SDK's \`InMemoryTaskStore\` behind latency: every write lands ${r.latency.writeMs} ms after it was issued, every resubscribe's snapshot read ${r.latency.readMs} ms after it began, and a scenario's window is placed by events (a write in flight across the resubscribe's read; a read across a later event's write)`
      : `- \`${r.name}\`: the SDK's \`InMemoryTaskStore\` as it is`,
  );
}

/** The Markdown block: the matrix, then every cell. */
export function renderA2aMarkdown(cells: readonly A2aCell[], date = new Date()): string {
  const scenarios = A2A_SCENARIOS.filter((s) => cells.some((c) => c.scenario === s.name));
  const rows = A2A_ROWS.filter((r) => cells.some((c) => c.row === r.name));
  const out: string[] = [];
  out.push(
    `Run of ${date.toISOString().slice(0, 10)} (${date.toISOString()}). Versions: \`@a2a-js/sdk\` ${packageVersion('@a2a-js/sdk')}, \`express\` ${packageVersion('express')}, \`node\` ${process.version}. Loopback 127.0.0.1; the kit's client speaks JSON-RPC (\`A2A-Version: 1.0\`).`,
  );
  out.push('', ...rowLines(), '');
  out.push(
    "Each cell: the checker's verdict on the resubscribe (`a2a` binding, era 1.0) · the ground truth (what the agent emitted against what the client received).",
    '',
  );
  out.push(`| row | ${scenarios.map((s) => s.name).join(' | ')} |`);
  out.push(`| --- | ${scenarios.map(() => '---').join(' | ')} |`);
  for (const r of rows) {
    const line = scenarios.map((s) => {
      const c = cells.find((x) => x.row === r.name && x.scenario === s.name);
      return c ? `${verdictWord(c)} · ${truthWord(c)}` : 'not run';
    });
    out.push(`| ${r.name} | ${line.join(' | ')} |`);
  }
  out.push('', '#### Every A2A cell', '');
  for (const c of cells) {
    const placement = c.placement ? ` Placement: ${c.placement}.` : '';
    out.push(
      `- **${c.row} × ${c.scenario}**: ${truthWord(c)}: ${c.truth.text}.${placement} Checker (1.0): ${oracleText(c.verdict)}${c.verdict ? `: ${c.verdict.reason}` : ''}. dev-1.1 reading: ${oracleText(c.dev11)}.`,
    );
  }
  return out.join('\n');
}

/** The plain-text report of a run. */
export function renderA2aText(cells: readonly A2aCell[]): string {
  const lines = cells.map(
    (c) =>
      `${c.row} × ${c.scenario}: ${verdictWord(c)} · ${truthWord(c)}\n  truth: ${c.truth.text}${c.placement ? `\n  placement: ${c.placement}` : ''}\n  checker (1.0): ${oracleText(c.verdict)}${c.verdict ? `: ${c.verdict.reason}` : ''}\n  dev-1.1 reading: ${oracleText(c.dev11)}`,
  );
  return lines.join('\n');
}
