/** What travels from the server to the client on one SSE connection. */

/** An SSE event with an id: one numbered event of a stream. */
export interface EventFrame {
  k: 'event';
  /** Sequence number within its stream. */
  id: number;
  /** The stream the id belongs to (ids name their stream). */
  stream: string;
  /** The session epoch it was emitted under. */
  epoch: string;
  /** Virtual time at which the tool emitted it. */
  emittedAt: number;
  /** `true` for the tool's terminal result. */
  result: boolean;
  /** `true` for a priming event: an id with empty data, stored like any event. */
  priming?: boolean;
}

/** An SSE comment (`: keepalive`): bytes without an id. */
export interface KeepaliveFrame {
  k: 'keepalive';
}

/** The server ends the stream. */
export interface EndFrame {
  k: 'end';
}

/** Any frame. */
export type Frame = EventFrame | KeepaliveFrame | EndFrame;

/** A frame waiting in the server's writer, with the time it started waiting. */
export interface QueuedFrame {
  frame: Frame;
  queuedAt: number;
}

/** The shared keepalive frame (frames are never mutated). */
export const KEEPALIVE: KeepaliveFrame = { k: 'keepalive' };

/** The shared end frame. */
export const END: EndFrame = { k: 'end' };

/** The tool's stream and the other stream of the same session. */
export const TOOL_STREAM = 'tool';

/** Another stream of the session (a second request), whose events must never reach the tool's. */
export const OTHER_STREAM = 'other';
