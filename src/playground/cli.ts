#!/usr/bin/env node
/**
 * `npm run playground`: builds the playground page and serves it on 127.0.0.1, printing its
 * URL, until Ctrl-C. A script of the clone, not a subcommand of the published CLI: it builds
 * with esbuild and serves Mermaid from node_modules, both devDependencies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildPlayground } from './build.js';
import { serveStatic } from './server.js';

const HELP = `Usage: npm run playground [-- --port N]

Builds the playground (src/playground/page, bundled with esbuild from the model's own code) and
serves it on http://127.0.0.1:PORT/ until Ctrl-C. In the page you step through a simulated
world: the commands of the world (Emit, Evict, Restart, SaturateApp, ReleaseApp, Drain,
Advance, Disconnect, Reconnect), a server policy, a client (the model's or a mutant) and a
configuration; the machine's state on the simplified diagram, the server's ring buffer, the
socket, the client's cursor, each claim live, the timeline; the seed's three incidents and any
counterexample by its replay command or world string; the timeline as a Mermaid diagram; and a
trace panel that checks a recorded trace under either binding (mcp-sse, mcp-tasks) and draws it.
See docs/playground.md.

Options:
  --port N   listen on port N (default: a free port)
  --help     this text`;

async function main(argv: string[]): Promise<number> {
  let values: { port?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { port: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`playground: ${(e as Error).message.split('\n')[0]} (see --help)\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`playground: --port must be a port number, got ${values.port}\n`);
    return 2;
  }
  const out = mkdtempSync(join(tmpdir(), 'mcpr-playground-'));
  await buildPlayground(out);
  const server = await serveStatic(out, port);
  process.stdout.write(`playground: ${server.url} (Ctrl-C stops)\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  rmSync(out, { recursive: true, force: true });
  process.stdout.write('playground: stopped\n');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`playground: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
