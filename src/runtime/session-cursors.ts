/**
 * The guard's cursor indexes, one per session (guard-wire.ts `scopeOf`: the endpoint and the
 * `Mcp-Session-Id`). MCP makes event ids unique within a session only, so a `Last-Event-ID` is
 * looked up among the streams of its own session, and one guard can serve any number of
 * sessions and servers (R3-1). A session's index lives while the guard follows a stream of it.
 */
import { CursorIndex } from './cursor-index.js';

/** See the module comment. */
export class SessionCursors {
  private readonly sessions = new Map<string, { cursors: CursorIndex; tracks: number }>();

  /** A stream of session `scope` is followed: the session's index (made on its first one). */
  enter(scope: string): CursorIndex {
    let entry = this.sessions.get(scope);
    if (!entry) {
      entry = { cursors: this.newIndex(), tracks: 0 };
      this.sessions.set(scope, entry);
    }
    entry.tracks++;
    return entry.cursors;
  }

  /** A new session's index. */
  protected newIndex(): CursorIndex {
    return new CursorIndex();
  }

  /** A stream of session `scope` was freed: the session's index goes with its last stream. */
  leave(scope: string): void {
    const entry = this.sessions.get(scope);
    if (entry && --entry.tracks === 0) this.sessions.delete(scope);
  }

  /** The stream of session `scope` whose last delivered id is `lastEventId` (`undefined`: none). */
  holding(scope: string, lastEventId: string): ReturnType<CursorIndex['holding']> {
    return this.sessions.get(scope)?.cursors.holding(lastEventId);
  }
}
