/**
 * The generated blocks of docs/model.md (its rules, from model/rules.ts, and its diagrams), docs/incident.md and docs/primer.md, and their
 * replacement in a page: what `node dist/src/docs-gen/main.js blocks FILE` (./main.ts) and
 * `mcp-resumption diagram --write FILE` write.
 */
import { clientMachine } from '../../model/client-machine.js';
import { replaceBlock, type MarkedBlock } from '../../model/marked-block.js';
import {
  DIAGRAM_BEGIN,
  DIAGRAM_END,
  diagramBlock,
  SIMPLE_BEGIN,
  SIMPLE_END,
  simpleDiagramBlock,
} from './diagram.js';
import { RULES_BEGIN, RULES_END, rulesBlock } from '../../model/rules.js';
import { incidentBlock } from './incident-diagrams.js';
import { primerBlock } from './primer-diagrams.js';

/** Every generated block `blocks` (and `diagram --write`) knows, in the order it fills them. */
export async function generatedBlocks(): Promise<MarkedBlock[]> {
  return [
    { begin: RULES_BEGIN, end: RULES_END, text: rulesBlock() },
    { begin: SIMPLE_BEGIN, end: SIMPLE_END, text: simpleDiagramBlock(clientMachine) },
    { begin: DIAGRAM_BEGIN, end: DIAGRAM_END, text: diagramBlock(clientMachine) },
    incidentBlock(),
    await primerBlock(),
  ];
}

/** `doc` with every generated block it has replaced, and how many it had. */
export async function replaceGeneratedBlocks(
  doc: string,
): Promise<{ doc: string; written: number }> {
  let written = 0;
  for (const block of await generatedBlocks()) {
    const next = replaceBlock(doc, block);
    if (next === null) continue;
    doc = next;
    written++;
  }
  return { doc, written };
}
