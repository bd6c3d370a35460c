/**
 * What users copy works: the package is packed (`npm pack`, which builds it unless dist/ is
 * already the build of the sources: properties/support/dist-current.ts), installed with
 * `npm install file:<tgz>` (the README's Install route before publication) into an
 * empty project with only its production dependencies plus `@modelcontextprotocol/sdk` and
 * `zod`, and the own-adapter example of docs/conformance.md (the adapter module and the script
 * that runs it, each between its markers) is run there with node, then through the installed
 * CLI (`conformance --adapter`). It must import only the public entries and run every scenario
 * with no silent loss, leak or hang. The fetch-style example (`serveFetch`) runs the same way,
 * and the installed CLI's `--url` judges the plain server's mutants as the sources do.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import type { FlatCell } from '../../src/conformance/rendering/render.js';
import { distIsCurrent } from '../support/dist-current.js';
import { launchPlainServer } from './fixtures/plain-server-adapter.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The JavaScript block between the markers `name` of docs/conformance.md. */
async function docExample(name: string): Promise<string> {
  const doc = await readFile(join(ROOT, 'docs/conformance.md'), 'utf8');
  const begin = doc.indexOf(`<!-- ${name}:begin -->`);
  const end = doc.indexOf(`<!-- ${name}:end -->`);
  expect(begin, 'example markers in docs/conformance.md').toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(begin);
  const m = /```js\n([\s\S]*?)\n```/.exec(doc.slice(begin, end));
  expect(m, 'a ```js block between the markers').not.toBeNull();
  return `${m![1]!}\n`;
}

/** The version installed here (the lockfile's), so the test installs what the suite runs. */
async function installedVersion(name: string): Promise<string> {
  const pkg = JSON.parse(
    await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'),
  ) as { version: string };
  return pkg.version;
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

test('the docs example runs from the packed package with only production dependencies', async () => {
  const packDir = await mkdtemp(join(tmpdir(), 'mcpr-pack-'));
  const project = await mkdtemp(join(tmpdir(), 'mcpr-user-'));
  dirs.push(packDir, project);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const opts = { maxBuffer: 64 * 1024 * 1024, timeout: 240_000 };

  // `npm pack` builds first (the prepare script) unless dist/ is already the build of these
  // sources, as it is after `npm ci`: the same files, without a second full build.
  const pack = ['pack', '--silent', '--pack-destination', packDir];
  if (distIsCurrent(ROOT)) pack.push('--ignore-scripts');
  await run(npm, pack, { ...opts, cwd: ROOT });
  const tarballs = (await readdir(packDir)).filter((f) => f.endsWith('.tgz'));
  expect(tarballs).toHaveLength(1);

  // The route the README's Install section and the tutorial give before publication: npm pack
  // in the clone, then `npm install file:<the .tgz>` in a fresh project (issue 32, A1).
  const readmeText = await readFile(join(ROOT, 'README.md'), 'utf8');
  const install = readmeText.slice(
    readmeText.indexOf('<!-- install-from-clone:begin -->'),
    readmeText.indexOf('<!-- install-from-clone:end -->'),
  );
  expect(install).toMatch(/^npm pack\b/m);
  expect(install).toContain(`npm install file:../mcp-resumption/${tarballs[0]}`);
  const tutorial = await readFile(join(ROOT, 'docs/tutorial.md'), 'utf8');
  expect(tutorial).toContain(`npm install file:PATH/${tarballs[0]}`);

  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'mcpr-user', version: '1.0.0', private: true, type: 'module' }),
  );
  const sdk = await installedVersion('@modelcontextprotocol/sdk');
  const zod = await installedVersion('zod');
  await run(
    npm,
    [
      'install',
      // The lockfile's versions are in npm's cache after `npm ci`: no need to ask the registry.
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--omit=dev',
      `file:${join(packDir, tarballs[0]!)}`,
      `@modelcontextprotocol/sdk@${sdk}`,
      `zod@${zod}`,
    ],
    { ...opts, cwd: project },
  );
  const installed = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(installed.dependencies['mcp-resumption']).toMatch(/^file:.*\.tgz$/);
  // Only production dependencies: none of the implementations or tools the suite uses.
  for (const dev of ['@modelcontextprotocol/server', 'mcp-proxy', 'vitest', 'typescript']) {
    await expect(readFile(join(project, 'node_modules', dev, 'package.json'))).rejects.toThrow();
  }

  await writeFile(join(project, 'my-server.mjs'), await docExample('own-adapter-example'));
  await writeFile(join(project, 'run.mjs'), await docExample('own-adapter-run'));
  const { stdout } = await run(process.execPath, ['run.mjs'], { ...opts, cwd: project });
  const lines = stdout.trim().split('\n');
  const { SCENARIOS } = await import('../../src/conformance/index.js');
  for (const s of SCENARIOS) {
    const line = lines.find((l) => l.startsWith(`my-server × ${s.name}: `));
    expect(line, `a line for ${s.name} in:\n${stdout}`).toBeDefined();
    expect(line).not.toMatch(/: (silent loss|leak|hang)\b/);
  }
  expect(lines.at(-1)).toBe(`${SCENARIOS.length} cells run; silent loss, leak or hang: 0`);

  // The README's recipes (plain JavaScript in ```ts and ```js blocks) run against the installed
  // package. The server (issue 39, I4) listens on a free port (PORT=0) and is closed once it does.
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const recipes = [...readme.matchAll(/```(?:ts|js)\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
  expect(recipes.length).toBeGreaterThanOrEqual(2);
  const CLOSE_SERVER =
    "if (typeof httpServer !== 'undefined') {\n" +
    "  if (!httpServer.listening) await new Promise((r) => httpServer.once('listening', r));\n" +
    '  httpServer.close();\n}\n';
  for (const [i, code] of recipes.entries()) {
    await writeFile(
      join(project, `recipe-${i}.mjs`),
      `${code}\n${CLOSE_SERVER}console.log('ok');\n`,
    );
    const r = await run(process.execPath, [`recipe-${i}.mjs`], {
      ...opts,
      cwd: project,
      env: { ...process.env, PORT: '0' },
    });
    expect(r.stdout.trim(), `README recipe ${i + 1}`).toBe('ok');
  }

  // The CLI route the docs give: the installed bin, --adapter, JUnit for CI.
  const cli = await run(
    npm,
    [
      'exec',
      '--',
      'mcp-resumption',
      'conformance',
      '--adapter',
      './my-server.mjs',
      '--junit',
      'c.xml',
    ],
    { ...opts, cwd: project },
  );
  expect(cli.stdout).toMatch(/my-server\s+2025-11-25\s+honored/);
  expect(cli.stdout).toContain('cells of every row with silent loss, leak, hang: 0');
  const xml = await readFile(join(project, 'c.xml'), 'utf8');
  expect(xml.match(/<testcase /g)).toHaveLength(SCENARIOS.length);

  // The fetch-style example (serveFetch hosting a Web-standard server), through --adapter.
  await writeFile(join(project, 'fetch-server.mjs'), await docExample('fetch-adapter-example'));
  // The same installed bin, started directly: `npm exec` was shown to find it above, and each
  // further `npm exec` only adds npm's own start-up (about a second of CPU).
  const bin = join(project, 'node_modules', '.bin', 'mcp-resumption');
  const fetchRun = await run(bin, ['conformance', '--adapter', './fetch-server.mjs', '--json'], {
    ...opts,
    cwd: project,
  });
  const fetchCells = (JSON.parse(fetchRun.stdout) as { cells: FlatCell[] }).cells;
  expect(fetchCells.map((c) => c.scenario)).toEqual(SCENARIOS.map((s) => s.name));
  for (const c of fetchCells) {
    expect(['silent loss', 'leak', 'hang', 'error'], `${c.scenario}: ${c.observed}`).not.toContain(
      c.verdict,
    );
  }

  // Servers the kit once misjudged (issue 19), through the installed CLI's --url.
  const expectations: [string, string, string, RegExp][] = [
    ['notifications-first-stream', 'other-stream', 'leak', /arrived on call A\S*'s stream/],
    ['responses-by-id', 'two-sessions', 'leak', /foreign B/],
    ['responses-by-id', 'within-window', 'honored', /^200/],
    ['stream-deleted-on-send', 'finished-while-away', 'silent loss', /^200, 0\/4 owed/],
    ['no-session-ids', 'within-window', 'rejected', /stateless: no session to resume/],
    // And those of issue 27.
    ['broadcast', 'within-window', 'leak', /the witness session's standalone stream/],
    ['stateless-cancel', 'within-window', 'rejected', /^the call died with its connection/],
    ['no-contract-tools', 'within-window', 'error', /registerContractTools\(server\)/],
  ];
  for (const mutant of new Set(expectations.map((e) => e[0]))) {
    const mine = expectations.filter((e) => e[0] === mutant);
    const server = await launchPlainServer(['--keepalive-ms', '100', '--mutant', mutant]);
    try {
      const r = await run(
        bin,
        [
          'conformance',
          '--url',
          server.url,
          '--id-pattern',
          '^(?<stream>[^:]+):(?<seq>\\d+)$',
          '--only',
          mine.map((e) => e[1]).join(','),
          '--fail-on',
          'none',
          '--json',
        ],
        { ...opts, cwd: project },
      );
      const cells = (JSON.parse(r.stdout) as { cells: FlatCell[] }).cells;
      for (const [, scenario, verdict, observed] of mine) {
        const c = cells.find((x) => x.scenario === scenario);
        expect(c?.verdict, `${mutant} × ${scenario}: ${c?.observed}`).toBe(verdict);
        expect(c?.observed).toMatch(observed);
      }
    } finally {
      server.child.kill('SIGKILL');
    }
  }

  // Any client (issue 27): the installed CLI judges the example client in another language
  // (Python, standard library only) through --client-cmd, as docs/conformance.md shows it.
  const example = join(project, 'node_modules', 'mcp-resumption', 'examples', 'contract-client.py');
  const clientRun = await run(
    bin,
    [
      'conformance',
      '--client-cmd',
      `python3 '${example}'`,
      '--only',
      'cut-resume,skip,upgraded-mid-call',
      '--json',
    ],
    { ...opts, cwd: project },
  );
  const clientCells = (
    JSON.parse(clientRun.stdout) as { cells: { scenario: string; verdict: string }[] }
  ).cells;
  expect(clientCells.map((c) => [c.scenario, c.verdict])).toEqual([
    ['cut-resume', 'honored'],
    ['skip', 'rejected'],
    ['upgraded-mid-call', 'rejected'],
  ]);
  // And `serve`: its URL on the first line, what it saw on exit.
  const served = await new Promise<string>((resolve, reject) => {
    const child = spawn(bin, ['serve', '--scenario', 'cut-resume', '--for', '4000'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    let started = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => {
      out += c;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(out);
      if (m && !started) {
        started = true;
        run('python3', [example], { env: { ...process.env, MCP_URL: m[1]! } }).catch(reject);
      }
    });
    child.on('close', () => resolve(out));
  });
  expect(served).toMatch(/\nsaw: 1 call of count, 1 reconnect \(cursors c1-5\)/);
}, 400_000);
