/**
 * `mcp-resumption serve --scenario NAME [--port P]`: a hostile MCP server on loopback that plays
 * one of the kit's faults against any client, in any language. It prints its URL, and on exit
 * (SIGINT, SIGTERM, or `--for MS`) what it saw the client do.
 */
import {
  intOption,
  msOption,
  parseCommandArgs,
  UsageError,
  type Command,
  type CommandIO,
} from './cli-kit.js';

const HELP = `Usage: mcp-resumption serve --scenario NAME [--port P] [--for MS] [--json]
       mcp-resumption serve --list [--json]

Starts a hostile MCP Streamable HTTP server on 127.0.0.1 that plays one fault against whatever
client calls its tool "count" (8 progress messages, then the result). Point your client at the
printed URL (one line on stdout: the URL), call count once, and stop the server (Ctrl-C,
SIGTERM, or --for): it then prints what it saw the client do: the calls of count (more than one:
a re-issued call), the reconnects and the cursors they sent (Last-Event-ID), GETs without the
cursor after the fault (a dropped cursor), the most GETs in one second in one session after the
fault (a retry storm); then one verdict line per client (session) that called count, judged
from the wire: what it was served, and whether it still waited when the server stopped. Where
only the client's own output can tell (did it surface an error?), the line names both verdicts
(for example "rejected or silent gap") and says which is which.

It keeps bounded state for a long life: the newest 4096 sessions (an older one gets 404), the
newest 64 call streams, the newest 1000 requests in --json's "requests"; the counts are whole.

Ids are c<k>-<seq>: call k, seq from 1 on that call's stream (0: the priming event); the
pattern is ^(?<stream>c\\d+)-(?<seq>\\d+)$.

Options:
  --scenario NAME   the fault to play (see --list)
  --port P          the port on 127.0.0.1 (default: a free one)
  --for MS          stop after MS milliseconds, at most 2147483647 (2^31-1) (default: run
                    until SIGINT or SIGTERM)
  --list            name each scenario, what the server does and what a right client does
  --json            the report (or the list) as one JSON object

To judge a client automatically, scenario by scenario: mcp-resumption conformance --client-cmd CMD.

Exit status: 0; 2 on bad input (an unknown scenario, a port in use).`;

function waitForStop(forMs: number | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      clearTimeout(timer);
      resolve();
    };
    const timer = forMs !== undefined ? setTimeout(done, forMs) : undefined;
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'a hostile MCP server on loopback that plays one fault against any client',
  help: HELP,
  async run(argv: string[], io: CommandIO) {
    const { values } = parseCommandArgs('serve', argv, {
      scenario: { type: 'string' },
      port: { type: 'string' },
      for: { type: 'string' },
      list: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const { HOSTILE_SCENARIOS, hostileScenario, startHostileServer } =
      await import('../conformance/hostile-server.js');
    const { describeActivity } = await import('../conformance/hostile-activity.js');
    if (values.list) {
      if (values.json) {
        io.out(JSON.stringify({ scenarios: HOSTILE_SCENARIOS }) + '\n');
      } else {
        for (const s of HOSTILE_SCENARIOS) {
          io.out(`${s.name}\n  server: ${s.does}\n  right client: ${s.right}\n`);
        }
      }
      return 0;
    }
    const name = values.scenario;
    if (typeof name !== 'string') {
      throw new UsageError('serve: --scenario NAME is required (see serve --list)');
    }
    const scenario = hostileScenario(name);
    if (!scenario) {
      throw new UsageError(
        `serve: unknown --scenario ${JSON.stringify(name)} (one of ${HOSTILE_SCENARIOS.map((s) => s.name).join(', ')})`,
      );
    }
    const port = intOption('port', values.port as string | undefined, 0);
    if (port > 65535) throw new UsageError('serve: --port must be in 0..65535');
    const forMs = values.for === undefined ? undefined : msOption('for', values.for as string, 0);
    let server;
    try {
      server = await startHostileServer(scenario, { port });
    } catch (e) {
      throw new UsageError(
        `serve: cannot listen on 127.0.0.1:${port} (${(e as Error).message.split('\n')[0]})`,
      );
    }
    io.out(`${server.url}\n`);
    io.err(`serve: ${scenario.name}: ${scenario.does}\nserve: right client: ${scenario.right}\n`);
    await waitForStop(forMs);
    const activity = server.activity();
    const clients = server.clients();
    await server.close();
    if (values.json) {
      io.out(
        JSON.stringify({
          scenario: scenario.name,
          url: server.url,
          activity,
          clients,
          requests: server.seen,
        }) + '\n',
      );
    } else {
      io.out(`saw: ${describeActivity(activity)}\n`);
      clients.forEach((c, i) => {
        io.out(`client ${i + 1} (session ${c.session.slice(0, 8)}): ${c.verdict}. ${c.observed}\n`);
      });
      if (clients.length === 0) io.out('no client called count\n');
    }
    return 0;
  },
};
