/**
 * "A declared floor lets the client wait; it proves nothing" (docs/spec.md, Terms: Proof) is
 * what every page, docstring and comment teaches (issue 39, S1/T1). The README, stores.md,
 * tutorial exercise 3, the machine's header and the guard's docstring had each taught that a
 * floor covering the cursor proves the resume. This test reads every clause (a sentence, or a
 * part of one between semicolons) of the Markdown pages and the TypeScript sources that speaks
 * of a floor together with proof, and fails on one that does not also say what the floor does
 * not do (nothing, never, not, only lets the client wait, …).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(md|ts)$/.test(name)) out.push(path);
  }
  return out;
}

const FLOOR = /\bfloor/i;
const PROOF =
  /\bprov(e|es|en|ing)\b|\bis proof\b|\bfloor does\b|\bis accepted\b|\baccepted only\b|\baccepts a resum/i;
/** What a clause says to keep the floor from being proof. */
const DENIES =
  /\b(nothing|never|not|no|without|cannot|neither|nor)\b|\blets? (it|the client|a client) wait\b/i;

/** The clauses of `text` that present a floor as proof. */
export function floorAsProof(text: string): string[] {
  const flat = text
    .replace(/^\s*\*\s?/gm, ' ')
    .replace(/^\s*\/\/\s?/gm, ' ')
    .replace(/\s+/g, ' ');
  return flat
    .split(/(?<=[.;?!])\s+|;\s*/)
    .filter((c) => FLOOR.test(c) && PROOF.test(c) && !DENIES.test(c));
}

describe('no page or source teaches that a floor proves a resume', () => {
  test('the reader finds the sentences the review quoted (S1, T1)', () => {
    expect(
      floorAsProof(
        'The rule it enforces: a reconnect is a resumption only if the client can prove that the next event is the successor of its cursor, or the server states a replay floor that covers it; a `200 OK` proves nothing.',
      ),
    ).toHaveLength(1);
    expect(
      floorAsProof(
        "The client's guard reads its `floor` as the machine's stated floor: `floor ≤ c+1` proves the\n  reconnect even before an event arrives.",
      ),
    ).toHaveLength(1);
    expect(
      floorAsProof('Keepalives alone would prove nothing; the stated floor does. Change it.'),
    ).toHaveLength(1);
    expect(
      floorAsProof(
        " * One question: can the client prove that the next\n * event it receives is c+1 (or that the server's declared replay floor covers c)? If so",
      ),
    ).toHaveLength(1);
    // conformance.md's guard paragraph, found by the second reading (accepted, not proven).
    expect(
      floorAsProof(
        "A resumption is accepted only when a replay acknowledgment declares a\nfloor covering the cursor (delayed) or the first event is the cursor's successor (resumed).",
      ),
    ).toHaveLength(1);
    expect(floorAsProof('A floor `F ≤ c+1` lets the client wait; it proves nothing.')).toEqual([]);
  });

  test('README.md, docs/ and every TypeScript source under model/ and src/', () => {
    const files = [
      join(ROOT, 'README.md'),
      ...walk(join(ROOT, 'docs')),
      ...walk(join(ROOT, 'model')),
      ...walk(join(ROOT, 'src')),
    ];
    const found = files.flatMap((f) =>
      floorAsProof(readFileSync(f, 'utf8')).map((c) => `${relative(ROOT, f)}: ${c}`),
    );
    expect(found).toEqual([]);
  });
});
