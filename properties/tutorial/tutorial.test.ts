/**
 * docs/tutorial.md stays true: every exercise's command is run (in process, as
 * `npx mcp-resumption …` would run it) and its output must still support the stated answer,
 * written as an `expect` comment under the exercise: `exit=N` and `/regex/` items, separated by
 * `;`. An exercise without a command or without an expectation fails the test.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';

const DOC = fileURLToPath(new URL('../../docs/tutorial.md', import.meta.url));

/** One exercise: its title, the CLI arguments, standard input, and the expectations. */
interface Exercise {
  title: string;
  argv: string[];
  stdin?: string;
  exit?: number;
  patterns: RegExp[];
  /** Variations the answer describes: other arguments on the same input, their expectations. */
  variations: { argv: string[]; exit?: number; patterns: RegExp[] }[];
}

/** Reads `exit=N; /regex/; …` into `into`. */
function readExpectations(
  title: string,
  line: string,
  into: { exit?: number; patterns: RegExp[] },
): void {
  for (const item of line.split(';').map((x) => x.trim())) {
    const exit = /^exit=(\d+)$/.exec(item);
    const re = /^\/(.*)\/$/.exec(item);
    if (exit) into.exit = Number(exit[1]);
    else if (re) into.patterns.push(new RegExp(re[1]!));
    else throw new Error(`exercise "${title}": cannot read expectation ${JSON.stringify(item)}`);
  }
}

/** Splits a command line into words, honouring single and double quotes (no expansions). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (const m of line.matchAll(re)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

function parse(doc: string): Exercise[] {
  const sections = doc.split(/^## /m).filter((s) => /^\d+\. /.test(s));
  return sections.map((s) => {
    const title = s.split('\n')[0]!;
    const block = /```sh\n([\s\S]*?)\n```/.exec(s)?.[1];
    if (block === undefined) throw new Error(`exercise "${title}" has no sh block`);
    const lines = block.split('\n');
    const first = lines[0]!.replace(/\\$/, '');
    const heredoc = /<<'EOF'$/.test(first);
    const words = shellWords(first.replace(/\s*<<'EOF'$/, ''));
    if (words[0] !== 'npx' || words[1] !== 'mcp-resumption') {
      throw new Error(`exercise "${title}": the command must start with npx mcp-resumption`);
    }
    const expectLine = /<!-- expect: (.*) -->/.exec(s)?.[1];
    if (expectLine === undefined) throw new Error(`exercise "${title}" has no expect comment`);
    const ex: Exercise = { title, argv: words.slice(2), patterns: [], variations: [] };
    if (heredoc) {
      const end = lines.lastIndexOf('EOF');
      ex.stdin = lines.slice(1, end).join('\n') + '\n';
    }
    readExpectations(title, expectLine, ex);
    // `<!-- expect-variation: ARGS | EXPECTATIONS -->`: a variation whose answer differs is run
    // too, so that it cannot change silently (issue 32, C4).
    for (const m of s.matchAll(/<!-- expect-variation: (.*?) \| (.*) -->/g)) {
      const v = { argv: shellWords(m[1]!), patterns: [] as RegExp[] };
      readExpectations(title, m[2]!, v);
      ex.variations.push(v);
    }
    return ex;
  });
}

const exercises = parse(await readFile(DOC, 'utf8'));

describe('docs/tutorial.md', () => {
  test('has at least six exercises, each with a folded answer', async () => {
    expect(exercises.length).toBeGreaterThanOrEqual(6);
    const doc = await readFile(DOC, 'utf8');
    expect(doc.match(/<details><summary>Answer<\/summary>/g)?.length).toBe(exercises.length);
  });

  test.each(exercises)(
    'exercise $title',
    async (ex) => {
      const r = await runCli(ex.argv, ex.stdin);
      const output = r.out + r.err;
      if (ex.exit !== undefined) expect(r.code, output).toBe(ex.exit);
      for (const p of ex.patterns) expect(output, `${ex.title}: ${p}`).toMatch(p);
      for (const v of ex.variations) {
        const rv = await runCli(v.argv, ex.stdin);
        const out = rv.out + rv.err;
        if (v.exit !== undefined) expect(rv.code, out).toBe(v.exit);
        for (const p of v.patterns)
          expect(out, `${ex.title} (${v.argv.join(' ')}): ${p}`).toMatch(p);
      }
    },
    60_000,
  );

  test('the tutorial leads to the playground (C1)', async () => {
    const doc = await readFile(DOC, 'utf8');
    const next = doc.slice(doc.indexOf('## Where to go next'));
    expect(next).toMatch(/\]\(playground\.md\)/);
    expect(next).toContain('npm run playground');
  });

  test('the parser reads quotes the way a shell does', () => {
    expect(shellWords(`explore --replay-path '/h:D' --config "a=1,b=2" x`)).toEqual([
      'explore',
      '--replay-path',
      '/h:D',
      '--config',
      'a=1,b=2',
      'x',
    ]);
  });
});
