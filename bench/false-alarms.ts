/**
 * `npm run bench false-alarms [-- --quick] [--seed N]`: the guard as a user meets it (issue 37,
 * "Measured as a user sees it"). Not a timed test: it counts.
 *
 * A population of healthy calls runs against an SDK 1.32.2 `McpServer` (bench/false-alarms/
 * server.ts), once with each store (`ContinuityEventStore`, the Redis store), through a proxy
 * that cuts the calls' connections at random points (bench/false-alarms/proxy.ts). The tools are
 * silent for up to 10 × P; half the calls go to a server that polls (SEP-1699: `closeSSEStream`
 * during the silence, `retryInterval` in its priming events). The clients are SDK 1.x and 2.x
 * `Client`s whose `fetch` is `continuityGuard` with the README's settings, every time divided by
 * {@link SCALE} (P = 1 s); the same calls through bare `fetch` are reported beside them, for
 * reference only. A healthy call that does not resolve with its full result is a false alarm;
 * one that resolves with its notifications missing, repeated or out of order accepted a gap.
 *
 * Then the failure set (skip, 404, 405, eviction, an empty 200 without a head, a resume whose
 * headers never come), each applied to the first resume of a call cut after two
 * notifications: the time from the fault (the resume answered, or sent on) to the call's
 * rejection. Targets: 0 false alarms, 0 gaps accepted, and every failure rejected within
 * P + 100 ms. A missed target prints a line starting `FAIL`, and the run exits 1.
 *
 * The seed chooses the population (silences, notifications, cut points); the replay command
 * printed runs the same population again (the timings of a shared machine differ).
 */
import { createClient } from 'redis';
import { startRedis } from '../src/conformance/adapters/redis-server.js';
import type { RedisClient } from '../src/redis/index.js';
import { BenchUsageError, type Bench } from './bench.js';
import { callWork, P, SCALE, type CallRecord, type Sdk } from './false-alarms/client.js';
import { CuttingProxy, FAULTS, type Fault } from './false-alarms/proxy.js';
import {
  AFTER_CUT,
  startBenchServer,
  type StoreKind,
  type WorkArgs,
} from './false-alarms/server.js';

const SDKS: readonly Sdk[] = ['v1', 'v2'];
/** The slack a failure may take beyond P. */
const SLACK_MS = 100;
/** The server's keepalive (the SDK's 15 s default, scaled). */
const KEEPALIVE_MS = 15_000 / SCALE;
/** `retry:` a polling server suggests (below P: the client's next poll comes inside the budget). */
const RETRY_MS = 250;
/** Bound on one phase (every call of a store): a call still pending then is reported, not waited for. */
const PHASE_MS = 120_000;

/**
 * Calls in flight at once: the bench, its server, its proxy and Redis share a 2-core machine with
 * other work, and a proof budget of 1 s must not measure the bench's own crowding.
 */
const WIDTH = 12;

/**
 * Runs `task` over `items` with at most `width` in flight, the longest silences first (so the
 * last wave is short); resolves to the results in the order of `items`.
 */
async function pooled<R>(
  items: readonly Healthy[],
  width: number,
  task: (item: Healthy) => Promise<R>,
): Promise<R[]> {
  const order = items
    .map((_, i) => i)
    .sort((a, b) => items[b]!.args.silenceMs - items[a]!.args.silenceMs);
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < order.length) {
        const i = order[next++]!;
        out[i] = await task(items[i]!);
      }
    }),
  );
  return out;
}

/** A small seeded generator (mulberry32): the population is a function of the seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The options of the run, from the command line: `--quick`, `--seed N`. */
export function runOptions(argv: readonly string[]): { quick: boolean; seed: number } {
  const at = argv.indexOf('--seed');
  let seed = Math.floor(Math.random() * 2 ** 31);
  if (at >= 0) {
    const raw = argv[at + 1];
    if (raw === undefined || !/^\d{1,10}$/.test(raw)) {
      throw new BenchUsageError(`--seed needs a whole number, got ${raw ?? 'nothing'}`);
    }
    seed = Number(raw);
  }
  return { quick: argv.includes('--quick'), seed };
}

/** One healthy call of the population. */
interface Healthy {
  sdk: Sdk;
  guarded: boolean;
  poll: boolean;
  args: WorkArgs;
  /** Cut points, ms after the first notification reached the application. */
  cuts: number[];
  /** Start delay (ms), so that the calls do not all begin in one turn. */
  startMs: number;
}

/** The silences every cell covers first, in P: the edges, then above P up to 10 × P. */
const LADDER = [10, 5, 2, 1, 0.5, 0];

/** The healthy population of one store: `perCell` calls for each SDK and polling mode. */
export function population(rand: () => number, perCell: number): Healthy[] {
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const calls: Healthy[] = [];
  for (const poll of [false, true]) {
    for (const sdk of SDKS) {
      for (let i = 0; i < perCell; i++) {
        const silenceMs = Math.round((i < LADDER.length ? LADDER[i]! : rand() * 10) * P);
        const nCuts = rand() < 0.15 ? 0 : rand() < 0.8 ? 1 : 2;
        const cuts = Array.from({ length: nCuts }, () => Math.round(rand() * (silenceMs + 300)));
        const args: WorkArgs = {
          tag: `${sdk}-${poll ? 'poll' : 'hold'}-${i}`,
          before: int(1, 3),
          silenceMs,
          after: int(0, 3),
          pollEveryMs: poll ? Math.round((0.3 + rand() * 2.7) * P) : 0,
        };
        const startMs = int(0, 500);
        // The same call through the guard and through bare fetch.
        for (const guarded of [true, false]) {
          calls.push({
            sdk,
            guarded,
            poll,
            args: { ...args, tag: `${args.tag}-${guarded ? 'g' : 'b'}` },
            cuts,
            startMs,
          });
        }
      }
    }
  }
  return calls;
}

/** How a healthy call is judged. */
type Verdict = 'ok' | 'false-alarm' | 'gap-accepted';

function judge(c: Healthy, r: CallRecord): Verdict {
  const total = c.args.before + c.args.after;
  if (!r.resolved || r.text !== `${c.args.tag}:done:${total}`) return 'false-alarm';
  const inOrder = r.progress.length === total && r.progress.every((p, i) => p === i + 1);
  return inOrder ? 'ok' : 'gap-accepted';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with `p`, or with `fallback` after `ms`. */
async function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<T>((r) => (timer = setTimeout(() => r(fallback), ms)));
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

/** A server (polling or not) behind its proxy. */
interface Rig {
  url: string;
  proxy: CuttingProxy;
  close(): Promise<void>;
}

async function rig(store: StoreKind, redis: RedisClient | undefined, poll: boolean): Promise<Rig> {
  const proxy = new CuttingProxy();
  const server = await startBenchServer({
    store,
    ...(redis ? { redis } : {}),
    retryIntervalMs: poll ? RETRY_MS : 0,
    keepAliveMs: KEEPALIVE_MS,
    hooks: { cut: (s) => proxy.wasCut(s), ready: (s) => proxy.ready(s) },
  });
  proxy.upstreamPort = server.port;
  const url = await proxy.listen();
  return {
    url,
    proxy,
    close: async () => {
      await proxy.close();
      await server.close();
    },
  };
}

/** Runs one healthy call: cuts at its points after its first notification. */
async function runHealthy(c: Healthy, r: Rig): Promise<CallRecord> {
  await sleep(c.startMs);
  let session: string | undefined;
  const timers: NodeJS.Timeout[] = [];
  try {
    return await callWork(c.sdk, r.url, c.guarded, c.args, 'healthy', {
      onSession: (s) => (session = s),
      onFirstProgress: () => {
        for (const at of c.cuts) timers.push(setTimeout(() => r.proxy.cut(session!), at));
      },
    });
  } finally {
    for (const t of timers) clearTimeout(t);
  }
}

/** One failure call's outcome. */
interface FaultRun {
  fault: Fault;
  sdk: Sdk;
  record: CallRecord;
  /** Ms from the fault to the call's settling (`undefined`: no resume came). */
  rejectMs?: number;
}

async function runFault(fault: Fault, sdk: Sdk, r: Rig, i: number): Promise<FaultRun> {
  let session: string | undefined;
  const args: WorkArgs = {
    tag: `${fault}-${sdk}-${i}`,
    before: 2,
    silenceMs: 3 * P,
    after: 1,
    pollEveryMs: 0,
    fault: true,
  };
  const name = fault === 'eviction' ? 'fault-evict' : 'fault';
  let seen = 0;
  const record = await callWork(sdk, r.url, true, args, name, {
    onSession: (s) => {
      session = s;
      r.proxy.plan(s, fault);
    },
    onProgress: () => {
      if (++seen === args.before) r.proxy.cutCall(session!);
    },
    // The SDK's own first delay, unscaled: the tool sends its events after the cut before the
    // resume comes, and the guard's bound on the resume's status line (P here) does not run
    // while the proxy waits for them. The time is taken from the fault on.
    reconnectDelayMs: 1_000,
  });
  const applied = session === undefined ? undefined : r.proxy.appliedAt(session);
  return {
    fault,
    sdk,
    record,
    ...(applied === undefined ? {} : { rejectMs: record.settledAt - applied }),
  };
}

/** What ended a healthy call, in a few words, from its error's text. */
export function causeOf(text: string): string {
  const known: [RegExp, string][] = [
    [
      /declared replay floor \d+ covers cursor \d+, but no event came/,
      'floor stated, no event within P (unproven)',
    ],
    [/reconnect without Last-Event-ID/, 'the SDK reconnected without its cursor (cursor-dropped)'],
    [/no response to the reconnect/, 'no status line within the bound (no-response)'],
    [/timed out/i, "the SDK's request timeout"],
    [/fetch failed/, 'fetch failed'],
  ];
  for (const [re, cause] of known) if (re.test(text)) return cause;
  return `other: ${text.slice(0, 80)}`;
}

/** The `q` quantile of `xs` (0 for none). */
function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const padL = (s: string | number, n: number) => String(s).padStart(n);

/** See the module comment. */
export const falseAlarmsBench: Bench = {
  name: 'false-alarms',
  summary:
    'healthy calls through the guard (SDK server, both stores, cuts, silences to 10 × P, polling): false alarms, and how fast each failure is rejected',
  async run(log) {
    const { quick, seed } = runOptions(process.argv);
    const perCell = quick ? LADDER.length : 2 * LADDER.length;
    const reps = quick ? 1 : 3;
    const lines: string[] = [];
    const fails: string[] = [];
    lines.push(
      `seed ${seed}${quick ? ', --quick' : ''}; replay: npm run bench -- false-alarms --seed ${seed}${quick ? ' --quick' : ''}`,
    );
    lines.push(
      `time scaled 1/${SCALE}: P = ${P} ms, silences up to ${10 * P} ms, server keepalive ${KEEPALIVE_MS} ms, polling retry ${RETRY_MS} ms; guard: the README's settings (idleTimeoutMs, onFailure) and its defaults, scaled`,
    );
    const redis = await startRedis();
    let redisClient: RedisClient | undefined;
    const stores: StoreKind[] = ['memory'];
    if (redis.url !== null) {
      redisClient = (await createClient({ url: redis.url })
        .on('error', () => {})
        .connect()) as RedisClient;
      stores.push('redis');
    } else {
      lines.push(`redis store not run: ${redis.reason}`);
      fails.push(`FAIL the Redis store was not measured: ${redis.reason}`);
    }
    const rand = seeded(seed);
    try {
      for (const store of stores) {
        const label = store === 'memory' ? 'ContinuityEventStore' : 'RedisContinuityEventStore';
        const rigs = {
          hold: await rig(store, redisClient, false),
          poll: await rig(store, redisClient, true),
        };
        try {
          const calls = population(rand, perCell);
          log(`${label}: ${calls.length} healthy calls`);
          const records = await pooled(calls, WIDTH, (c) =>
            within(
              runHealthy(c, c.poll ? rigs.poll : rigs.hold),
              PHASE_MS,
              null as CallRecord | null,
            ),
          );
          lines.push('');
          lines.push(
            `${label}: healthy calls (cut 0-2 times at random points after the first notification)`,
          );
          lines.push(
            `  ${pad('client', 10)} ${pad('polling', 8)} ${padL('calls', 5)} ${padL('ok', 4)} ${padL('false alarms', 12)} ${padL('gaps accepted', 13)}  false alarms by silence (×P)`,
          );
          for (const guarded of [true, false]) {
            for (const poll of [false, true]) {
              for (const sdk of SDKS) {
                const idx = calls
                  .map((c, i) => [c, i] as const)
                  .filter(([c]) => c.guarded === guarded && c.poll === poll && c.sdk === sdk);
                const verdicts = idx.map(([c, i]) => {
                  const r = records[i];
                  return { c, r, v: r ? judge(c, r) : ('false-alarm' as Verdict) };
                });
                const count = (v: Verdict) => verdicts.filter((x) => x.v === v).length;
                const alarms = verdicts
                  .filter((x) => x.v === 'false-alarm')
                  .map((x) => (x.c.args.silenceMs / P).toFixed(1));
                const client = `${sdk}${guarded ? '+guard' : ' bare'}`;
                lines.push(
                  `  ${pad(client, 10)} ${pad(poll ? 'on' : 'off', 8)} ${padL(verdicts.length, 5)} ${padL(count('ok'), 4)} ${padL(count('false-alarm'), 12)} ${padL(count('gap-accepted'), 13)}  ${alarms.join(' ') || '-'}`,
                );
                for (const x of verdicts) {
                  if (x.v === 'ok') continue;
                  log(
                    `${label} ${client} poll ${poll ? 'on' : 'off'} silence ${x.c.args.silenceMs} ms cuts [${x.c.cuts.join(', ')}]: ${x.v}: ${x.r ? `${x.r.text.slice(0, 160)} (progress ${x.r.progress.join(',')})` : 'still pending'}`,
                  );
                }
                if (guarded && count('false-alarm') > 0) {
                  fails.push(
                    `FAIL ${label}, ${client}, polling ${poll ? 'on' : 'off'}: ${count('false-alarm')} false alarm(s) in ${verdicts.length} healthy calls (target 0)`,
                  );
                }
                if (count('gap-accepted') > 0) {
                  fails.push(
                    `FAIL ${label}, ${client}, polling ${poll ? 'on' : 'off'}: ${count('gap-accepted')} call(s) resolved with a gap or a repeat (target 0)`,
                  );
                }
              }
            }
          }
          const causes = new Map<string, number>();
          calls.forEach((c, i) => {
            const r = records[i];
            if (!c.guarded || (r && judge(c, r) !== 'false-alarm')) return;
            const cause = r ? causeOf(r.text) : 'still pending';
            causes.set(cause, (causes.get(cause) ?? 0) + 1);
          });
          if (causes.size > 0) {
            const list = [...causes].sort((a, b) => b[1] - a[1]);
            lines.push(
              `  guarded false alarms by cause: ${list.map(([k, n]) => `${k} ${n}`).join('; ')}`,
            );
          }
          const cuts = [rigs.hold.proxy.cuts, rigs.poll.proxy.cuts];
          const headers = [...rigs.hold.proxy.resumeHeadersMs, ...rigs.poll.proxy.resumeHeadersMs];
          lines.push(
            `  cuts: ${cuts[0]!.asked + cuts[1]!.asked} asked, ${cuts[0]!.landed + cuts[1]!.landed} found a call stream open (the others fell between a poll's end and its reconnect)`,
          );
          lines.push(
            `  resumes: ${headers.length}, the server's status line after p50 ${quantile(headers, 0.5).toFixed(0)} ms, p90 ${quantile(headers, 0.9).toFixed(0)} ms, max ${quantile(headers, 1).toFixed(0)} ms (at the proxy: the SDK server sends its headers after the whole replay)`,
          );

          // The failure set.
          log(`${label}: failure set`);
          const runs = await Promise.all(
            FAULTS.flatMap((fault) =>
              SDKS.flatMap((sdk) =>
                Array.from({ length: reps }, (_, i) =>
                  within(runFault(fault, sdk, rigs.hold, i), PHASE_MS, null as FaultRun | null),
                ),
              ),
            ),
          );
          lines.push(
            `${label}: failures (applied to the first resume of a call cut after 2 notifications; ${AFTER_CUT} more sent while cut), ms from the fault to the call's rejection`,
          );
          lines.push(
            `  ${pad('failure', 11)} ${pad('client', 8)} ${padL('calls', 5)} ${padL('rejected', 8)} ${padL('resolved', 8)} ${padL('max ms', 7)}  within P + ${SLACK_MS} ms`,
          );
          for (const fault of FAULTS) {
            for (const sdk of SDKS) {
              const rs = runs.filter(
                (r): r is FaultRun => r !== null && r.fault === fault && r.sdk === sdk,
              );
              const lost = reps - rs.length;
              const rejected = rs.filter((r) => !r.record.resolved);
              const times = rejected.map((r) => r.rejectMs ?? Infinity);
              const max = times.length ? Math.max(...times) : NaN;
              const ok = rejected.length === reps && max <= P + SLACK_MS;
              lines.push(
                `  ${pad(fault, 11)} ${pad(`${sdk}+guard`, 8)} ${padL(reps, 5)} ${padL(rejected.length, 8)} ${padL(rs.length - rejected.length, 8)} ${padL(Number.isFinite(max) ? max.toFixed(0) : 'n/a', 7)}  ${ok ? 'met' : 'not met'}`,
              );
              for (const r of rs) {
                log(
                  `${label} ${fault} ${sdk}: ${r.record.resolved ? 'RESOLVED' : 'rejected'} after ${r.rejectMs?.toFixed(0) ?? '(no resume)'} ms: ${r.record.text.slice(0, 160)}`,
                );
              }
              if (!ok) {
                const why =
                  lost > 0
                    ? `${lost} still pending after ${PHASE_MS} ms`
                    : rejected.length < reps
                      ? `${reps - rejected.length} of ${reps} resolved (a failure accepted)`
                      : `slowest rejection ${Number.isFinite(max) ? `${max.toFixed(0)} ms` : 'without a resume'}`;
                fails.push(
                  `FAIL ${label}, ${fault}, ${sdk}+guard: ${why} (target: every call rejected within P + ${SLACK_MS} = ${P + SLACK_MS} ms)`,
                );
              }
            }
          }
        } finally {
          await rigs.hold.close();
          await rigs.poll.close();
        }
      }
    } finally {
      redisClient?.destroy();
      if (redis.url !== null) await redis.stop();
    }
    lines.push('');
    if (fails.length === 0) {
      lines.push(
        'targets: 0 false alarms, 0 gaps accepted, every failure rejected within P + 100 ms: met',
      );
    } else {
      lines.push(
        `targets: 0 false alarms, 0 gaps accepted, every failure rejected within P + 100 ms: not met (${fails.length})`,
      );
      lines.push(...fails);
    }
    return lines;
  },
};
