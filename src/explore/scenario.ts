/** The seed's incident scenarios, run and told as a timeline with every claim's verdict. */
import { CLAIMS } from '../../model/claims/index.js';
import { timelineLines, type CounterexampleOptions } from '../../model/world/counterexample.js';
import { formatWorldString, namesOf } from './world-string.js';
import { formatConfig } from '../../model/world/config.js';
import { describeCommand } from '../../model/world/commands.js';
import { runWorld, type Subject } from '../../model/world/property.js';
import { clientState } from '../../model/world/client.js';
import type { World } from '../../model/world/world.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';

/** The names of the fixed scenarios. */
export const SCENARIO_NAMES: readonly string[] = SEED_SCENARIOS.map((s) => s.name);

/**
 * The client's last decision in words: the timeline shows only the machine's state name, and a
 * reader wants the outcome (resumption-failed, session-lost, ...) and the rule's reason.
 */
function outcomeLine(w: World): string {
  const { outcome, reason } = w.client.snap.context;
  const how = w.client.done === 'complete' ? ', tool complete' : '';
  if (outcome === null) return `client outcome: none (ended in ${clientState(w.client)}${how})`;
  return `client outcome: ${outcome}${reason ? ` (${reason.code}: ${reason.text})` : ''}${how}`;
}

/**
 * Runs scenario `name` with `subject` and tells it (the timeline as `options` ask: full, brief
 * or a Mermaid diagram); `ok` is false when a claim broke.
 */
export function tellScenario(
  name: string,
  subject: Subject,
  subjectName: string,
  options: CounterexampleOptions = {},
): { text: string; ok: boolean } {
  const s = SEED_SCENARIOS.find((x) => x.name === name);
  if (!s) throw new Error(`no scenario ${name}`);
  const w = runWorld(s.cfg, s.commands, subject, { record: true });
  const lines = [
    `scenario ${s.name} with ${subjectName}: ${s.story}`,
    `config: ${formatConfig(s.cfg)}`,
    `commands: ${s.commands.length} (${[...new Set(s.commands.map(describeCommand))].join(', ')})`,
    ...timelineLines(w, s.commands, options),
    outcomeLine(w),
    'claims:',
  ];
  let ok = true;
  for (const c of CLAIMS) {
    const v = c.check(w);
    if (!v.ok) ok = false;
    lines.push(
      `  ${c.name.padEnd(22)} ${v.ok ? (v.applicable ? 'held' : 'n/a ') : 'BROKEN'}  ${v.ok && v.applicable ? '' : v.why}`,
    );
  }
  const spec = { cfg: s.cfg, commands: s.commands, ...namesOf(subject, s.cfg) };
  lines.push(`playground: ${formatWorldString(spec)}`);
  return { text: lines.join('\n'), ok };
}
