/**
 * `mcp-resumption conformance --binding a2a`: the A2A scenarios (src/conformance/a2a/) against
 * `@a2a-js/sdk` servers in process, on loopback, with the SDK's in-memory task store and with
 * the same store behind latency. Each cell: the `a2a` checker's verdict on the resubscribe (era
 * 1.0) and the ground truth (emitted vs received). It needs the devDependencies (the SDK and
 * Express): run it in a clone. Exit 0; 1 when a cell could not run (`error`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { msOption, UsageError, type CommandIO, type ParsedArgs } from './cli-kit.js';
import { SSE_SERVER_OPTIONS } from './conformance-url.js';

/** The options of the MCP scenarios: refused under `--binding a2a`. */
const NOT_A2A = [
  'url',
  ...SSE_SERVER_OPTIONS,
  'client-cmd',
  'client-name',
  'client-timeout',
  'sdk-clients',
  'reference',
  'reference-mutant',
];

/** The generated block of docs/conformance-cells.md that `--write` replaces. */
export const A2A_BLOCK = 'conformance-a2a';

/** Runs the A2A rows as the parsed options say; resolves to the exit status. */
export async function runA2aConformance(values: ParsedArgs['values'], io: CommandIO) {
  for (const k of NOT_A2A) {
    if (values[k] !== undefined) {
      throw new UsageError(`conformance: --${k} is not an option of --binding a2a`);
    }
  }
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const timeoutMs = msOption('timeout', str('timeout'), 2000);
  if (timeoutMs === 0) throw new UsageError('conformance: --timeout must be positive');
  const cellsModule = await import('../conformance/a2a/cells.js').catch((e: unknown) => {
    throw new UsageError(
      `conformance: --binding a2a needs @a2a-js/sdk and express, which are not installed (${(e as Error).message.split('\n')[0]}); run it in a clone`,
    );
  });
  const { A2A_SCENARIOS } = await import('../conformance/a2a/scenarios.js');
  const names = A2A_SCENARIOS.map((s) => s.name);
  const only = str('only')?.split(',').filter(Boolean);
  const unknown = only?.find((n) => !names.includes(n));
  if (unknown !== undefined) {
    throw new UsageError(
      `conformance: unknown A2A scenario ${JSON.stringify(unknown)} (one of ${names.join(', ')})`,
    );
  }
  const file = str('write');
  let doc: string | undefined;
  if (file !== undefined) {
    doc = await readFile(file, 'utf8').catch(() => {
      throw new UsageError(`conformance: cannot read ${file}`);
    });
    if (!doc.includes(`<!-- ${A2A_BLOCK}:begin`)) {
      throw new UsageError(`conformance: ${file} has no <!-- ${A2A_BLOCK}:begin … --> marker`);
    }
  }
  const cells = await cellsModule.runA2aMatrix({
    timeoutMs,
    ...(only ? { only } : {}),
    ...(values.json
      ? {}
      : { onCell: (c) => io.err(`  ${c.row} × ${c.scenario}: ${c.truth.truth} (${c.ms} ms)\n`) }),
  });
  const render = await import('../conformance/a2a/render.js');
  if (file !== undefined && doc !== undefined) {
    const { replaceGeneratedBlock } = await import('../conformance/rendering/render.js');
    let text = replaceGeneratedBlock(doc, A2A_BLOCK, render.renderA2aMarkdown(cells));
    if (text === null)
      throw new UsageError(`conformance: ${file}: the ${A2A_BLOCK} block has no end marker`);
    const prettier = await import('prettier').catch(() => null);
    if (prettier) {
      const config = (await prettier.resolveConfig(file)) ?? {};
      text = await prettier.format(text, { ...config, filepath: file });
    }
    await writeFile(file, text);
    io.out(`A2A conformance report written to ${file}\n`);
  } else if (values.json) {
    io.out(JSON.stringify({ binding: 'a2a', date: new Date().toISOString(), cells }) + '\n');
  } else {
    io.out(render.renderA2aText(cells) + '\n');
  }
  return cells.some((c) => c.truth.truth === 'error') ? 1 : 0;
}
