/**
 * A worker thread of the parallel search (src/verify/parallel.ts): one partition, the states
 * whose fingerprints it owns. It answers each request of the coordinator on its port, then
 * counts the answer on the shared signal, so that the coordinator, which waits synchronously
 * (`Atomics.wait`), knows when to read it (`receiveMessageOnPort`).
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Candidates } from './frontier.js';
import { Partition } from './partition.js';
import { verifySpec, type VerifyRef } from './spec.js';

/** What the coordinator gives each worker when it starts it. */
export interface WorkerInit {
  self: number;
  owners: number;
  port: MessagePort;
  /** Int32 slots: [0] answers posted; [1 + self] this worker's generated states so far. */
  signal: SharedArrayBuffer;
}

/** A request of the coordinator (`start` begins a search: the pool serves one after another). */
export type WorkerRequest =
  | { op: 'start'; ref: VerifyRef; coverage: boolean }
  | { op: 'roots' }
  | { op: 'round'; expand: boolean }
  | { op: 'merge'; inputs: Candidates[] }
  | { op: 'finish' };

/** The counters every answer carries. */
export interface LevelAnswer {
  depth: number;
  size: number;
  distinct: number;
  generated: number;
}

const buffersOf = (lists: readonly Candidates[]): ArrayBuffer[] =>
  lists.flatMap((c) => [c.roots, c.moves, c.hi, c.lo].map((a) => a.buffer as ArrayBuffer));

function serve(init: WorkerInit): void {
  let coverage: Set<string> | undefined;
  let started: Partition | undefined;
  const part = (): Partition => {
    if (!started) throw new Error('no search started');
    return started;
  };
  const signal = new Int32Array(init.signal);
  const level = (): LevelAnswer => {
    const p = part();
    return {
      depth: p.level.depth,
      size: p.level.size,
      distinct: p.seen.size,
      generated: p.generated,
    };
  };
  const answer = (message: unknown, transfer: ArrayBuffer[] = []) => {
    init.port.postMessage(message, transfer);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  init.port.on('message', (req: WorkerRequest) => {
    try {
      const p = req.op === 'start' ? undefined : part();
      switch (req.op) {
        case 'start':
          coverage = req.coverage ? new Set<string>() : undefined;
          started = new Partition(
            { ...verifySpec(req.ref), ...(coverage ? { coverage } : {}) },
            init.self,
            init.owners,
          );
          return answer(level());
        case 'roots':
          p!.roots();
          return answer(level());
        case 'round': {
          const tick = () => Atomics.store(signal, 1 + init.self, p!.generated);
          const out = p!.round({ judge: true, expand: req.expand, tick });
          tick();
          return answer({ ...level(), out }, buffersOf(out));
        }
        case 'merge':
          p!.merge(req.inputs);
          return answer(level());
        case 'finish':
          answer({
            ...level(),
            maxDepth: p!.maxDepth,
            applied: p!.applied,
            breaks: [...p!.breaks.values()],
            abstractionErrors: p!.abstractionErrors,
            peakFrontier: p!.peakFrontier,
            bytes: p!.seen.bytes + p!.peakFrontierBytes,
            coverage: coverage ? [...coverage] : [],
          });
          return;
      }
    } catch (e) {
      answer({ error: (e as Error).stack ?? String(e) });
    }
  });
}

if (parentPort !== null) serve(workerData as WorkerInit);
