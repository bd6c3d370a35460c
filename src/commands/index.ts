/**
 * The registry of subcommands. Each command lives in its own file beside this one; add it here
 * to make it reachable from the CLI. `DEFAULT_COMMAND` is what `npm start` runs.
 */
import type { Command } from './cli-kit.js';
import { checkCommand } from './check.js';
import { conformanceCommand } from './conformance.js';
import { diagramCommand } from './diagram.js';
import { exploreCommand } from './explore.js';
import { mutantsCommand } from './mutants.js';
import { serveCommand } from './serve.js';
import { tableCommand } from './table.js';
import { verifyCommand } from './verify.js';

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  exploreCommand,
  mutantsCommand,
  tableCommand,
  diagramCommand,
  checkCommand,
  conformanceCommand,
  serveCommand,
  verifyCommand,
];

/** The command run when none is named (`npm start`). */
export const DEFAULT_COMMAND = 'explore';
