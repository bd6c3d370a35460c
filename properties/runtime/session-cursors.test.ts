/**
 * The guard's cursor indexes per session (src/runtime/session-cursors.ts): a `Last-Event-ID` is
 * looked up among the streams of its own session (MCP makes event ids unique within a session
 * only, R3-1), and a session's index lives exactly while the guard follows a stream of it, so a
 * guard serving many sessions holds no index of a session it no longer follows. Unit tests of
 * the class, in the runtime's fast mutation selection (the loopback suite session-guard.test.ts
 * holds R3-1 through real SDK clients).
 */
import { describe, expect, test } from 'vitest';
import type { Track } from '../../src/runtime/guard-track.js';
import { SessionCursors } from '../../src/runtime/session-cursors.js';
import { GuardCore } from '../../src/runtime/guard-core.js';
import { GuardRequests } from '../../src/runtime/guard-requests.js';
import { guardOver } from '../../src/runtime/continuity-guard.js';

/** A stream as the index sees it: only its last delivered id. */
const stream = () => ({ lastId: null }) as unknown as Track;

describe('session cursors', () => {
  test("an id is found among its own session's streams only", () => {
    const sessions = new SessionCursors();
    const a = stream();
    const b = stream();
    sessions.enter('A').remember(a, '5');
    sessions.enter('B').remember(b, '7');
    expect(sessions.holding('A', '5')).toBe(a);
    expect(sessions.holding('B', '7')).toBe(b);
    // The same id in another session is not it, and a session never entered holds nothing.
    expect(sessions.holding('B', '5')).toBeUndefined();
    expect(sessions.holding('A', '7')).toBeUndefined();
    expect(sessions.holding('C', '5')).toBeUndefined();
  });

  test("the streams of one session share its index; it goes with the session's last stream", () => {
    const sessions = new SessionCursors();
    const first = sessions.enter('A');
    expect(sessions.enter('A')).toBe(first);
    expect(sessions.enter('B')).not.toBe(first);
    const a = stream();
    first.remember(a, '5');
    // One of A's two streams is freed: the index stays, with what it holds.
    sessions.leave('A');
    expect(sessions.holding('A', '5')).toBe(a);
    expect(sessions.enter('A')).toBe(first);
    // Two streams follow A again; both are freed: the index goes, and a new stream of A starts
    // a new one.
    sessions.leave('A');
    sessions.leave('A');
    expect(sessions.holding('A', '5')).toBeUndefined();
    const again = sessions.enter('A');
    expect(again).not.toBe(first);
    expect(again.holding('5')).toBeUndefined();
    // B's stream was never freed: its index is still there.
    const b = stream();
    sessions.enter('B').remember(b, '5');
    expect(sessions.holding('B', '5')).toBe(b);
  });

  test('freeing a stream of a session it does not follow changes nothing', () => {
    const sessions = new SessionCursors();
    const a = stream();
    sessions.enter('A').remember(a, '5');
    expect(() => sessions.leave('B')).not.toThrow();
    expect(sessions.holding('A', '5')).toBe(a);
  });
});

describe("the guard's sessions: an index lives while the guard follows a stream of its session", () => {
  /** Session cursors that say whether they hold a session's index. */
  class Counted extends SessionCursors {
    live(scope: string): boolean {
      return (this as unknown as { sessions: Map<string, unknown> }).sessions.has(scope);
    }
  }
  /** The guard's own core, with its session cursors in view (made by its constructor). */
  let counted: Counted | undefined;
  class CountingCore extends GuardCore {
    protected override sessionCursors(): SessionCursors {
      counted = new Counted();
      return counted;
    }
  }

  test('a call whose response arrived leaves no index behind; one still followed keeps its own', async () => {
    const body = (done: boolean) =>
      'id: 1\ndata: {"n":1}\n\n' +
      (done ? 'id: 2\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n\n' : '');
    let n = 0;
    const core = new CountingCore({ endCalls: 'error' });
    const f = guardOver(
      core,
      new GuardRequests(
        core,
        (async () =>
          new Response(body(n++ === 0), {
            headers: { 'content-type': 'text/event-stream' },
          })) as typeof fetch,
      ),
    );
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
    const post = (sid: string) =>
      f('http://127.0.0.1:9/mcp', {
        method: 'POST',
        body: call,
        headers: { 'mcp-session-id': sid },
      });
    await (await post('A')).text();
    expect(counted!.live('http://127.0.0.1:9/mcp\nA')).toBe(false);
    await (await post('B')).text();
    // B's stream ended without its response: followed (a reconnect may come), its index kept.
    expect(counted!.live('http://127.0.0.1:9/mcp\nB')).toBe(true);
  });
});
