/**
 * What both bindings' `conformance --url` share (./conformance.ts for SSE, ./conformance-tasks.ts
 * for task streams): the options that describe a server at a URL, and the check that the URL is
 * loopback and listening.
 */
import { UsageError } from './cli-kit.js';

/** The options that describe a server given by `--url` (its name, hooks and ids). */
export const URL_ONLY_OPTIONS = [
  'name',
  'restart-cmd',
  'evict-cmd',
  'hook-timeout',
  'keepalive-ms',
  'id-pattern',
  'id-sequence',
] as const;

/** The options of the SSE scenarios' servers that no other binding's scenarios have. */
export const SSE_SERVER_OPTIONS = [
  'adapter',
  ...URL_ONLY_OPTIONS,
  'protocol-version',
  'retention',
  'idle',
  'fail-on',
  'junit',
  'traces',
];

/**
 * Refuses a `--url` that is not loopback, or where nothing accepts connections (waited 2 s): a
 * mistake in the command (exit 2), not a row of error cells. Both bindings' `--url` use it.
 */
export async function requireListeningUrl(url: string): Promise<void> {
  const { checkLoopbackUrl, waitForPort } = await import('../conformance/adapters/url.js');
  const problem = checkLoopbackUrl(url);
  if (problem !== null) throw new UsageError(`conformance: ${problem}`);
  try {
    await waitForPort(Number(new URL(url).port), 2000);
  } catch {
    throw new UsageError(`conformance: nothing accepts connections at ${url} (waited 2 s)`);
  }
}
