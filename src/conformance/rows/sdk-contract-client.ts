/**
 * The SDK clients as contract clients (docs/conformance.md, "Test your own client"), so that the
 * built-in SDK client rows run through the same path as any client (`conformance --client-cmd`):
 *
 *   node sdk-contract-client.js v1|v2 [--guard]
 *
 * It connects `@modelcontextprotocol/sdk` (v1) or `@modelcontextprotocol/client` (v2) to
 * `$MCP_URL`, calls `count` once with a progress callback, prints every progress message and
 * the result as JSON lines, and an error it was told about as `{"error": …}`. With `--guard`
 * the transport's fetch is wrapped in `continuityGuard` (ids `c<k>-<seq>`), and a
 * `StreamResumptionError` fails the call at once. The SDK packages are devDependencies: in an
 * installed package without them, the rows say so.
 */
import { fileURLToPath } from 'node:url';
import { continuityGuard, idReaderFromPattern } from '../../runtime/continuity-guard.js';
import { HOSTILE_ID_PATTERN } from '../hostile-wire.js';
import type { ClientCommandRow } from './client-command.js';

const emit = (v: unknown) => process.stdout.write(JSON.stringify(v) + '\n');

interface CallableClient {
  connect(transport: unknown): Promise<void>;
  callTool(...args: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

async function main(argv: string[]): Promise<number> {
  const kind = argv[0];
  const guard = argv.includes('--guard');
  const url = process.env['MCP_URL'];
  if ((kind !== 'v1' && kind !== 'v2') || !url) {
    process.stderr.write('usage: MCP_URL=… sdk-contract-client v1|v2 [--guard]\n');
    return 2;
  }
  const abort = new AbortController();
  const fetchFn = guard
    ? continuityGuard(fetch, {
        readId: idReaderFromPattern(HOSTILE_ID_PATTERN),
        // A budget well inside the kit's client timeout (10 s): a resume that proves nothing
        // ends the call within it.
        proofTimeoutMs: 3_000,
        onFailure: (e) => abort.abort(e),
      })
    : fetch;
  let client: CallableClient;
  let transport: unknown;
  const info = { name: 'sdk-contract-client', version: '1' };
  if (kind === 'v1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } =
      await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    transport = new StreamableHTTPClientTransport(new URL(url), { fetch: fetchFn });
    client = new Client(info) as unknown as CallableClient;
  } else {
    const m = await import('@modelcontextprotocol/client');
    transport = new m.StreamableHTTPClientTransport(new URL(url), { fetch: fetchFn });
    client = new m.Client(info) as unknown as CallableClient;
  }
  await client.connect(transport);
  const options = {
    signal: abort.signal,
    onprogress: (p: unknown) => emit(p),
  };
  const params = { name: 'count', arguments: {} };
  const result =
    kind === 'v1'
      ? await client.callTool(params, undefined, options)
      : await client.callTool(params, options);
  emit(result);
  await client.close().catch(() => {});
  return 0;
}

/**
 * The built-in SDK client rows as commands: v1 and v2, bare and guarded. The command runs the
 * compiled script (from a clone, after `npm run build`).
 */
export function sdkClientRows(): ClientCommandRow[] {
  const here = fileURLToPath(import.meta.url);
  const script = here.endsWith('.ts')
    ? fileURLToPath(
        new URL('../../../dist/src/conformance/rows/sdk-contract-client.js', import.meta.url),
      )
    : here;
  const node = JSON.stringify(process.execPath);
  const file = JSON.stringify(script);
  return [
    { name: 'sdk-client-v1', cmd: `${node} ${file} v1` },
    { name: 'sdk-client-v1+guard', cmd: `${node} ${file} v1 --guard` },
    { name: 'sdk-client-v2', cmd: `${node} ${file} v2` },
    { name: 'sdk-client-v2+guard', cmd: `${node} ${file} v2 --guard` },
  ];
}

const entry = process.argv[1];
if (entry !== undefined && fileURLToPath(import.meta.url) === entry) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      emit({ error: message.split('\n')[0] });
      process.exit(1);
    },
  );
}
