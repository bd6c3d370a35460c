/**
 * The breadth-first search on several worker threads, each owning a range of fingerprints
 * (src/verify/partition.ts): in each round every worker judges and expands its own states and
 * sends each successor to the worker that owns its fingerprint; each owner merges what it was
 * sent in path order. The coordinator (this thread) only routes the successors and sums the
 * counters, and it waits for the workers synchronously (`Atomics.wait`, then
 * `receiveMessageOnPort`), so that a search is a plain function call on any number of threads.
 *
 * The result is the single-thread search's: the same states are kept (the first path to reach
 * a state, in path order, whichever worker found it), so the same distinct and generated
 * counts, depth, verdicts and shortest counterexamples (properties/verify/workers.test.ts).
 */
import type * as Esbuild from 'esbuild';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  type MessagePort,
} from 'node:worker_threads';
import type { SearchProgress, SearchResult } from './engine.js';
import type { Candidates } from './frontier.js';
import { breakBefore, type Break } from './partition.js';
import type { LevelAnswer, WorkerInit, WorkerRequest } from './search-worker.js';
import { verifySpec, type VerifyRef } from './spec.js';

/** The default number of workers: one per core. */
export function defaultWorkers(): number {
  return availableParallelism();
}

/** Options of a parallel search. */
export interface ParallelOptions {
  workers: number;
  maxStates?: number;
  coverage?: Set<string>;
  onProgress?: (p: SearchProgress) => void;
}

/**
 * The worker's script. Built, it is the compiled search-worker.js beside this file; run from
 * the TypeScript sources (the test suite), it is bundled once per process with esbuild (a
 * development dependency) into reports/, where the packages it imports resolve.
 */
function workerScript(): URL {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return new URL('./search-worker.js', import.meta.url);
  const out = join(dirname(here), '../../reports/verify-worker', `worker-${process.pid}.mjs`);
  if (builtScript !== out) {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
    esbuild.buildSync({
      entryPoints: [join(dirname(here), 'search-worker.ts')],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    });
    builtScript = out;
  }
  return new URL(`file://${out}`);
}
let builtScript = '';

type Answer = LevelAnswer & { error?: string; out?: Candidates[] };
interface FinishAnswer extends LevelAnswer {
  maxDepth: number;
  applied: Record<string, number>;
  breaks: Break[];
  abstractionErrors: string[];
  peakFrontier: number;
  bytes: number;
  coverage: string[];
}

/**
 * The workers of this process, kept between searches (a worker takes a moment to start and
 * load the model; `verify` runs a search per policy). They do not keep the process alive.
 */
interface Pool {
  workers: Worker[];
  ports: MessagePort[];
  counters: Int32Array;
  /** Answers expected so far (the first counter reaches it when all are posted). */
  answered: number;
}
let pool: Pool | null = null;

function poolOf(n: number): Pool {
  if (pool && pool.workers.length === n) return pool;
  closePool();
  const signal = new SharedArrayBuffer(4 * (1 + n));
  const script = workerScript();
  const ports: MessagePort[] = [];
  const workers: Worker[] = [];
  for (let self = 0; self < n; self++) {
    const { port1, port2 } = new MessageChannel();
    const init: WorkerInit = { self, owners: n, port: port2, signal };
    const w = new Worker(script, { workerData: init, transferList: [port2] });
    w.unref();
    port1.unref();
    workers.push(w);
    ports.push(port1);
  }
  pool = { workers, ports, counters: new Int32Array(signal), answered: 0 };
  return pool;
}

/** Stops the workers (the next parallel search starts new ones). */
export function closePool(): void {
  if (!pool) return;
  for (const w of pool.workers) void w.terminate();
  for (const p of pool.ports) p.close();
  pool = null;
}

/** Searches `ref` on `options.workers` worker threads. */
export function searchParallel(ref: VerifyRef, options: ParallelOptions): SearchResult {
  const t0 = performance.now();
  const n = options.workers;
  const claims: string[] = verifySpec(ref).claims.map((c) => c.name);
  const current = poolOf(n);
  const { workers, ports, counters } = current;
  let lastProgress = t0;
  let level: LevelAnswer[] = [];
  const sum = (k: keyof LevelAnswer) => level.reduce((a, x) => a + x[k], 0);
  // Sends one request to every worker and waits for all the answers.
  const ask = <T extends Answer>(
    requests: WorkerRequest[],
    transfers: ArrayBuffer[][] = [],
  ): T[] => {
    requests.forEach((r, i) => ports[i]!.postMessage(r, transfers[i] ?? []));
    current.answered += n;
    for (;;) {
      const now = Atomics.load(counters, 0);
      if (now >= current.answered) break;
      Atomics.wait(counters, 0, now, 1_000);
      const t = performance.now();
      if (options.onProgress && t - lastProgress >= 1_000) {
        lastProgress = t;
        let generated = 0;
        for (let i = 0; i < n; i++) generated += Atomics.load(counters, 1 + i);
        options.onProgress({
          distinct: sum('distinct'),
          generated,
          depth: level[0]?.depth ?? 0,
          queued: sum('size'),
          elapsedMs: t - t0,
        });
      }
    }
    const answers = ports.map((p) => {
      let m = receiveMessageOnPort(p);
      // The answer is posted before it is counted; wait out a late delivery.
      while (m === undefined) {
        Atomics.wait(counters, 0, Atomics.load(counters, 0), 1);
        m = receiveMessageOnPort(p);
      }
      return m.message as T;
    });
    const failed = answers.find((a) => a.error !== undefined);
    if (failed) throw new Error(`verify worker failed: ${failed.error}`);
    return answers;
  };
  const all = (r: WorkerRequest) => workers.map(() => r);
  let ok = false;
  try {
    ask(all({ op: 'start', ref, coverage: options.coverage !== undefined }));
    // The workers have loaded their script: a bundle made for this process is no longer needed.
    if (builtScript !== '') {
      rmSync(builtScript, { force: true });
      builtScript = '';
    }
    level = ask(all({ op: 'roots' }));
    let complete = true;
    while (sum('size') > 0) {
      const full = options.maxStates !== undefined && sum('distinct') >= options.maxStates;
      if (full) complete = false;
      const answers = ask(all({ op: 'round', expand: !full }));
      level = answers;
      if (full) break;
      const inputs = workers.map((_, owner) => answers.map((a) => a.out![owner]!));
      level = ask(
        inputs.map((lists) => ({ op: 'merge', inputs: lists })),
        inputs.map((lists) =>
          lists.flatMap((c) => [c.roots, c.moves, c.hi, c.lo].map((a) => a.buffer as ArrayBuffer)),
        ),
      );
    }
    const done = ask<FinishAnswer & Answer>(all({ op: 'finish' }));
    const applied: Record<string, number> = {};
    const first = new Map<string, Break>();
    for (const d of done) {
      for (const [k, v] of Object.entries(d.applied)) applied[k] = (applied[k] ?? 0) + v;
      for (const b of d.breaks) {
        const seen = first.get(b.claim);
        if (!seen || breakBefore(b, seen)) first.set(b.claim, b);
      }
      for (const id of d.coverage) options.coverage?.add(id);
    }
    const maxDepth = Math.max(...done.map((d) => d.maxDepth));
    ok = true;
    return {
      distinct: done.reduce((a, d) => a + d.distinct, 0),
      generated: done.reduce((a, d) => a + d.generated, 0),
      depth: maxDepth,
      queued: 0,
      elapsedMs: performance.now() - t0,
      maxDepth,
      complete,
      applied,
      // In the single-thread order: by state, then (one state breaking several) by claim.
      breaks: [...first.values()].sort((a, b) =>
        breakBefore(a, b)
          ? -1
          : breakBefore(b, a)
            ? 1
            : claims.indexOf(a.claim) - claims.indexOf(b.claim),
      ),
      peakFrontier: done.reduce((a, d) => a + d.peakFrontier, 0),
      bytes: done.reduce((a, d) => a + d.bytes, 0),
      abstractionErrors: done.flatMap((d) => d.abstractionErrors),
      workers: n,
    };
  } finally {
    // A failed search may leave answers unread: start afresh next time.
    if (!ok) closePool();
  }
}
