/**
 * The docs say only what the program does, by kind of mismatch, so that no kind can come back:
 * - every `npx mcp-resumption` command in a doc's shell block is run (in-process) and must not
 *   be refused as bad input (exit 2), and a timeline it prints stays under 40 lines unless it
 *   folds (`--brief`) or draws (`--mermaid`); a command with a time budget (`--seconds N`)
 *   runs with a budget of one second (the same code path: the budget only ends the loop), and
 *   `verify` on one thread (workers find what one thread finds: verify/workers.test.ts); the
 *   commands that cannot run here are listed, each with its reason; every `npm run X` names a
 *   script of package.json;
 * - every relative link (and its `#section`) and every repository path a doc names exists;
 * - (figures: properties/docs-figures.test.ts keeps measured figures inside generated blocks).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';

const ROOT = new URL('../../', import.meta.url);
const PAGES = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (page: string) => readFileSync(new URL(page, ROOT), 'utf8');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

/** Commands a doc shows that this suite does not run, and why. */
const NOT_RUNNABLE: [RegExp, string][] = [
  [/<</, 'reads a here-document: properties/tutorial/tutorial.test.ts runs each with its input'],
  [/ conformance( |$)/, 'starts real servers for minutes: properties/conformance/ runs the matrix'],
  [/ serve --scenario/, 'serves until Ctrl-C: properties/conformance/client-cmd.test.ts runs it'],
  [/ check trace\.jsonl/, 'needs a trace of your own client (trace-format.md)'],
  [/ verify( +#|$)| verify --policy/, 'the medium scope takes minutes: npm run verify:docs'],
];

/** The `npx mcp-resumption` and `npm run` lines of a page's sh blocks, comments cut off. */
function shellCommands(page: string): string[] {
  const out: string[] = [];
  for (const m of read(page).matchAll(/```sh\n([\s\S]*?)```/g))
    for (const line of m[1]!.split('\n')) {
      const cmd = line.replace(/\s+#.*$/, '').trim();
      if (/^(npx mcp-resumption|npm run|npm start)\b/.test(cmd)) out.push(cmd);
    }
  return out;
}

/** Shell words of a command line (single quotes only, as the docs write them). */
function words(cmd: string): string[] {
  return [...cmd.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/**
 * `argv` with a time budget (`--seconds N`) cut to one second, and `verify` on one thread:
 * a budget only decides when the loop stops, and worker threads only share the same search
 * (at a cost in CPU that the rest of the suite needs: twenty seconds of exploration, and about
 * two seconds of starting and feeding workers per search).
 */
function asRunHere(argv: string[]): string[] {
  const i = argv.indexOf('--seconds');
  const cut = i < 0 ? argv : argv.map((a, j) => (j === i + 1 ? '1' : a));
  return cut[0] === 'verify' && !cut.includes('--workers') ? [...cut, '--workers', '1'] : cut;
}

/** The longest timeline a run printed, in lines (from "timeline:" to the line after it ends). */
function timelineLength(out: string): number {
  let longest = 0;
  for (const part of out.split('timeline:\n').slice(1)) {
    const lines = part.split('\n');
    const end = lines.findIndex((l) => /^(claims:|claim broken|client outcome:|\S)/.test(l));
    longest = Math.max(longest, end < 0 ? lines.length : end);
  }
  return longest;
}

const commands = PAGES.flatMap((page) => shellCommands(page).map((cmd) => ({ page, cmd })));

describe('commands shown in the docs', () => {
  test('the docs show commands, and the not-runnable list is used', () => {
    expect(commands.length).toBeGreaterThan(20);
    for (const [re] of NOT_RUNNABLE)
      expect(
        commands.some((c) => re.test(c.cmd)),
        `${re} no longer matches a doc`,
      ).toBe(true);
  });

  test.each(commands.filter((c) => c.cmd.startsWith('npm')))('$page: $cmd', ({ cmd }) => {
    const script = cmd === 'npm start' ? 'start' : words(cmd)[2]!;
    expect(pkg.scripts[script], `package.json has no script ${script}`).toBeDefined();
  });

  const runnable = commands.filter(
    (c) => c.cmd.startsWith('npx') && !NOT_RUNNABLE.some(([re]) => re.test(c.cmd)),
  );
  // `verify` is an exhaustive search with no seed: the same command prints the same, so a
  // command two pages show (`verify --scope small`, seconds of CPU) runs once for both.
  const verifyRuns = new Map<string, Promise<CliRun>>();
  const run = (argv: string[]): Promise<CliRun> => {
    if (argv[0] !== 'verify') return runCli(argv);
    const key = JSON.stringify(argv);
    if (!verifyRuns.has(key)) verifyRuns.set(key, runCli(argv));
    return verifyRuns.get(key)!;
  };
  test.each(runnable)('$page: $cmd', async ({ cmd }) => {
    const argv = asRunHere(words(cmd).slice(2));
    const r = await run(argv);
    expect(r.code, `${cmd}\n${r.err}`).not.toBe(2);
    expect(r.code, r.err).toBeLessThan(2);
    if (!argv.includes('--brief') && !argv.includes('--mermaid'))
      expect(timelineLength(r.out), `${cmd}: a long timeline needs --brief`).toBeLessThanOrEqual(
        40,
      );
  });
});

/** GitHub's heading slugs: lower case, punctuation dropped, spaces to hyphens. */
function slugs(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#+ (.+)$/gm))
    out.add(
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  return out;
}

describe('files and sections the docs name', () => {
  test.each(PAGES)('%s: every relative link and #section exists', (page) => {
    const dir = new URL(page.includes('/') ? 'docs/' : './', ROOT);
    const text = read(page).replace(/```[\s\S]*?```/g, '');
    const missing: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1]!;
      if (/^[a-z]+:/.test(href)) continue;
      const [file, anchor] = href.split('#');
      const target = file === '' ? new URL(page, ROOT) : new URL(file!, dir);
      if (!existsSync(target)) {
        missing.push(href);
        continue;
      }
      if (anchor && target.pathname.endsWith('.md')) {
        if (!slugs(readFileSync(target, 'utf8')).has(anchor)) missing.push(href);
      }
    }
    expect(missing).toEqual([]);
  });

  test.each(PAGES)('%s: every repository path in backticks exists', (page) => {
    const missing: string[] = [];
    for (const m of read(page).matchAll(
      /`((?:model|src|properties|docs|bench)\/[\w./-]+\.(?:ts|md|json|mjs|jsonl))`/g,
    ))
      // A placeholder (`properties/corpus/NAME.jsonl`) names a pattern, not a file.
      if (!/\b[A-Z]{3,}\b/.test(m[1]!) && !existsSync(new URL(m[1]!, ROOT))) missing.push(m[1]!);
    expect(missing).toEqual([]);
  });

  test('a doc command that reads a repository file reads one the package ships (it runs outside a clone)', () => {
    // `check properties/corpus/NAME.jsonl` falls back to the installed package's corpus
    // (properties/trace/cli-process.test.ts runs it from another directory); any other
    // repository path given to a command exists only in a clone.
    const files = (JSON.parse(read('package.json')) as { files: string[] }).files;
    const shipped = (path: string) =>
      files.some((f) =>
        new RegExp(`^${f.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`).test(path),
      );
    const cloneOnly: string[] = [];
    for (const page of PAGES)
      for (const cmd of shellCommands(page)) {
        if (!cmd.startsWith('npx mcp-resumption')) continue;
        for (const m of cmd.matchAll(/(?:^|\s)((?:model|src|properties|docs|bench)\/[\w./-]+)/g))
          if (!shipped(m[1]!)) cloneOnly.push(`${page}: ${cmd}`);
      }
    expect(cloneOnly).toEqual([]);
    expect(shipped('properties/corpus/rule6-skip.jsonl')).toBe(true);
    expect(shipped('properties/world/claims.test.ts')).toBe(false);
  });

  test('docs/spec-changes.md: no citation without a link, no hand-typed x/12 burst figure', () => {
    const page = read('docs/spec-changes.md');
    const cited = new Set(
      [...page.matchAll(/\b(SEP-\d+|[\w-]+\/[\w-]+#\d+)\b/g)].map((m) => m[1]!),
    );
    expect(cited.size).toBeGreaterThan(0);
    for (const c of cited) {
      const number = /\d+$/.exec(c)![0];
      expect(page, `${c} is cited without a link`).toMatch(
        new RegExp(`\\(https://github\\.com/[^)]*/${number}\\b[^)]*\\)`),
      );
    }
    expect(page).not.toMatch(/\b\d+\/12\b/);
  });

  test('the checks have teeth', () => {
    expect(slugs('## Where a floor comes from on the wire')).toContain(
      'where-a-floor-comes-from-on-the-wire',
    );
    expect(timelineLength('timeline:\n' + '  x\n'.repeat(50) + 'claims:\n')).toBe(50);
  });
});
