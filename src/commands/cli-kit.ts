/**
 * The small shared pieces of every subcommand: a usage error that exits 2 with one line, and
 * argument parsing on top of `node:util` `parseArgs` that turns its exceptions into that line.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad input: printed as one line, exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A subcommand of `mcp-resumption`. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full `--help` text. */
  help: string;
  /**
   * `false`: the command reads and prints no world configuration, so its `--help` leaves out
   * the config legend (ring depth, proof budget, ...) that every other command's ends with.
   */
  worldConfigs?: false;
  /** Runs the command; resolves to the exit status. */
  run(argv: string[], io: CommandIO): Promise<number>;
}

/** Where a command writes. Tests pass buffers; the CLI passes the process streams. */
export interface CommandIO {
  /** Writes to standard output. */
  out: (text: string) => void;
  /** Writes to standard error. */
  err: (text: string) => void;
  /** Standard input, for commands that read `-`. */
  stdin?: NodeJS.ReadableStream;
}

/** Parsed options (string or boolean per option) and positionals. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** `parseArgs` with strict options, whose errors become a {@link UsageError}. */
export function parseCommandArgs(
  command: string,
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  allowPositionals = false,
): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options,
      strict: true,
      allowPositionals,
    });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new UsageError(`${command}: ${msg} (see ${command} --help)`);
  }
}

/** Parses a non-negative integer option, or throws a {@link UsageError} naming it. */
export function intOption(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) {
    throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** The longest timer Node keeps: a longer delay (2^31 ms and up) fires after 1 ms instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Parses a duration option in milliseconds, refused (a {@link UsageError} naming it) above `max`
 * (default {@link MAX_TIMER_MS}): Node turns a longer timer into 1 ms, so `serve --for
 * 3000000000` stopped at once and `--client-timeout 3000000000` killed every client after 1 ms.
 * An option that some timer multiplies passes its own `max`.
 */
export function msOption(
  name: string,
  value: string | undefined,
  fallback: number,
  max = MAX_TIMER_MS,
): number {
  const ms = intOption(name, value, fallback);
  if (ms > max) {
    throw new UsageError(
      `--${name} must be at most ${max} ms${max === MAX_TIMER_MS ? ' (2^31-1, about 24.8 days: Node fires a longer timer at once)' : ` (the harness waits up to 16 times it, and Node fires a timer above 2^31-1 ms at once)`}, got ${value}`,
    );
  }
  return ms;
}
