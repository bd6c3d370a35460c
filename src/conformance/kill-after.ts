/**
 * The bound on a command the kit runs (a client under test, a server's restart command): after
 * its time, its whole process group is killed, so a shell's children die with it.
 */
import type { ChildProcess } from 'node:child_process';
import process from 'node:process';

/**
 * Kills `child`'s process group (spawned `detached`) after `ms`, or `child` alone where the
 * group cannot be signalled; `onKill` runs first. Clear the timer it returns when the child ends.
 */
export function killAfter(child: ChildProcess, ms: number, onKill: () => void): NodeJS.Timeout {
  return setTimeout(() => {
    onKill();
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }, ms);
}
