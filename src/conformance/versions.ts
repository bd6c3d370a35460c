/**
 * Reads the installed version of a package from its own package.json (the packages under test
 * do not all export `./package.json`, so the file is found by walking up from the resolved
 * entry point).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version in `name`'s package.json, or `'not installed'`. */
export function packageVersion(name: string): string {
  let entry: string;
  try {
    entry =
      typeof import.meta.resolve === 'function'
        ? fileURLToPath(import.meta.resolve(name))
        : createRequire(import.meta.url).resolve(name);
  } catch {
    try {
      entry = createRequire(import.meta.url).resolve(name);
    } catch {
      return 'not installed';
    }
  }
  let dir = dirname(entry);
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {
      // keep walking up
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return 'unknown';
}
