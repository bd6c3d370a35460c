/**
 * `mcp-resumption diagram`: the machine's Mermaid state diagrams (full or simplified) and the
 * seed's incidents as sequence diagrams, printed or written in place into the docs.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { clientMachine } from '../../model/client-machine.js';
import { SEED_SCENARIOS } from '../../model/world/scenarios.js';
import { mermaidDiagram } from '../docs-gen/diagram.js';
import { scenarioDiagram } from '../docs-gen/incident-diagrams.js';
import { replaceGeneratedBlocks } from '../docs-gen/blocks.js';
import { simpleDiagram } from '../docs-gen/simple-diagram.js';
import { parseCommandArgs, UsageError, type Command } from './cli-kit.js';
import { subjectOf, CLIENT_NAMES } from '../explore/world-string.js';
import { BINDING_NAMES, bindingNamed } from '../../model/bindings/index.js';
import { streamTraceDiagram } from '../docs-gen/trace-diagram-stream.js';
import { TraceInputError } from '../trace/format.js';
import { corpusFallback } from '../docs-gen/corpus-path.js';

/** The `diagram` subcommand. */
/**
 * The largest trace `diagram --trace` draws (64 MiB): beyond it, one line says so (exit 2). The
 * diagram is streamed either way; the bound is for the reader (a diagram of a larger trace has
 * hundreds of thousands of arrows) and for the notes the first pass keeps.
 */
export const MAX_TRACE_BYTES = 64 * 2 ** 20;

export const diagramCommand: Command = {
  name: 'diagram',
  summary:
    'print the Mermaid diagrams of the machine and the incidents, or --write them into a file',
  help: `Usage: mcp-resumption diagram [--simple | --scenario NAME [--client NAME]] [--write FILE]
       mcp-resumption diagram --trace FILE [--binding mcp-sse|mcp-tasks]

Without options, prints the Mermaid stateDiagram-v2 generated from the client machine, an edge
per transition.
--simple          the simplified state diagram: the happy path and the decision fan-out, the
                  repeated edges folded into a note
--scenario NAME   the seed's incident NAME as a Mermaid sequence diagram (client, server, event
                  log) from the simulated world: ${SEED_SCENARIOS.map((s) => s.name).join(', ')}
--client NAME     with --scenario, run this client instead of the model's:
                  ${CLIENT_NAMES.slice(0, 5).join(', ')},
                  ${CLIENT_NAMES.slice(5).join(', ')}
--trace FILE      a recorded trace (the format \`check\` reads, any binding) as a Mermaid
                  sequence diagram between client and server, with the oracle's decision on
                  each reconnect as a note; bad input is reported as \`check\` reports it
                  (one line, exit 2); streamed, at most 64 MiB of trace (larger: one line,
                  exit 2)
--binding NAME    with --trace: ${BINDING_NAMES.join(' or ')}, as \`check --binding\`
--write FILE      replaces every generated block FILE has (between its markers): the simplified
                  and the full state diagram (docs/model.md), the incident diagrams
                  (docs/incident.md), one sequence diagram per binding (docs/primer.md)`,
  async run(argv, io) {
    const { values } = parseCommandArgs('diagram', argv, {
      write: { type: 'string' },
      simple: { type: 'boolean' },
      scenario: { type: 'string' },
      client: { type: 'string' },
      trace: { type: 'string' },
      binding: { type: 'string' },
    });
    const trace = values.trace as string | undefined;
    const binding = values.binding as string | undefined;
    if (binding !== undefined && trace === undefined)
      throw new UsageError('diagram: --binding goes with --trace');
    if (trace !== undefined) {
      if (values.write !== undefined || values.scenario !== undefined || values.simple === true)
        throw new UsageError('diagram: --trace goes alone (with --binding at most)');
      if (binding !== undefined && bindingNamed(binding) === undefined)
        throw new UsageError(
          `diagram: unknown --binding ${JSON.stringify(binding)} (expected one of ${BINDING_NAMES.join(', ')})`,
        );
      const source = corpusFallback(trace);
      let size: number;
      try {
        size = (await stat(source)).size;
      } catch {
        throw new UsageError(`diagram: cannot read ${trace}`);
      }
      if (size > MAX_TRACE_BYTES) {
        throw new UsageError(
          `diagram: ${trace} is ${(size / 2 ** 20).toFixed(1)} MiB; --trace draws traces of at most ` +
            `${MAX_TRACE_BYTES / 2 ** 20} MiB (a diagram of a larger one has too many arrows to read): ` +
            `judge it with check, or draw a part of it`,
        );
      }
      try {
        // Streamed: the trace is read twice, line by line, and never held whole.
        await streamTraceDiagram(source, binding === undefined ? {} : { binding }, io.out);
      } catch (e) {
        if (e instanceof TraceInputError) throw new UsageError(`diagram: ${trace}: ${e.message}`);
        if (typeof (e as NodeJS.ErrnoException | null)?.code === 'string') {
          throw new UsageError(`diagram: cannot read ${trace}`);
        }
        throw e;
      }
      return 0;
    }
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
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw new UsageError(`diagram: cannot read ${file}`);
    }
    const { doc, written } = await replaceGeneratedBlocks(text);
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
