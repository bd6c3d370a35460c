/**
 * One run of the taskStreamGuard property: a client consuming one task through the guard
 * against the hostile server of ./task-hostile.ts on loopback, and the two claims judged on it.
 *
 * - NoSilentGap: the application receives the task's events in order, each once, with the
 *   payload of the true log, from seq 0 with no gap: all of them, or a StreamResumptionError
 *   after which nothing more is handed on (a later call for the task is refused).
 * - GuardAgreesWithOracle: the trace the guard recorded, judged by the oracle under the
 *   mcp-tasks binding (as `check --binding mcp-tasks` does), has no reconnect whose decision
 *   differs from the oracle's (no unsafe-accept, false alarm or misclassification).
 */
import { checkTrace } from '../../src/trace/check.js';
import { fetchTaskStream, StreamResumptionError, type TaskEvent } from '../../src/runtime/index.js';
import {
  mutantTaskGuard,
  type TaskGuardMutantName,
} from '../../src/runtime-mutants/task-guard-mutants.js';
import {
  taskStreamGuard,
  type TaskStreamGuard,
  type TaskTraceLine,
} from '../../src/runtime/task-stream-guard.js';
import { callsOf, hostileServer, TASK, type Script } from './task-hostile.js';

export interface Broken {
  claim: 'NoSilentGap' | 'GuardAgreesWithOracle';
  why: string;
}

export interface TaskRun {
  broken: Broken[];
  received: number[];
  error: StreamResumptionError | null;
  trace: string[];
}

/** A budget no loopback run comes near: the decisions of this suite never depend on time. */
const PROOF_MS = 60_000;

export async function runTaskGuard(
  s: Script,
  mutant?: TaskGuardMutantName,
  proofTimeoutMs = PROOF_MS,
): Promise<TaskRun> {
  const trace: TaskTraceLine[] = [];
  const options = { proofTimeoutMs, onTrace: (l: TaskTraceLine) => void trace.push(l) };
  const guard: TaskStreamGuard = mutant
    ? mutantTaskGuard(options, mutant)
    : taskStreamGuard(options);
  const host = await hostileServer(s);
  const events: TaskEvent[] = [];
  let error: StreamResumptionError | null = null;
  const broken: Broken[] = [];
  try {
    for (let call = 0; call < callsOf(s) && events.length < s.k; call++) {
      const missing = call > 0 && s.steps[call - 1]?.kind === 'missing-after';
      const after = missing ? undefined : guard.cursor(TASK);
      const params = after === undefined ? { taskId: TASK } : { taskId: TASK, after };
      try {
        for await (const e of guard.follow(params, fetchTaskStream(fetch, host.url, params)))
          events.push(e);
      } catch (e) {
        if (e instanceof StreamResumptionError) {
          error = e;
          break;
        }
        // Any other error (a dropped connection, an error answer): the client calls again.
      }
    }
    if (error) {
      // Fail closed: a later call for the task is refused, and hands on nothing.
      const params = { taskId: TASK, after: guard.cursor(TASK) ?? 0 };
      try {
        for await (const e of guard.follow(params, fetchTaskStream(fetch, host.url, params))) {
          broken.push({ claim: 'NoSilentGap', why: `event ${e.seq} handed on after the failure` });
        }
        broken.push({ claim: 'NoSilentGap', why: 'a call after the failure was not refused' });
      } catch (e) {
        if (e !== error) broken.push({ claim: 'NoSilentGap', why: `refused with ${String(e)}` });
      }
    }
  } finally {
    guard.forget(TASK);
    await host.close();
  }

  const received = events.map((e) => e.seq);
  events.forEach((e, i) => {
    if (e.seq !== i || e.taskId !== TASK || (e.payload as { n?: unknown }).n !== i) {
      broken.push({
        claim: 'NoSilentGap',
        why: `event ${i} handed on was ${JSON.stringify({ taskId: e.taskId, seq: e.seq, payload: e.payload })}, not seq ${i} of ${TASK}`,
      });
    }
  });
  if (!error && events.length !== s.k) {
    broken.push({
      claim: 'NoSilentGap',
      why: `no failure raised, yet ${events.length} of ${s.k} events reached the application`,
    });
  }

  const lines = trace.map((l) => JSON.stringify(l));
  const report = await checkTrace(lines);
  for (const r of report.reconnects) {
    if (r.verdict !== 'ok') {
      broken.push({
        claim: 'GuardAgreesWithOracle',
        why: `line ${r.line} (after ${r.cursor}): ${r.verdict}, guard ${r.actual ?? 'no decision'}, oracle ${r.expected}: ${r.reason}`,
      });
    }
  }
  if (error && error.outcome !== expectedEscalation(report)) {
    broken.push({
      claim: 'GuardAgreesWithOracle',
      why: `the guard raised ${error.outcome}, the oracle's last decision is ${expectedEscalation(report)}`,
    });
  }
  return { broken, received, error, trace: lines };
}

/** The oracle's outcome of the last reconnect that escalated (what the error should say). */
function expectedEscalation(report: Awaited<ReturnType<typeof checkTrace>>): string | undefined {
  const escalated = report.reconnects.filter(
    (r) => r.expected === 'resumption-failed' || r.expected === 'session-lost',
  );
  return escalated.length > 0 ? escalated[escalated.length - 1]!.expected : 'resumption-failed';
}
