/**
 * The contract tools for servers `registerContractTools` cannot reach (issue 38): a gateway that
 * runs one process per session shares the holds through a directory (`fileHolds`), and a
 * framework that takes tools through its own API (decorators) calls the exported handlers
 * (`contractToolHandlers`). Both failed before: neither existed, and the holds were one object
 * per process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  contractToolHandlers,
  fileHolds,
  registerContractTools,
  type ContractToolsOptions,
} from '../../src/conformance/contract-tools.js';
import { HoldControl, type ProgressParams } from '../../src/conformance/tool.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpr-holds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Resolves once `check()` holds, looking every 5 ms (the test's own timeout bounds it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

describe('the contract tools across processes and frameworks (issue 38)', () => {
  test('a hold of a call in one process is released, and its status read, from another', async () => {
    // Two stores on one directory share nothing else: as two processes of a gateway.
    const session = contractToolHandlers(fileHolds(dir));
    const control = contractToolHandlers(fileHolds(dir));
    const sent: ProgressParams[] = [];
    const call = session.count(
      { tag: 'T1', n: 3, holds: [2] },
      { progressToken: 'tok', notify: async (p) => void sent.push(p) },
    );
    const status = () => control.count_status({ tag: 'T1' }).content[0]!.text;
    await until(() => status() === 'T1:emitted:1');
    expect(sent.map((p) => p.message)).toEqual(['T1#1']);
    expect(control.count_release({ tag: 'T1', index: 2 }).content[0]!.text).toBe('released');
    const result = await call;
    expect(result.content[0]!.text).toBe('T1:result:3');
    expect(status()).toBe('T1:emitted:3');
    expect(sent.map((p) => p.progressToken)).toEqual(['tok', 'tok', 'tok']);
  });

  test('a release before the hold lets it pass; a new call with the tag starts afresh', async () => {
    const a = contractToolHandlers(fileHolds(dir));
    const b = contractToolHandlers(fileHolds(dir));
    b.count_release({ tag: 'T2' });
    const notify = async () => {};
    await a.count({ tag: 'T2', n: 2, holds: [1, 3] }, { notify });
    expect(b.count_status({ tag: 'T2' }).content[0]!.text).toBe('T2:emitted:2');
    // The next call with that tag is held again, and reports from 0.
    const again = a.count({ tag: 'T2', n: 1, holds: [1] }, { notify });
    await until(() => b.count_status({ tag: 'T2' }).content[0]!.text === 'T2:emitted:0');
    b.count_release({ tag: 'T2', index: 1 });
    await again;
    expect(b.count_status({ tag: 'T2' }).content[0]!.text).toBe('T2:emitted:1');
  });

  test('a bad tag is refused, not a path', () => {
    expect(() => fileHolds(dir).status('../x')).toThrow(/is not \[A-Za-z0-9_-\]\+/);
  });

  test('registerContractTools serves the holds it is given', async () => {
    const handlers = new Map<string, (args: unknown, extra: unknown) => unknown>();
    const server = {
      registerTool: (name: string, _c: unknown, h: (args: never, extra: never) => unknown) =>
        handlers.set(name, h as (args: unknown, extra: unknown) => unknown),
    };
    const holds = fileHolds(dir);
    holds.start('T3');
    holds.emitted('T3', 5);
    await registerContractTools(server, { holds } as ContractToolsOptions);
    const status = handlers.get('count_status')!({ tag: 'T3' }, {}) as {
      content: { text: string }[];
    };
    expect(status.content[0]!.text).toBe('T3:emitted:5');
  });

  test("HoldControl's status: what count_status answers", async () => {
    const h = new HoldControl();
    expect(h.status('A')).toBe(0);
    h.emitted('A', 1);
    h.emitted('A', 2);
    expect(h.status('A')).toBe(2);
    expect(h.status('B')).toBe(0);
  });
});
