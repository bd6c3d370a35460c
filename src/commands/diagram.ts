/**
 * `mcp-resumption diagram`: the machine's Mermaid state diagrams (full or simplified) and the
 * seed's incidents as sequence diagrams, printed or written in place into the docs.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { clientMachine } from '../../model/client-machine.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import {
  DIAGRAM_BEGIN,
  DIAGRAM_END,
  diagramBlock,
  mermaidDiagram,
  SIMPLE_BEGIN,
  SIMPLE_END,
  simpleDiagramBlock,
} from '../diagram.js';
import { incidentBlock, scenarioDiagram } from '../incident-diagrams.js';
import { replaceBlock, type MarkedBlock } from '../marked-block.js';
import { simpleDiagram } from '../simple-diagram.js';
import { parseCommandArgs, UsageError, type Command } from '../cli-kit.js';
import { subjectOf, CLIENT_NAMES } from '../world-string.js';

/** Every generated block `--write` knows, in the order it fills them. */
function blocks(): MarkedBlock[] {
  return [
    { begin: SIMPLE_BEGIN, end: SIMPLE_END, text: simpleDiagramBlock(clientMachine) },
    { begin: DIAGRAM_BEGIN, end: DIAGRAM_END, text: diagramBlock(clientMachine) },
    incidentBlock(),
  ];
}

/** The `diagram` subcommand. */
export const diagramCommand: Command = {
  name: 'diagram',
  summary:
    'print the Mermaid diagrams of the machine and the incidents, or --write them into a file',
  help: `Usage: mcp-resumption diagram [--simple | --scenario NAME [--client NAME]] [--write FILE]

Without options, prints the Mermaid stateDiagram-v2 generated from the client machine, an edge
per transition.
--simple          the simplified state diagram: the happy path and the decision fan-out, the
                  repeated edges folded into a note
--scenario NAME   the seed's incident NAME as a Mermaid sequence diagram (client, server, event
                  log) from the simulated world: ${SEED_SCENARIOS.map((s) => s.name).join(', ')}
--client NAME     with --scenario, run this client instead of the model's:
                  ${CLIENT_NAMES.slice(0, 5).join(', ')},
                  ${CLIENT_NAMES.slice(5).join(', ')}
--write FILE      replaces every generated block FILE has (between its markers): the simplified
                  and the full state diagram (docs/model.md), the incident diagrams
                  (docs/incident.md)`,
  async run(argv, io) {
    const { values } = parseCommandArgs('diagram', argv, {
      write: { type: 'string' },
      simple: { type: 'boolean' },
      scenario: { type: 'string' },
      client: { type: 'string' },
    });
    const file = values.write as string | undefined;
    const name = values.scenario as string | undefined;
    const client = (values.client as string | undefined) ?? 'model';
    if (!CLIENT_NAMES.includes(client))
      throw new UsageError(`--client must be one of ${CLIENT_NAMES.join(', ')}`);
    if (file === undefined) {
      if (name !== undefined) {
        const s = SEED_SCENARIOS.find((x) => x.name === name);
        if (!s)
          throw new UsageError(
            `--scenario must be one of ${SEED_SCENARIOS.map((x) => x.name).join(', ')}`,
          );
        io.out(scenarioDiagram(s, subjectOf({ client })) + '\n');
      } else if (values.simple === true) io.out(simpleDiagram(clientMachine) + '\n');
      else io.out(mermaidDiagram(clientMachine) + '\n');
      return 0;
    }
    let doc: string;
    try {
      doc = await readFile(file, 'utf8');
    } catch {
      throw new UsageError(`diagram: cannot read ${file}`);
    }
    let written = 0;
    for (const block of blocks()) {
      const next = replaceBlock(doc, block);
      if (next === null) continue;
      doc = next;
      written++;
    }
    if (written === 0) throw new UsageError(`diagram: ${file} has no generated diagram markers`);
    try {
      await writeFile(file, doc);
    } catch (e) {
      throw new UsageError(`diagram: ${file}: ${(e as Error).message}`);
    }
    io.out(`${written} diagram block(s) written to ${file}\n`);
    return 0;
  },
};
