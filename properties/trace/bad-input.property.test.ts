/**
 * Malformed input always ends in exit status 2 with one line on stderr naming the offending
 * line, and nothing on stdout: random bytes, truncated lines, huge numbers and deep JSON,
 * planted at a random place in a valid generated trace and fed to `check -` in-process.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { Readable } from 'node:stream';
import { announceSeed } from '../support/seed.js';
import { oneSessionTrace, params } from './grammar.js';

announceSeed('properties/trace/bad-input.property.test.ts');

/** A planted malformed piece: its bytes, and the 1-based offset (within it) of the bad line. */
interface Planted {
  bytes: Buffer;
  /** Index of the piece's line that must be reported, counting from 0. */
  badLine: number;
}

/** Runs `check -` on raw bytes; resolves to the exit status and output. */
async function checkBytes(bytes: Buffer) {
  let out = '';
  let err = '';
  const code = await main(['check', '-'], {
    out: (t) => (out += t),
    err: (t) => (err += t),
    stdin: Readable.from([bytes]),
  });
  return { code, out, err };
}

/** `true` when the text of a line is a trace line the checker would accept on its own. */
function mightBeValid(line: string): boolean {
  if (!/\S/.test(line)) return true;
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Line breaks as `node:readline` sees them (a lone CR ends a line too). */
const LINE_BREAK = /\r\n|\r|\n/;

const randomBytes: fc.Arbitrary<Planted> = fc
  .uint8Array({ minLength: 1, maxLength: 80 })
  .map((a) => Buffer.from(a))
  .filter((b) => {
    // The decoded lines: blank ones are skipped, and every other one must be bad JSON.
    const lines = b.toString('utf8').split(LINE_BREAK);
    return lines.some((l) => /\S/.test(l)) && lines.every((l) => !/\S/.test(l) || !mightBeValid(l));
  })
  .map((bytes) => {
    const lines = bytes.toString('utf8').split(LINE_BREAK);
    return { bytes, badLine: lines.findIndex((l) => /\S/.test(l)) };
  });

const sample = [
  '{"type":"open","status":200,"epoch":"e1"}',
  '{"type":"event","id":41,"kind":"progress"}',
  '{"type":"reconnect","cursor":41}',
  '{"type":"response","status":200,"floor":42,"epoch":"e1","durable":true}',
  '{"type":"decision","outcome":"resumed"}',
];

const truncated: fc.Arbitrary<Planted> = fc
  .constantFrom(...sample)
  .chain((l) => fc.integer({ min: 1, max: l.length - 1 }).map((n) => l.slice(0, n)))
  .map((l) => ({ bytes: Buffer.from(l), badLine: 0 }));

const hugeNumber: fc.Arbitrary<Planted> = fc
  .tuple(
    fc.constantFrom(
      (n: string) => `{"type":"event","id":${n}}`,
      (n: string) => `{"type":"event","id":"${n}"}`,
      (n: string) => `{"type":"reconnect","cursor":${n}}`,
      (n: string) => `{"type":"reconnect","cursor":"${n}"}`,
    ),
    fc.stringMatching(/^[1-9][0-9]{16,400}$/),
    fc.constantFrom('', 'e400', '.5'),
  )
  .map(([make, digits, suffix]) => ({ bytes: Buffer.from(make(digits + suffix)), badLine: 0 }));

const deepJson: fc.Arbitrary<Planted> = fc
  .tuple(fc.integer({ min: 1000, max: 100_000 }), fc.constantFrom('[', '{"a":'), fc.nat(4))
  .map(([depth, open, where]) => {
    const unclosed = open.repeat(depth);
    const closed = unclosed + '1' + (open === '[' ? ']' : '}').repeat(depth);
    const line = [
      unclosed, // invalid JSON
      closed, // valid JSON, but an array, or an object without a type
      `{"type":"event","id":${closed}}`, // an id that is not an integer
      `{"type":"reconnect","cursor":${closed}}`, // a cursor that is not an integer
      `{"type":"event","id":1,"data":${unclosed}}`, // invalid JSON inside an ignored field
    ][where] as string;
    return { bytes: Buffer.from(line), badLine: 0 };
  });

/** Plants `bad` after the `at`-th line of a valid trace; the error must name its line. */
function planted(bad: fc.Arbitrary<Planted>) {
  return fc.tuple(oneSessionTrace, fc.nat(), bad).map(([lines, n, p]) => {
    const at = lines.length === 0 ? 0 : n % (lines.length + 1);
    const before = Buffer.from(
      lines
        .slice(0, at)
        .map((l) => l + '\n')
        .join(''),
    );
    const after = Buffer.from(
      lines
        .slice(at)
        .map((l) => '\n' + l)
        .join(''),
    );
    return { bytes: Buffer.concat([before, p.bytes, after]), line: at + 1 + p.badLine, at };
  });
}

/**
 * The property, for any way of running `check -` on bytes: exit 2, stdout empty, one line on
 * stderr naming the planted line. (Lines before it are valid, so it is the first bad one.)
 */
const exits2WithLine = (
  run: (bytes: Buffer) => Promise<{ code: number; out: string; err: string }>,
  bad: fc.Arbitrary<Planted>,
) =>
  fc.asyncProperty(planted(bad), async ({ bytes, line }) => {
    const { code, out, err } = await run(bytes);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err.endsWith('\n')).toBe(true);
    expect(err.slice(0, -1)).not.toContain('\n');
    expect(err).toMatch(new RegExp(`^check: <stdin>: line ${line}: `));
  });

/** A lenient reader (the mutant): skips lines that are not JSON instead of failing. */
async function lenient(bytes: Buffer) {
  const kept = bytes
    .toString('utf8')
    .split('\n')
    .map((l) => {
      try {
        JSON.parse(l);
        return l;
      } catch {
        return '';
      }
    });
  return checkBytes(Buffer.from(kept.join('\n')));
}

describe('malformed input: exit 2, one line naming the line', () => {
  it('random bytes', async () => {
    await fc.assert(exits2WithLine(checkBytes, randomBytes), params(150));
  });

  it('truncated lines', async () => {
    await fc.assert(exits2WithLine(checkBytes, truncated), params(150));
  });

  it('huge numbers', async () => {
    await fc.assert(exits2WithLine(checkBytes, hugeNumber), params(150));
  });

  it('deep JSON', async () => {
    await fc.assert(exits2WithLine(checkBytes, deepJson), params(30));
  });

  it('kills a lenient reader that skips lines it cannot parse', async () => {
    const r = await fc.check(exits2WithLine(lenient, truncated), { ...params(200), verbose: 0 });
    expect(r.failed).toBe(true);
  });
});
