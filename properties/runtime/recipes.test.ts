/**
 * docs/runtime.md's recipe for the two outcomes of a failed resumption (re-issue a call that
 * may run twice, surface a partial result for one that may not) runs as it stands: the block
 * after `<!-- recipe: reissue-or-surface -->` is extracted, its `mcp-resumption/runtime` import
 * pointed at the sources, and its functions called against loopback servers whose resume skips
 * or whose session is lost. An edit that breaks the recipe fails here.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { settlementOf } from '../../src/runtime/call-settlement.js';
import { reissueOnce, StreamResumptionError } from '../../src/runtime/index.js';
import { callServer, type CallServer } from './call-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TMP = `${ROOT}properties/.api-examples/`;

interface Recipe {
  search(url: URL, query: string): Promise<unknown>;
  deploy(url: URL): Promise<{ complete: boolean; outcome?: string; lastDelivered?: string | null }>;
}

let recipe: Recipe;
beforeAll(async () => {
  const page = await readFile(`${ROOT}docs/runtime.md`, 'utf8');
  const m = /<!-- recipe: reissue-or-surface -->\s*```ts\n([\s\S]*?)```/.exec(page);
  expect(m, 'docs/runtime.md keeps its recipe block').not.toBeNull();
  const code = m![1]!.replace(
    /from 'mcp-resumption\/runtime'/g,
    `from '../../src/runtime/index.js'`,
  );
  await mkdir(TMP, { recursive: true });
  await writeFile(`${TMP}recipe-reissue-or-surface.ts`, code);
  recipe = (await import(`${TMP}recipe-reissue-or-surface.ts`)) as Recipe;
});

const running: CallServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
});
async function serve(...args: Parameters<typeof callServer>) {
  const s = await callServer(...args);
  running.push(s);
  return s;
}
const calls = (s: CallServer) => s.seen.filter((x) => x.rpc === 'tools/call');
const inits = (s: CallServer) => s.seen.filter((x) => x.rpc === 'initialize');

describe('the recipe of docs/runtime.md', () => {
  test('an idempotent call whose resume skips is re-issued once, as a new request with a new id', async () => {
    const s = await serve({ resume: 'skip', again: 'answer' });
    await expect(recipe.search(new URL(s.url), 'q')).resolves.toMatchObject({ content: [] });
    const [first, second] = calls(s);
    expect(calls(s)).toHaveLength(2);
    expect(second!.id).not.toEqual(first!.id);
    expect(inits(s)).toHaveLength(1);
  });

  test('after session-lost it is re-issued under a new session', async () => {
    const s = await serve({ resume: '404', again: 'answer' });
    await expect(recipe.search(new URL(s.url), 'q')).resolves.toMatchObject({ content: [] });
    expect(calls(s)).toHaveLength(2);
    expect(inits(s)).toHaveLength(2);
  });

  test('a second failure is not re-issued again: the call rejects with the failure', async () => {
    const s = await serve({ resume: 'skip' });
    const e = await recipe.search(new URL(s.url), 'q').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StreamResumptionError);
    expect(e).toMatchObject({ outcome: 'resumption-failed', code: 'skip' });
    expect(calls(s)).toHaveLength(2);
  });

  test('a call with side effects is never re-issued: its failure is a partial result', async () => {
    const s = await serve({ resume: 'skip', again: 'answer' });
    await expect(recipe.deploy(new URL(s.url))).resolves.toEqual({
      complete: false,
      outcome: 'resumption-failed',
      reason: 'replay gap: expected event id 3, got 5; silent skip of 2 event(s)',
      lastDelivered: '2',
    });
    expect(calls(s)).toHaveLength(1);
  });
});

describe('reissueOnce', () => {
  /** What a call rejects with for the guard's own session-lost settlement (sealed). */
  const failure = () =>
    Object.assign(
      new Error('x'),
      settlementOf(
        new StreamResumptionError('gone', 'session-gone', 'session-lost', {
          requestId: 3,
          method: 'tools/call',
          request: null,
          stream: null,
          cursor: '2',
          lastDelivered: '2',
        }),
      ).error as object,
    );

  test('a non-idempotent call, or session-lost without newSession, is surfaced, not re-issued', async () => {
    let n = 0;
    const call = async () => {
      n++;
      throw failure();
    };
    await expect(reissueOnce(call, { idempotent: false })).rejects.toMatchObject({
      outcome: 'session-lost',
      call: { requestId: 3, method: 'tools/call' },
    });
    await expect(reissueOnce(call, { idempotent: true })).rejects.toBeInstanceOf(
      StreamResumptionError,
    );
    expect(n).toBe(2);
  });

  test('any other error passes through as it is, and is never re-issued', async () => {
    let n = 0;
    const own = new Error('the tool failed');
    await expect(
      reissueOnce(
        async () => {
          n++;
          throw own;
        },
        { idempotent: true },
      ),
    ).rejects.toBe(own);
    expect(n).toBe(1);
  });
});
