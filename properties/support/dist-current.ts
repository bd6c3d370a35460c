/**
 * Whether dist/ is the build of the sources as they are now, judged the way make judges a
 * target: every file under dist/ is newer than every input of the build (the sources, the
 * folders that hold them, package.json and the tsconfigs). A folder's time changes when a file
 * in it is added, renamed or deleted, so a deleted source counts as a change too.
 *
 * Why: `npm pack` runs the `prepare` script, a full build (about 18 s of CPU). In CI, `npm ci`
 * has just run that same build, so packing with `--ignore-scripts` packs the same files; on a
 * developer's machine with an edited source, the build runs as before.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What `tsconfig.build.json` compiles, and the files that configure it. */
const INPUTS = ['model', 'src', 'bench', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/** Calls `visit` with the modification time (ms) of `path` and, for a folder, of all under it. */
function walk(path: string, visit: (mtimeMs: number, isFile: boolean) => void): void {
  const st = statSync(path);
  visit(st.mtimeMs, st.isFile());
  if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name), visit);
}

/** `true` when `root`/dist holds a build at least as new as every input of the build. */
export function distIsCurrent(root: string): boolean {
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'src', 'cli.js'))) return false;
  let newestInput = 0;
  for (const input of INPUTS)
    walk(join(root, input), (t) => {
      newestInput = Math.max(newestInput, t);
    });
  let oldestOutput = Infinity;
  walk(dist, (t, isFile) => {
    if (isFile) oldestOutput = Math.min(oldestOutput, t);
  });
  return newestInput < oldestOutput;
}
