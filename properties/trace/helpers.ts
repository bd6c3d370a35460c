/**
 * Shared pieces of the trace suites: running the CLI in-process with buffer IO, and a machine
 * that never settles a reconnect.
 */
import {
  clientMachineConfig,
  clientSetup,
  type ClientMachine,
} from '../../model/client-machine.js';
import { runCli, type CliRun } from '../support/cli.js';

export { runCli, type CliRun };

/** Runs `check - ...args` on `text` through standard input. */
export function checkText(text: string, args: string[] = []): Promise<CliRun> {
  return runCli(['check', '-', ...args], text);
}

/**
 * The lines of `n` reconnects, each resumed by the cursor's successor (reconnect `i` from cursor
 * `i`, first event `i + 1`), after an opening whose first event is 1; with `decisions`, each
 * followed by the client's `resumed` decision.
 */
export function resumedReconnectLines(n: number, decisions: boolean): string[] {
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    lines.push(
      '{"type":"disconnect"}',
      `{"type":"reconnect","cursor":${i}}`,
      '{"type":"response","status":200}',
      `{"type":"event","id":${i + 1}}`,
    );
    if (decisions) lines.push('{"type":"decision","outcome":"resumed"}');
  }
  return lines;
}

/** A mutant whose awaiting state ignores the proof timer: a reconnect is never decided. */
export const neverTimesOut = clientSetup.createMachine({
  ...clientMachineConfig,
  states: {
    ...clientMachineConfig.states,
    awaitingProof: {
      ...clientMachineConfig.states.awaitingProof,
      on: { ...clientMachineConfig.states.awaitingProof.on, PROOF_TIMEOUT: undefined },
    },
  },
}) as unknown as ClientMachine;
