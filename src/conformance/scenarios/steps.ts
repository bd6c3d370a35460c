/**
 * The steps the scenarios are made of: open a recorded call, cut it, resume it with
 * `Last-Event-ID`, keep reading, and judge what arrived against what was owed. Every wait is
 * bounded by `timeoutMs` / `idleMs`.
 */
import { RecordingClient, TraceRecorder, decodeData } from '../recording/recorder.js';
import { CallFollower } from '../recording/call-follower.js';
import type { SseStream } from '../recording/sse-client.js';
import { SERVE_CONTRACT_HINT, saysToolMissing, TOOL_NAME, type CountArgs } from '../tool.js';
import { describe, groundTruth, owed, verdictOf } from './truth.js';
import {
  bodyExcerpt,
  HarnessError,
  lacking,
  LeakError,
  NoAnswerError,
  type Delivered,
  type ImplementationAdapter,
  type ReconnectObservationRecord,
} from '../types.js';
import type { OpenCall, ScenarioContext, ScenarioRun } from './scenario.js';

/**
 * Milliseconds between the tool's messages outside the burst scenario: each message gets its
 * own millisecond, so that only `same-ms-burst` exercises same-millisecond ids.
 */
export const GAP = 2;

export const has = (tag: string, index: number | 'result') => (d: Delivered[]) =>
  d.some((x) => x.tag === tag && x.index === index);

export async function newClient(ctx: ScenarioContext): Promise<RecordingClient> {
  if (ctx.watch && ctx.watchers === undefined) {
    ctx.watchers = [];
    // The witness: a session that calls nothing. Whatever of a call lands there crossed sessions.
    const witness = new RecordingClient(ctx.url, ctx.timeoutMs);
    witness.requestedVersion = ctx.protocolVersion;
    await witness.initialize();
    await watchStandalone(ctx, witness, "the witness session's standalone stream");
  }
  const c = new RecordingClient(ctx.url, ctx.timeoutMs);
  c.requestedVersion = ctx.protocolVersion;
  ctx.clients.push(c);
  await c.initialize();
  if (ctx.watch)
    await watchStandalone(ctx, c, `standalone stream of session ${ctx.clients.length}`);
  return c;
}

/**
 * Opens `client`'s standalone GET stream for {@link ScenarioContext.watch}; a server without one
 * (405, no session) is fine: there is nothing to watch.
 */
export async function watchStandalone(
  ctx: ScenarioContext,
  client: RecordingClient,
  name: string,
): Promise<void> {
  if (client.sessionId === undefined) return;
  const answer = await client.get(null);
  if (answer.kind !== 'sse') return;
  ctx.streams.push(answer.stream);
  if (answer.stream.status !== 200) return answer.stream.abort();
  const follower = new CallFollower(new TraceRecorder(ctx.trace.codec));
  ctx.watchers!.push({ name, stream: answer.stream, follower, client });
}

/**
 * Calls the test tool and returns its SSE stream; anything else is a {@link HarnessError}
 * (status and body excerpt: the cell is `error`) or, without an answer in time, a
 * {@link NoAnswerError} (`hang`).
 */
export async function callStream(
  ctx: ScenarioContext,
  client: RecordingClient,
  args: CountArgs,
): Promise<SseStream> {
  const answer = await client.call(args);
  if (answer.kind === 'timeout') {
    throw new NoAnswerError(`tools/call: timeout, no answer in ${ctx.timeoutMs} ms`);
  }
  if (answer.kind === 'error') throw new HarnessError(`tools/call failed (${answer.message})`);
  if (answer.kind === 'json') {
    throw new HarnessError(
      `tools/call answered ${answer.status} instead of an SSE stream`,
      answer.status,
      bodyExcerpt(answer.body),
    );
  }
  ctx.streams.push(answer.stream);
  if (answer.stream.status !== 200) {
    answer.stream.abort();
    throw new HarnessError(
      `tools/call answered ${answer.stream.status} with an SSE stream`,
      answer.stream.status,
    );
  }
  return answer.stream;
}

/**
 * Where call `tag`'s messages went when they did not come on its own stream: every other open
 * call's stream is read (briefly, `idleMs`) and searched. Throws a {@link LeakError} naming
 * the stream (and whether it is another session's) when they are found there.
 */
export async function searchOtherStreams(
  ctx: ScenarioContext,
  own: OpenCall,
  upTo: number | 'result',
): Promise<void> {
  // Other sessions first: a message found there is the graver finding.
  const watchers = [...(ctx.watchers ?? [])].sort(
    (a, b) => Number(a.client === own.client) - Number(b.client === own.client),
  );
  for (const w of watchers) {
    await w.follower.read(w.stream, has(own.tag, upTo), ctx.idleMs, true);
    const found = w.follower.delivered.filter((d) => d.tag === own.tag);
    if (found.length === 0) continue;
    const cross = w.client !== own.client;
    const keys = found.map((d) => `${d.tag}#${d.index}`);
    const list =
      keys.length <= 6 ? keys.join(',') : `${keys.slice(0, 6).join(',')},…(${keys.length})`;
    throw new LeakError(
      `call ${own.tag}: ${list} arrived on ${w.name}${cross ? ', in another session' : ''}`,
      cross,
    );
  }
  for (const other of ctx.calls ?? []) {
    if (other === own) continue;
    await other.follower.read(other.stream, has(own.tag, upTo), ctx.idleMs, true);
    const found = other.follower.delivered.filter((d) => d.tag === own.tag);
    if (found.length === 0) continue;
    const cross = other.client !== own.client;
    const where = cross
      ? `call ${other.tag}'s stream, in another session`
      : `call ${other.tag}'s stream`;
    const list = found.map((d) => `${d.tag}#${d.index}`).join(',');
    throw new LeakError(`call ${own.tag}: ${list} arrived on ${where}`, cross);
  }
}

/** Opens a call and reads its stream until message `upTo` arrived. */
export async function openCall(
  ctx: ScenarioContext,
  client: RecordingClient,
  follower: CallFollower,
  args: CountArgs,
  upTo: number,
): Promise<SseStream> {
  const stream = await callStream(ctx, client, args);
  const call: OpenCall = { tag: args.tag, stream, follower, client };
  (ctx.calls ??= []).push(call);
  follower.open(stream.status);
  const stop = await follower.read(stream, has(args.tag, upTo), ctx.timeoutMs, true);
  if (stop === 'timeout') {
    // Ground truth looks at every stream the scenario holds, not only the one it waits on.
    await searchOtherStreams(ctx, call, upTo);
    throw new NoAnswerError(`call ${args.tag}: message ${upTo} never came (stream silent)`);
  }
  if (stop !== 'matched') {
    // The server's own answer, when it gave one, says more than "the stream ended".
    const said = follower.errors.at(-1);
    if (said !== undefined) {
      const hint = saysToolMissing(said, TOOL_NAME) ? `; ${SERVE_CONTRACT_HINT}` : '';
      throw new HarnessError(
        `call ${args.tag}: the server answered the call of ${TOOL_NAME} with ${said}${hint}`,
      );
    }
    await searchOtherStreams(ctx, call, upTo);
    throw new HarnessError(`call ${args.tag}: the stream ended (${stop}) before message ${upTo}`);
  }
  return stream;
}

/**
 * The usual opening of a scenario: call `tag` with `n` messages, 2 ms apart, held before
 * message 4 and before the result, and read it to message 3 (the cursor).
 */
export function openHeldCall(
  ctx: ScenarioContext,
  client: RecordingClient,
  follower: CallFollower,
  tag: string,
  n: number,
): Promise<SseStream> {
  return openCall(ctx, client, follower, { tag, n, holds: [4, n + 1], gapMs: GAP }, 3);
}

/**
 * Milliseconds the harness lets the server notice a client-side disconnect before it
 * reconnects. Without it, servers whose store has `getStreamIdForEventId` race the SDK's 409
 * conflict check; `stale-connection` measures that case on purpose, deterministically.
 */
export const SETTLE_MS = 50;

/** Back-off before the one retry of a resume answered 409 (the SDK client's first delay is 1 s). */
export const CONFLICT_RETRY_MS = 150;

/** Client-side disconnect: the trace records it, the connection is cut, the server notices. */
export async function disconnect(follower: CallFollower, stream: SseStream): Promise<void> {
  stream.abort();
  follower.trace.write({ type: 'disconnect' });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
}

/**
 * Where most resume scenarios start: a new session whose call (`A`, `n` = 6 messages, held
 * before 4 and before the result) was read to message 3 and then cut by the client.
 */
export async function cutAfterThree(ctx: ScenarioContext) {
  const A = ctx.tag('A');
  const client = await newClient(ctx);
  const f = new CallFollower(ctx.trace);
  const n = 6;
  const s = await openHeldCall(ctx, client, f, A, n);
  const cursor = f.cursor;
  await disconnect(f, s);
  return { A, n, client, f, cursor };
}

/**
 * Reconnects with `cursor` and reads the answer: records `reconnect`, then `response` (with the
 * floor of an in-band replay acknowledgment if the stream starts with one), then the stream,
 * until `until` holds or the stream ends or stays silent for `idleMs`. `onAnswer` is called
 * once the first GET has its answer (headers, an error or a timeout), before it is read.
 */
export async function resume(
  ctx: ScenarioContext,
  client: RecordingClient,
  follower: CallFollower,
  cursor: string | null,
  until: (d: Delivered[]) => boolean,
  sessionId?: string,
  onAnswer?: () => void,
): Promise<{ rec: ReconnectObservationRecord; stream?: SseStream }> {
  const trace = follower.trace;
  // A GET without a cursor asks for the session's standalone stream, which the harness's own
  // watcher holds (ctx.watch): a server that allows one per session would answer 409 to the
  // harness itself, a refusal of its own making. The watcher goes first (issue 38).
  const mine = cursor === null ? (ctx.watchers ?? []).filter((w) => w.client === client) : [];
  if (mine.length > 0) {
    for (const w of mine) w.stream.abort();
    ctx.watchers = ctx.watchers!.filter((w) => w.client !== client);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
  }
  trace.write({ type: 'reconnect', ...trace.cursorFields(cursor) });
  let answer = await client.get(cursor, sessionId ?? client.sessionId);
  onAnswer?.();
  if (answer.kind === 'json' && answer.status === 409) {
    // The server still holds the old connection (it has not noticed the cut yet). A client
    // backs off and tries again, as the SDK's does; a second 409 stands (stale-connection).
    trace.write({ type: 'response', status: 409 });
    await new Promise((r) => setTimeout(r, CONFLICT_RETRY_MS));
    trace.write({ type: 'reconnect', ...trace.cursorFields(cursor) });
    answer = await client.get(cursor, sessionId ?? client.sessionId);
  }
  const delivered: Delivered[] = [];
  if (answer.kind === 'error' && answer.redirect !== undefined) {
    throw new HarnessError(`the resume (GET) ${answer.message}`);
  }
  if (answer.kind === 'timeout' || answer.kind === 'error') {
    trace.write({ type: 'disconnect' });
    const ending = answer.kind;
    return { rec: { cursor, status: null, ending, delivered } };
  }
  if (answer.kind === 'json') {
    trace.write({ type: 'response', status: answer.status });
    return { rec: { cursor, status: answer.status, ending: 'not-read', delivered } };
  }
  const stream = answer.stream;
  ctx.streams.push(stream);
  if (stream.status !== 200) {
    trace.write({ type: 'response', status: stream.status });
    stream.abort();
    return { rec: { cursor, status: stream.status, ending: 'not-read', delivered } };
  }
  // The response line waits for the first item: an in-band acknowledgment declares the floor.
  let first = await stream.next(ctx.idleMs);
  const firstDeadline = Date.now() + ctx.idleMs;
  while (first.kind === 'comment' || first.kind === 'retry') {
    if (first.kind === 'comment') trace.write({ type: 'keepalive' });
    first = await stream.next(Math.max(1, firstDeadline - Date.now()));
  }
  if (first.kind === 'event' && !first.id) {
    const d = decodeData(first.data);
    if (d.kind === 'ack') {
      trace.write({ type: 'response', status: 200, floor: d.ack.params.floor });
    } else {
      trace.write({ type: 'response', status: 200 });
      follower.record(first, false, delivered);
    }
  } else {
    trace.write({ type: 'response', status: 200 });
    if (first.kind === 'end') {
      trace.write({ type: 'end' });
      return { rec: { cursor, status: 200, ending: 'end', delivered }, stream };
    }
    if (first.kind === 'timeout') {
      trace.write({ type: 'idle-timeout' });
      return { rec: { cursor, status: 200, ending: 'timeout', delivered }, stream };
    }
    if (first.kind === 'error') {
      trace.write({ type: 'disconnect' });
      return { rec: { cursor, status: 200, ending: 'error', delivered }, stream };
    }
    follower.record(first, false, delivered);
  }
  const stop = await follower.read(stream, until, ctx.idleMs, false, delivered);
  const ending = stop === 'matched' ? 'complete' : stop;
  return { rec: { cursor, status: 200, ending, delivered }, stream };
}

/** Continues reading an already resumed stream into the same record. */
export async function keepReading(
  ctx: ScenarioContext,
  follower: CallFollower,
  r: { rec: ReconnectObservationRecord; stream?: SseStream },
  until: (d: Delivered[]) => boolean,
): Promise<void> {
  if (!r.stream || r.rec.ending === 'end' || r.rec.ending === 'error') return;
  const stop = await follower.read(r.stream, until, ctx.idleMs, false, r.rec.delivered);
  r.rec.ending = stop === 'matched' ? 'complete' : stop;
}

export function judge(
  rec: ReconnectObservationRecord,
  expected: Delivered[],
  own: string[],
  reconnects = [rec],
): ScenarioRun {
  const truth = groundTruth(expected, rec.delivered, new Set(own));
  return { reconnects, truth, verdict: verdictOf(rec, truth), observed: describe(rec, truth) };
}

export const needsEviction = (a: ImplementationAdapter) => lacking(a, 'evict');

/** The shape of a single-call scenario. */
export interface SingleCall {
  /** Messages of the call. */
  n: number;
  /** The client cuts the connection after this message. */
  cutAfter: number;
  /** The server emits up to this message while the client is away. */
  awayUpTo: number;
  /** Hold the tool right after the cut (off for a back-to-back burst). */
  holdAtCut?: boolean;
  /** Milliseconds between messages. */
  gapMs?: number;
  /** What happens to the server while the client is away (restart, eviction). */
  meanwhile?: () => Promise<void>;
}

/**
 * One call: read to `cutAfter`, cut, let the server emit up to `awayUpTo` (holding after it),
 * apply `meanwhile`, resume from the cursor, release the rest and read to the result.
 */
export async function singleCallResume(ctx: ScenarioContext, o: SingleCall): Promise<ScenarioRun> {
  const A = ctx.tag('A');
  const client = await newClient(ctx);
  const f = new CallFollower(ctx.trace);
  const holdAtCut = o.holdAtCut ?? true;
  const holds = [...(holdAtCut ? [o.cutAfter + 1] : []), o.awayUpTo + 1];
  const args = { tag: A, n: o.n, holds, ...(o.gapMs ? { gapMs: o.gapMs } : {}) };
  const s = await openCall(ctx, client, f, args, o.cutAfter);
  const cursor = f.cursor;
  await disconnect(f, s);
  if (o.awayUpTo > o.cutAfter) {
    if (holdAtCut) await ctx.control.release(A, o.cutAfter + 1);
    await ctx.control.waitEmitted(A, o.awayUpTo, ctx.timeoutMs);
  }
  await o.meanwhile?.();
  const upTo = o.awayUpTo > o.cutAfter ? o.awayUpTo : 'result';
  const r = await resume(ctx, client, f, cursor, has(A, upTo));
  await ctx.control.releaseAll();
  await keepReading(ctx, f, r, has(A, 'result'));
  return judge(r.rec, owed(A, o.cutAfter, o.n), [A]);
}

/**
 * Pings the server on session `sessionId` (one it cannot know), as `like` speaks: `undefined`
 * when it is answered 404 (or not at all: other cells judge that), else the finding in words.
 * Only a 404 makes a client re-initialize; a 400 makes it fail the call (issue 38).
 */
export async function unknownSessionFinding(
  ctx: ScenarioContext,
  like: RecordingClient,
  sessionId: string,
  what: string,
): Promise<string | undefined> {
  const probe = new RecordingClient(ctx.url, ctx.timeoutMs);
  probe.requestedVersion = like.requestedVersion;
  if (like.negotiatedVersion !== undefined) probe.negotiatedVersion = like.negotiatedVersion;
  probe.sessionId = sessionId;
  const answer = await probe.ping();
  if (answer.kind === 'sse') answer.stream.abort();
  const status =
    answer.kind === 'json' ? answer.status : answer.kind === 'sse' ? answer.stream.status : null;
  if (status === null || status === 404) return undefined;
  return status === 200
    ? `${what} was answered 200 (ping): a server that cannot know a session must answer 404, ` +
        'so that the client re-initializes'
    : `${what} was answered ${status} (ping), not 404: only a 404 makes a client ` +
        're-initialize (a 400 makes it fail the call)';
}
