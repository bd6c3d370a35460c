/**
 * `mcp-resumption table`: the decision table read off the machine, then the seed's three
 * observed variants walked through it.
 */
import { clientMachine } from '../../model/client-machine.js';
import { RULES, RULE_OF, SPEC_RULES } from '../../model/rules.js';
import { formatSeedVariants } from '../../model/seed-variants.js';
import { listTransitions } from '../../model/transitions.js';
import { parseCommandArgs, type Command } from './cli-kit.js';

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** The decision table and the seed variants, as text. */
export function renderTable(): string {
  const lines: string[] = [];
  lines.push('Decision boundary of the client machine (model/client-machine.ts)');
  lines.push('');
  lines.push(
    `Rules for one reconnect with cursor c, applied in this order (stated in ${SPEC_RULES}):`,
  );
  RULES.forEach((r, i) => lines.push(`  ${i}. ${r}`));
  lines.push('');
  lines.push('Transitions that decide (read off the machine definition):');
  lines.push(
    `  ${pad('state', 18)}${pad('on', 14)}${pad('guard', 22)}${pad('-> state', 20)}${pad('outcome', 19)}rule`,
  );
  for (const t of listTransitions(clientMachine)) {
    if (!t.decides) continue;
    const rule = RULE_OF[t.decides.code];
    lines.push(
      `  ${pad(t.source, 18)}${pad(t.event, 14)}${pad(t.guard ?? '(otherwise)', 22)}${pad(
        t.target ?? t.source,
        20,
      )}${pad(t.decides.outcome, 19)}${rule} (${t.decides.code})`,
    );
  }
  lines.push('');
  lines.push(formatSeedVariants());
  return lines.join('\n');
}

/** The `table` subcommand. */
export const tableCommand: Command = {
  name: 'table',
  summary: "print the machine's decision table and classify the founding incident's three variants",
  help: `Usage: mcp-resumption table

Prints the rules of the decision boundary, the transitions of the client machine that decide
an outcome (read off the machine definition), and the founding incident's three variants
classified by the machine.`,
  async run(argv, io) {
    parseCommandArgs('table', argv, {});
    io.out(renderTable() + '\n');
    return 0;
  },
};
