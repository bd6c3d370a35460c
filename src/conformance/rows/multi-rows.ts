/**
 * The rows across instances: the 2.x server twice behind a round-robin front, with a store per
 * instance or the shared Redis store, and the scenarios that matter there. They need Redis
 * (`REDIS_URL`, or a `redis-server` the harness starts); without it the Redis row is `n/a`.
 */
import { harnessRedis, MultiInstanceAdapter } from '../adapters/multi-instance.js';
import { runCell, type JudgedCell, type MatrixOptions } from './matrix.js';
import {
  restartDuringCall,
  resumeWithinWindow,
  slowStoreReplay,
  slowStoreReplayScenario,
  type Scenario,
} from '../scenarios/index.js';

/** `slow-store-replay` with no added delay: only the real store's own round trips. */
export const slowStoreReplayReal: Scenario = {
  ...slowStoreReplayScenario(0),
  name: 'slow-store-replay@0ms',
  title: 'slow-store-replay with no added delay: the networked store as it is',
  requires: () => null,
};

/** The scenarios of the rows across instances, in column order. */
export const MULTI_INSTANCE_SCENARIOS: readonly Scenario[] = [
  resumeWithinWindow,
  restartDuringCall,
  slowStoreReplay,
  slowStoreReplayReal,
];

/** The rows across instances, in row order. */
export const MULTI_INSTANCE_ROWS = [
  { name: 'server-v2+memory ×2', kind: 'memory' },
  { name: 'server-v2+redis ×2', kind: 'redis' },
] as const;

/** Runs the rows across instances (or those `rows` names), each scenario on fresh instances. */
export async function runMultiInstanceMatrix(
  options: MatrixOptions & { only?: string[]; rows?: readonly string[] } = {},
  onCell?: (cell: JudgedCell) => void,
): Promise<JudgedCell[]> {
  const redis = await harnessRedis();
  const url = redis.url;
  const cells: JudgedCell[] = [];
  const scenarios = MULTI_INSTANCE_SCENARIOS.filter(
    (s) => !options.only || options.only.includes(s.name),
  );
  for (const row of MULTI_INSTANCE_ROWS) {
    if (options.rows && !options.rows.some((r) => row.name.startsWith(r))) continue;
    for (const scenario of scenarios) {
      let cell: JudgedCell;
      if (row.kind === 'redis' && url === null) {
        cell = {
          implementation: row.name,
          scenario: scenario.name,
          verdict: 'n/a',
          observed: 'not run',
          reason: redis.url === null ? redis.reason : '',
          reconnects: [],
          trace: [],
          ms: 0,
        };
      } else {
        cell = await runCell(
          { name: row.name, make: () => new MultiInstanceAdapter(row.kind, url) },
          scenario,
          options,
        );
      }
      cells.push(cell);
      onCell?.(cell);
    }
  }
  return cells;
}
