/**
 * docs/spec.md is a page a maintainer can cite (issue 32, B6-B9): it names no test (the index
 * is docs/spec-tests.md, linked once), every term it defines is defined before the rules use
 * it, BCP 14 key words appear in capitals only, and no requirement is stated twice. Also the
 * claims of docs/spec-changes.md that another generated page can check (A8: the reason the
 * guard recorded for each client cell), and that the test index names only what exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const read = (page: string) => readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
const spec = read('docs/spec.md');

/** The page's prose: fenced blocks, inline code, link targets, comments and quotes removed. */
function prose(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/\]\([^)]*\)/g, '] ')
    .replace(/"[^"\n]*"/g, ' ');
}

/** The bold terms the Terms section defines, in order, with where each is defined. */
function definedTerms(): { term: string; at: number }[] {
  const start = spec.indexOf('## Terms');
  const end = spec.indexOf('\n## ', start + 1);
  const out: { term: string; at: number }[] = [];
  for (const m of spec.slice(start, end).matchAll(/\*\*([^*]+)\*\*/g))
    out.push({ term: m[1]!.toLowerCase(), at: start + m.index });
  return out;
}

describe('docs/spec.md can be cited', () => {
  test('it names no test, and links the test index once', () => {
    expect(spec).not.toMatch(/properties\//);
    expect(spec.match(/\]\(spec-tests\.md\)/g)).toHaveLength(1);
  });

  test('BCP 14 key words appear in capitals only', () => {
    const words = /\b(must|shall|should|may|required|recommended|optional)\b/gi;
    const lower = [...prose(spec).matchAll(words)]
      .map((m) => m[0])
      .filter((w) => w !== w.toUpperCase());
    expect(lower).toEqual([]);
  });

  test('every defined term is defined before any later text uses it', () => {
    const terms = definedTerms();
    expect(terms.length).toBeGreaterThan(20);
    const from = spec.indexOf('## Terms');
    const early: string[] = [];
    for (const { term, at } of terms) {
      const re = new RegExp(`\\b${term.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}s?\\b`, 'i');
      // Only the text before the definition's own bullet counts.
      const bulletStart = spec.lastIndexOf('\n- ', at);
      const before = prose(spec.slice(from, Math.min(at, bulletStart)));
      if (re.test(before)) early.push(term);
    }
    expect(early).toEqual([]);
  });

  test('no requirement is stated twice', () => {
    const sentences = prose(spec)
      .replace(/\s+/g, ' ')
      .split(/(?<=[.:;])\s/)
      .filter((s) => /\b(MUST|SHALL|SHOULD|MAY|REQUIRED|RECOMMENDED)\b/.test(s))
      .map((s) => s.trim().toLowerCase());
    const seen = new Set<string>();
    const twice = sentences.filter((s) => (seen.has(s) ? true : (seen.add(s), false)));
    expect(twice).toEqual([]);
  });
});

describe('docs/spec-tests.md names only what exists', () => {
  const index = read('docs/spec-tests.md');
  test('every corpus trace it names is in properties/corpus', () => {
    const names = [
      ...index.matchAll(
        /`((?:rule\d|no-cursor|cursor-|idless-data|idonly-|seed-|verdict-|break-|format-|priming-|poll-)[a-z0-9-]*)`/g,
      ),
    ].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(40);
    const missing = names.filter(
      (n) => !existsSync(new URL(`../../properties/corpus/${n}.jsonl`, import.meta.url)),
    );
    expect(missing).toEqual([]);
  });
});

describe('docs/spec-changes.md agrees with the recorded conformance run', () => {
  test('the reason the guard would have raised, cell by cell (A8)', () => {
    const changes = read('docs/spec-changes.md');
    const cells = read('docs/conformance-cells.md');
    const claims = [
      ...changes.matchAll(/`([^`]+ → [^`]+ × [^`]+)`: the guard would have raised\s+`([a-z-]+)`/g),
    ];
    expect(claims.length).toBeGreaterThanOrEqual(3);
    for (const [, cell, reason] of claims) {
      const line = cells.split('\n').find((l) => l.startsWith(`- **${cell}**:`));
      expect(line, cell).toBeDefined();
      expect(line, cell).toContain(`the guard (observing only) would have raised: ${reason}.`);
    }
  });
});

describe('reproducing the evidence of docs/spec-changes.md changes no file (D8)', () => {
  test('no command in its shell blocks writes a doc', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const writers: string[] = [];
    for (const m of read('docs/spec-changes.md').matchAll(/```sh\n([\s\S]*?)```/g))
      for (const line of m[1]!.split('\n')) {
        const run = /^npm run (\S+)/.exec(line.trim());
        const cmd = run ? (pkg.scripts[run[1]!] ?? '') : line;
        if (/--write\b|--docs\b|--manifest\b/.test(cmd)) writers.push(line.trim());
      }
    expect(writers).toEqual([]);
  });
});

describe('the evidence commands of docs/spec-changes.md judge a corpus trace as its expected report does (A4)', () => {
  test('each `check` of a corpus trace carries the arguments the trace is judged with', () => {
    const cmds = [...read('docs/spec-changes.md').matchAll(/^npx mcp-resumption check (.*)$/gm)];
    expect(cmds.length).toBeGreaterThan(5);
    for (const [line, rest] of cmds) {
      const name = /properties\/corpus\/([\w-]+)\.jsonl/.exec(rest!)?.[1];
      if (name === undefined) continue;
      const expected = JSON.parse(read(`properties/corpus/${name}.expected.json`)) as {
        args?: string[];
      };
      for (const arg of expected.args ?? []) expect(rest!.split(/\s+/), line).toContain(arg);
    }
  });
});
