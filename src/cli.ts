#!/usr/bin/env node
/**
 * `mcp-resumption`: the command-line entry. Dispatches to a subcommand; bad input is one line
 * on stderr and exit status 2, never a stack trace.
 */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { UsageError, type CommandIO } from './commands/cli-kit.js';
import { COMMANDS, DEFAULT_COMMAND } from './commands/index.js';
import { configLegend } from '../model/world/config.js';

/** The package's version, read through the package's own name (its `exports` list package.json). */
export function packageVersion(): string {
  const pkg = createRequire(import.meta.url)('mcp-resumption/package.json') as { version: string };
  return pkg.version;
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'Usage: mcp-resumption <command> [options]',
    '',
    'Is a reconnect with Last-Event-ID resumed, delayed, resumption-failed or session-lost?',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    `Without a command: ${DEFAULT_COMMAND}. Every command takes --help. --version: the version.`,
    '',
    configLegend(),
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit status. */
export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    io.out(usage() + '\n');
    return 0;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    io.out(packageVersion() + '\n');
    return 0;
  }
  const name = first === undefined || first.startsWith('-') ? DEFAULT_COMMAND : first;
  const args = first === undefined || first.startsWith('-') ? argv : rest;
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`mcp-resumption: unknown command ${JSON.stringify(name)} (see mcp-resumption --help)\n`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    // A command's help ends with the config legend: worlds, scenarios and kill tables all
    // print world strings and configs in those letters (conformance, which prints none, not).
    const legend = command.worldConfigs === false ? '' : '\n\n' + configLegend();
    io.out(command.help + legend + '\n');
    return 0;
  }
  try {
    return await command.run(args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(e.message + '\n');
      return 2;
    }
    const cause = e instanceof Error ? e.message : String(e);
    io.err(`mcp-resumption ${name}: internal error: ${cause.split('\n')[0]}\n`);
    return 3;
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * A writer to `stream` that survives its reader going away (`| head -1`): after EPIPE, later
 * writes are dropped and the command runs to its own exit status (for `check`, the verdict's),
 * instead of dying with an unhandled 'error' event (a stack trace and exit 1).
 */
function writerTo(stream: NodeJS.WriteStream): (text: string) => void {
  let gone = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    gone = true;
  });
  return (text) => {
    if (!gone) stream.write(text);
  };
}

if (isEntryPoint()) {
  const io: CommandIO = {
    out: writerTo(process.stdout),
    err: writerTo(process.stderr),
    stdin: process.stdin,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`mcp-resumption: internal error: ${String(e)}\n`);
      process.exitCode = 3;
    },
  );
}
