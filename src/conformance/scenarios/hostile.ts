/**
 * The hostile server's scenarios (`serve`, `conformance --client-cmd`): the fault each plays,
 * and what a right client does there, the verdict a client is judged against.
 */

/** What the right client does in a scenario: deliver the whole call, or surface an error. */
export type Expectation = 'deliver' | 'surface';

/** One fault the hostile server plays. */
export interface HostileScenario {
  name: string;
  /** One line: what the server does. */
  does: string;
  /** One line: what a right client does. */
  right: string;
  expect: Expectation;
}

/** The scenarios `serve` and `conformance --client-cmd` play, in order. */
export const HOSTILE_SCENARIOS: readonly HostileScenario[] = [
  {
    name: 'honest',
    does: 'no fault: 8 progress messages, then the result, on the call stream',
    right: 'deliver 1..8 and the result, surface nothing',
    expect: 'deliver',
  },
  {
    name: 'cut-resume',
    does: 'cuts the connection after message 5; a GET with Last-Event-ID replays exactly what followed',
    right: 'reconnect with Last-Event-ID c1-5 and deliver 6..8 and the result',
    expect: 'deliver',
  },
  {
    name: 'skip',
    does: 'cuts after message 5; the resume is answered 200 with the result alone (6..8 skipped)',
    right: 'refuse the resumed stream (its first id is not c1-6) and surface an error',
    expect: 'surface',
  },
  {
    name: 'empty-200',
    does: 'cuts after message 5; the resume is answered 200 and then only keepalives, for ever',
    right: 'surface an error within a bound: a 200 proves nothing',
    expect: 'surface',
  },
  {
    name: 'eviction',
    does: 'cuts after message 5; the resume is answered 409: the cursor was evicted',
    right: 'surface an error at once (no retry loop)',
    expect: 'surface',
  },
  {
    name: 'restart-404',
    does: 'cuts after message 5 and "restarts": the session is gone (404 to the resume)',
    right: 'surface an error, or re-initialize and re-issue the call',
    expect: 'surface',
  },
  {
    name: 'upgraded-mid-call',
    does:
      'cuts after message 5 and comes back as a 2026-07-28 server: 405 to every GET, ' +
      'Last-Event-ID ignored, no ids',
    right: 'surface an error, or re-issue the call (2026-07-28: re-issue on a broken stream)',
    expect: 'surface',
  },
  {
    name: 'polling-close',
    does: 'sends retry: 200 with the priming event and closes the stream cleanly after message 5',
    right: 'reconnect after about 200 ms with Last-Event-ID c1-5 and deliver 6..8 and the result',
    expect: 'deliver',
  },
  {
    name: 'keepalive-stall',
    does: 'after message 3, only keepalive comments for 2 s, then 4..8 and the result',
    right: 'wait (keepalives are arriving) and deliver everything; no error, no reconnect',
    expect: 'deliver',
  },
  {
    name: 'id-only-blocks',
    does:
      'after message 5 an id-only block (id c1-6, no data), then cuts; replays after ' +
      'either cursor (c1-5 or c1-6)',
    right: 'reconnect with c1-6 (WHATWG) or c1-5 (a parser that drops the block) and deliver all',
    expect: 'deliver',
  },
  {
    name: 'retry-storm',
    does:
      'closes after message 5 with retry: 1000000000000; every resume is 200, empty and ' +
      'closed at once, with the same retry',
    right:
      'cap the retry (Node clamps such a delay to 1 ms: a tight loop) and surface an error ' +
      'within a bound',
    expect: 'surface',
  },
  {
    name: 'cross-stream',
    does: "cuts after message 5; the resume is answered 200 with another stream's events (x9-6 ...)",
    right: 'refuse events of another stream and surface an error',
    expect: 'surface',
  },
];

/** The scenario named `name`, or `undefined`. */
export function hostileScenario(name: string): HostileScenario | undefined {
  return HOSTILE_SCENARIOS.find((s) => s.name === name);
}
