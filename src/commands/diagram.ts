/** `mcp-resumption diagram`: the machine's Mermaid state diagram, printed or written in place. */
import { readFile, writeFile } from 'node:fs/promises';
import { clientMachine } from '../../model/client-machine.js';
import { mermaidDiagram, replaceDiagramBlock } from '../diagram.js';
import { parseCommandArgs, UsageError, type Command } from '../cli-kit.js';

/** The `diagram` subcommand. */
export const diagramCommand: Command = {
  name: 'diagram',
  summary: 'print the Mermaid state diagram of the machine, or --write it into a Markdown file',
  help: `Usage: mcp-resumption diagram [--write FILE]

Without options, prints the Mermaid stateDiagram-v2 generated from the client machine.
--write FILE  replaces the generated block (between the diagram markers) in FILE.`,
  async run(argv, io) {
    const { values } = parseCommandArgs('diagram', argv, { write: { type: 'string' } });
    const file = values.write as string | undefined;
    if (file === undefined) {
      io.out(mermaidDiagram(clientMachine) + '\n');
      return 0;
    }
    let doc: string;
    try {
      doc = await readFile(file, 'utf8');
    } catch {
      throw new UsageError(`diagram: cannot read ${file}`);
    }
    try {
      await writeFile(file, replaceDiagramBlock(doc, clientMachine));
    } catch (e) {
      throw new UsageError(`diagram: ${file}: ${(e as Error).message}`);
    }
    io.out(`diagram written to ${file}\n`);
    return 0;
  },
};
