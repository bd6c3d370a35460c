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
