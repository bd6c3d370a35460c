/**
 * docs/stores.md's recipe for serving a task's stream from every instance runs as it stands:
 * the block after `<!-- recipe: task-stream-across-instances -->` is extracted, its
 * `mcp-resumption/*` imports pointed at the sources, and its functions called: two instances
 * (two `serveFetch` hosts on 127.0.0.1) over one redis-server of the test's own, a task written
 * on A, read on A and resumed on B while A goes on writing. An edit that breaks the recipe fails
 * here.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { findRedisServer } from '../../src/conformance/adapters/redis-server.js';
import { serveFetch } from '../../src/conformance/fetch-host.js';
import type { RedisTaskEventLog } from '../../src/redis/index.js';
import { crashableRedis, PERSISTENCE } from '../support/redis-crash.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TMP = `${ROOT}properties/.api-examples/`;

interface Recipe {
  instance(url: string): Promise<{
    log: RedisTaskEventLog;
    handle: (request: Request) => Promise<Response>;
    close(): Promise<unknown>;
  }>;
  readAcross(urlA: string, urlB: string, taskId: string, first: number): Promise<number[]>;
}

let recipe: Recipe;
beforeAll(async () => {
  const page = await readFile(`${ROOT}docs/stores.md`, 'utf8');
  const m = /<!-- recipe: task-stream-across-instances -->\s*```ts\n([\s\S]*?)```/.exec(page);
  expect(m, 'docs/stores.md keeps its recipe block').not.toBeNull();
  const code = m![1]!
    .replace(/from 'mcp-resumption\/runtime'/g, `from '../../src/runtime/index.js'`)
    .replace(/from 'mcp-resumption\/redis'/g, `from '../../src/redis/index.js'`);
  await mkdir(TMP, { recursive: true });
  await writeFile(`${TMP}recipe-task-stream-across-instances.ts`, code);
  recipe = (await import(`${TMP}recipe-task-stream-across-instances.ts`)) as Recipe;
});

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
});

describe.skipIf(findRedisServer() === null)('the task-stream recipe of docs/stores.md', () => {
  test('written on A, read on A, resumed on B while A writes on: every seq once, in order', async () => {
    const redis = await crashableRedis(PERSISTENCE[0]!);
    cleanup.push(() => redis.stop());
    const a = await recipe.instance(redis.url);
    cleanup.push(() => a.close());
    const b = await recipe.instance(redis.url);
    cleanup.push(() => b.close());
    const hostA = await serveFetch(a.handle);
    cleanup.push(() => hostA.close());
    const hostB = await serveFetch(b.handle);
    cleanup.push(() => hostB.close());
    const taskId = await a.log.createTask();
    for (let i = 0; i < 4; i++) await a.log.append(taskId, 'com.example.step', { i });
    const writer = (async () => {
      for (let i = 4; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 30));
        await a.log.append(taskId, 'com.example.step', { i });
      }
      await a.log.complete(taskId);
    })();
    let timer: NodeJS.Timeout | undefined;
    const seqs = await Promise.race([
      recipe.readAcross(hostA.url, hostB.url, taskId, 2),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the recipe did not end within 15 s')), 15_000);
      }),
    ]).finally(() => clearTimeout(timer));
    await writer;
    expect(seqs).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
