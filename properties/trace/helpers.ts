/** Shared pieces of the trace suites: running the CLI in-process with buffer IO. */
import { runCli, type CliRun } from '../support/cli.js';

export { runCli, type CliRun };

/** Runs `check - ...args` on `text` through standard input. */
export function checkText(text: string, args: string[] = []): Promise<CliRun> {
  return runCli(['check', '-', ...args], text);
}
