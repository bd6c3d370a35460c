/**
 * `npm run bench [NAME...]`: runs the registered benchmarks (all, or those named) and prints
 * their figures. Progress goes to stderr, figures to stdout.
 */
import { BENCHES } from './index.js';

async function main(): Promise<number> {
  // Names select benchmarks; everything else (`--lines 10000000`) is left for the benchmarks.
  const wanted = process.argv.slice(2).filter((a) => /^[a-z][\w-]*$/i.test(a));
  if (process.argv.includes('--help')) {
    process.stdout.write(
      `Usage: npm run bench [-- NAME...]\n\nBenchmarks: ${BENCHES.map((b) => `${b.name} (${b.summary})`).join('; ') || 'none'}\n`,
    );
    return 0;
  }
  const unknown = wanted.filter((w) => !BENCHES.some((b) => b.name === w));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown benchmark ${unknown.join(', ')}\n`);
    return 2;
  }
  const chosen = wanted.length ? BENCHES.filter((b) => wanted.includes(b.name)) : BENCHES;
  process.stdout.write(`node ${process.version}, ${new Date().toISOString()}\n`);
  for (const b of chosen) {
    process.stderr.write(`bench ${b.name}: running...\n`);
    const lines = await b.run((l) => process.stderr.write(`  ${l}\n`));
    process.stdout.write(`\n## ${b.name}: ${b.summary}\n${lines.join('\n')}\n`);
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
