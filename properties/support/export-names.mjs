/**
 * `node properties/support/export-names.mjs [--check FILE]`: the names each public entry of the
 * built package exports (package.json "exports" and "bin"), values and types, read from dist's
 * .d.ts files by the TypeScript checker, as JSON. With --check FILE it compares them with a list
 * written earlier (before a move) and exits 1 on any difference, naming it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** Entry name -> its .d.ts file: every "exports" entry with types, and the bin's. */
const entries = {};
for (const [name, target] of Object.entries(pkg.exports)) {
  if (typeof target === 'object' && target.types) entries[name] = target.types;
}
for (const [name, js] of Object.entries(pkg.bin))
  entries[`bin:${name}`] = js.replace(/\.js$/, '.d.ts');

const files = Object.values(entries).map((f) => join(ROOT, f));
const program = ts.createProgram(files, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  skipLibCheck: true,
});
const checker = program.getTypeChecker();
const names = {};
for (const [name, file] of Object.entries(entries)) {
  const source = program.getSourceFile(join(ROOT, file));
  if (!source) throw new Error(`${file}: not built (npm run build)`);
  const symbol = checker.getSymbolAtLocation(source);
  names[name] = symbol
    ? checker
        .getExportsOfModule(symbol)
        .map((s) => s.name)
        .sort()
    : [];
}

const at = process.argv.indexOf('--check');
if (at < 0) {
  process.stdout.write(`${JSON.stringify(names, null, 1)}\n`);
} else {
  const before = JSON.parse(readFileSync(process.argv[at + 1], 'utf8'));
  let differs = false;
  for (const entry of new Set([...Object.keys(before), ...Object.keys(names)])) {
    const was = new Set(before[entry] ?? []);
    const now = new Set(names[entry] ?? []);
    const lost = [...was].filter((n) => !now.has(n));
    const gained = [...now].filter((n) => !was.has(n));
    if (lost.length || gained.length) differs = true;
    process.stdout.write(
      `${entry}: ${now.size} names` +
        (lost.length ? `; lost ${lost.join(', ')}` : '') +
        (gained.length ? `; gained ${gained.join(', ')}` : '') +
        '\n',
    );
  }
  process.stdout.write(differs ? 'export names differ\n' : 'export names unchanged\n');
  process.exitCode = differs ? 1 : 0;
}
