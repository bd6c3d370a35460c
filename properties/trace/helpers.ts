/** Shared pieces of the trace suites: running the CLI in-process with buffer IO. */
import { Readable } from 'node:stream';
import { main } from '../../src/cli.js';

/** What one in-process run of the CLI wrote and returned. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs `mcp-resumption ...argv` in-process; `stdin` is the text standard input carries. */
export async function runCli(argv: string[], stdin?: string): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    ...(stdin !== undefined ? { stdin: Readable.from([stdin]) } : {}),
  });
  return { code, out, err };
}

/** Runs `check - ...args` on `text` through standard input. */
export function checkText(text: string, args: string[] = []): Promise<CliRun> {
  return runCli(['check', '-', ...args], text);
}
