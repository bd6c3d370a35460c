/**
 * The words of the terminal report a user of an MCP server cannot know from the protocol alone,
 * defined once, printed with the tables (properties/conformance/plain-words.test.ts checks that
 * a real run's report uses no internal term and defines every mark it uses).
 */
export const TEXT_LEGEND: readonly string[] = [
  'how to read it:',
  '  cell       one scenario run against one implementation (row × scenario); its verdict comes',
  '             from what really reached the client, which the harness knows because it wrote',
  '             every message the tool sent',
  '  ⚠          security finding: messages of another session were replayed',
  "  †          the trace check disagrees with the verdict; the cell's line below says why",
  '  observed   "6/6 owed arrived": of the messages the server owed after the Last-Event-ID,',
  '             how many arrived; "A#4": message 4 of call A; "lost": owed and never',
  '             delivered; "foreign": delivered, but from another stream or session',
  '  oracle     the trace check (what `mcp-resumption check` concludes from the recorded trace,',
  '             seeing only what a client sees), per reconnect: resumed (proven to continue',
  '             where it left off), delayed (not proven yet), resumption-failed, session-lost;',
  '             "agrees" when it matches the verdict; a "break" is a gap it found within one',
  '             stream, a "cursor ahead" a Last-Event-ID beyond what had arrived',
];
