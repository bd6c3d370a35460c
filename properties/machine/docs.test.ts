/** Generated docs stay in step with the machine; the CLI's main job prints what it promises. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import {
  DIAGRAM_BEGIN,
  DIAGRAM_END,
  diagramBlock,
  SIMPLE_BEGIN,
  SIMPLE_END,
  simpleDiagramBlock,
} from '../../src/docs-gen/diagram.js';
import { findBlock } from '../../model/marked-block.js';
import { runCli } from '../support/cli.js';

describe('docs/model.md', () => {
  it('holds the diagram generated from the machine (npm run docs:diagram)', async () => {
    const doc = await readFile(new URL('../../docs/model.md', import.meta.url), 'utf8');
    const start = doc.indexOf(DIAGRAM_BEGIN);
    const end = doc.indexOf(DIAGRAM_END);
    expect(start, 'diagram markers missing').toBeGreaterThanOrEqual(0);
    const committed = doc.slice(start, end + DIAGRAM_END.length);
    expect(committed, 'docs/model.md is stale: run `npm run docs:diagram`').toBe(
      diagramBlock(clientMachine),
    );
  });
});

describe('docs/model.md, the simplified diagram', () => {
  it('holds the simplified diagram generated from the machine (npm run docs:diagram)', async () => {
    const doc = await readFile(new URL('../../docs/model.md', import.meta.url), 'utf8');
    const committed = findBlock(doc, SIMPLE_BEGIN, SIMPLE_END);
    expect(committed, 'simple-diagram markers missing').not.toBeNull();
    expect(committed, 'docs/model.md is stale: run `npm run docs:diagram`').toBe(
      simpleDiagramBlock(clientMachine),
    );
    // The check has teeth: a machine that differs in one transition gives another block.
    const mutant = MACHINE_MUTANTS.find((m) => m.name === 'keepalive-is-proof')!.machine;
    expect(simpleDiagramBlock(mutant)).not.toBe(committed);
  });

  it('comes before the full diagram', async () => {
    const doc = await readFile(new URL('../../docs/model.md', import.meta.url), 'utf8');
    expect(doc.indexOf(SIMPLE_END)).toBeLessThan(doc.indexOf(DIAGRAM_BEGIN));
  });
});

describe('mcp-resumption table', () => {
  it("prints the decision table and the seed's three variants classified", async () => {
    const { code, out } = await runCli(['table']);
    expect(code).toBe(0);
    expect(out).toContain('reconnecting      RESPONSE      sessionGone');
    expect(out).toMatch(
      /seven-minute-stall[\s\S]*-> resumption-failed: replay gap: expected event id 42, got 130/,
    );
    expect(out).toMatch(/restart-404[\s\S]*-> session-lost/);
    expect(out).toMatch(/restart-empty-200[\s\S]*-> resumption-failed: no event proved continuity/);
  });

  it('rejects unknown options with one line and exit 2', async () => {
    const { code, err } = await runCli(['table', '--bogus']);
    expect(code).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
  });

  it('rejects an unknown command with exit 2', async () => {
    const { code, err } = await runCli(['no-such-command']);
    expect(code).toBe(2);
    expect(err).toContain('unknown command');
  });
});
