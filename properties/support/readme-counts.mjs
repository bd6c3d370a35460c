/**
 * The README's generated count of conformance scenarios, written from the built code's own list
 * (`SCENARIOS` of src/conformance/scenarios/index.ts), so that it cannot drift:
 *
 *   npm run docs:counts        (builds, then writes README.md)
 *
 * properties/conformance/friction.test.ts fails when the README's count differs from the list.
 * Bad use: one line on stderr, exit status 2.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORDS =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(
    ' ',
  );
const MARKED = /<!-- scenario-count -->\w+<!-- \/scenario-count -->/;

if (process.argv.length > 2) {
  process.stderr.write('readme-counts: takes no arguments (it writes README.md)\n');
  process.exit(2);
}
const { SCENARIOS } = await import(
  new URL('dist/src/conformance/scenarios/index.js', `file://${ROOT}`).href
);
const word = WORDS[SCENARIOS.length] ?? String(SCENARIOS.length);
const path = `${ROOT}README.md`;
const readme = readFileSync(path, 'utf8');
if (!MARKED.test(readme)) {
  process.stderr.write('readme-counts: README.md has no <!-- scenario-count --> marker\n');
  process.exit(2);
}
const next = readme.replace(MARKED, `<!-- scenario-count -->${word}<!-- /scenario-count -->`);
if (next !== readme) writeFileSync(path, next);
process.stdout.write(
  `README.md: ${word} conformance scenarios${next === readme ? ' (unchanged)' : ''}\n`,
);
