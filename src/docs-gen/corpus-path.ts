/**
 * The package's corpus of recorded traces, found from a clone or from an installed package: used
 * by `check`, `diagram --trace` and the primer's diagrams, which all read the same corpus paths.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the package's corpus may be, relative to this file: `src/docs-gen/` in a clone run from sources,
 * `dist/src/docs-gen/` when built or installed (the corpus sits beside `dist/`).
 */
const PACKAGE_ROOTS = [new URL('../../', import.meta.url), new URL('../../../', import.meta.url)];

/**
 * The docs reproduce their evidence with `check properties/corpus/NAME.jsonl`. Outside a clone
 * that path does not exist in the current directory, but the package ships the corpus: read it
 * from there. Any other path is read as given (a missing file is then an error that names it).
 */
export function corpusFallback(source: string): string {
  if (!/^(?:\.\/)?properties\/corpus\/[\w.-]+\.jsonl$/.test(source) || existsSync(source)) {
    return source;
  }
  const rel = source.replace(/^\.\//, '');
  for (const root of PACKAGE_ROOTS) {
    const packaged = fileURLToPath(new URL(rel, root));
    if (existsSync(packaged)) return packaged;
  }
  return source;
}
