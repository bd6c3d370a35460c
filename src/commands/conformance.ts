/**
 * `mcp-resumption conformance`: runs every scenario against every implementation (real MCP
 * servers and clients, in process, over loopback HTTP) and prints the matrix. The harness is
 * loaded only when the command runs: it needs the packages under test (devDependencies).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseCommandArgs, UsageError, type Command } from '../cli-kit.js';

/** The `conformance` subcommand. */
export const conformanceCommand: Command = {
  name: 'conformance',
  summary: 'run the resumption scenarios against real MCP servers and clients; print the matrix',
  help: `Usage: mcp-resumption conformance [--json] [--only NAME[,NAME…]] [--write FILE]

Starts real MCP implementations in process on 127.0.0.1 (the SDK 1.x server, the 2.x server,
mcp-proxy, each with its event stores; the SDK client transports, bare and with continuityGuard),
drives them over HTTP, injects faults, reconnects with Last-Event-ID, and prints the matrix
implementation × scenario. Each cell: the observed answer (status, what arrived against the
ground truth) and a verdict:
  honored      replayed from cursor+1, nothing lost, nothing foreign
  rejected     a distinguishable non-200 answer (or, for a client, an error it was told about)
  silent loss  200, and messages never delivered (or out of order, or twice)
  leak         messages of another stream or session (another session: a security finding)
  hang         no answer within the bound
  error        the harness could not run the scenario (the status and a body excerpt)
  n/a          not run, with the reason
A stream whose events carry no ids is "not resumable": its reconnects are GETs without
Last-Event-ID, never a cursor; messages lost across them are silent loss.
Beside each cell, the trace oracle's classification of the recorded trace (format v1), and
which one is wrong where they disagree.

Scenarios: within-window, after-eviction, after-restart, other-stream, other-session,
same-ms-burst, empty-resume-twice, reader-stall, stale-connection.

Options:
  --json         one JSON object: date, versions, settings, every cell (with its trace)
  --only NAMES   comma-separated scenario names and/or implementation names (prefixes)
  --write FILE   replace the generated block of FILE (docs/conformance.md) with the report
Exit status: 0; 1 when a reference row (ContinuityEventStore, continuityGuard) shows silent
loss, leak, hang or error; 2 on bad input.`,
  async run(argv, io) {
    const { values } = parseCommandArgs('conformance', argv, {
      json: { type: 'boolean' },
      only: { type: 'string' },
      write: { type: 'string' },
    });
    const only =
      typeof values.only === 'string' ? values.only.split(',').filter(Boolean) : undefined;
    const file = values.write as string | undefined;
    let doc: string | undefined;
    if (file !== undefined) {
      try {
        doc = await readFile(file, 'utf8');
      } catch {
        throw new UsageError(`conformance: cannot read ${file}`);
      }
    }
    const harness = await import('../conformance/report.js').catch((e: unknown) => {
      throw new UsageError(
        `conformance: the packages under test are not installed (${(e as Error).message.split('\n')[0]})`,
      );
    });
    const unknown = only ? harness.unknownNames(only) : [];
    if (unknown.length > 0) {
      throw new UsageError(
        `conformance: unknown scenario or implementation ${JSON.stringify(unknown[0])} (see conformance --help)`,
      );
    }
    if (doc !== undefined && !doc.includes(harness.DOC_BEGIN)) {
      throw new UsageError(`conformance: ${file} has no ${harness.DOC_BEGIN} marker`);
    }
    const report = await harness.runConformance({
      ...(only ? { only } : {}),
      onCell: values.json
        ? undefined
        : (c) => io.err(`  ${c.implementation} × ${c.scenario}: ${c.verdict}\n`),
    });
    if (file !== undefined && doc !== undefined) {
      let text = harness.replaceDocBlock(doc, harness.renderMarkdown(report));
      // Format as the repository's Prettier would, when it is installed, so the page stays
      // lint-clean after regeneration.
      const prettier = await import('prettier').catch(() => null);
      if (prettier) {
        const config = (await prettier.resolveConfig(file)) ?? {};
        text = await prettier.format(text, { ...config, filepath: file });
      }
      await writeFile(file, text);
      io.out(`conformance report written to ${file}\n`);
    } else if (values.json) {
      io.out(JSON.stringify(report) + '\n');
    } else {
      io.out(harness.renderText(report) + '\n');
    }
    return report.referenceViolations.length > 0 ? 1 : 0;
  },
};
