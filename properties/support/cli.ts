/** Running the CLI in-process with buffer IO, for every suite that tests a command. */
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
