/**
 * The bound on a command the kit runs (a client under test, a server's restart command): after
 * its time, its whole process group is killed, so a shell's children die with it; and what a
 * child that left the group (`setsid`, a double fork) leaves behind is found by a mark in its
 * environment and killed too.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import process from 'node:process';

/** The environment variable that marks every process of one run (see {@link killMarked}). */
export const RUN_MARK = 'MCP_RESUMPTION_RUN';

/** Kills `child`'s process group (spawned `detached`), or `child` alone where it cannot. */
export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Whether process `pid` still runs (a zombie, dead and not yet reaped, does not). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** The processes whose environment carries `RUN_MARK=mark` (Linux `/proc`; elsewhere none). */
function marked(mark: string): number[] {
  const needle = `\0${RUN_MARK}=${mark}\0`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(needle)) {
        found.push(Number(pid));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/**
 * Kills every process whose environment carries `RUN_MARK=mark`: the descendants of a run that
 * left its process group (`setsid`, a double fork) keep the environment they were started
 * with. Resolves once they are gone (or after `waitMs`); to how many were signalled.
 */
export async function killMarked(mark: string, waitMs = 2000): Promise<number> {
  const pids = marked(mark);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + waitMs;
  while (pids.some(running) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return pids.length;
}

/**
 * Kills `child`'s process group after `ms`, or `child` alone where the group cannot be
 * signalled; `onKill` runs first. Clear the timer it returns when the child ends.
 */
export function killAfter(child: ChildProcess, ms: number, onKill: () => void): NodeJS.Timeout {
  return setTimeout(() => {
    onKill();
    killGroup(child);
  }, ms);
}
