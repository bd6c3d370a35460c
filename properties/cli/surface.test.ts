/**
 * The CLI's surface as its docs promise it: `--version`, a config legend in every command's
 * `--help`, a report that opens with its summary, and rerun lines that work in a clone (npx).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CONFIG_FIELD_HELP } from '../../model/world/config.js';
import { COMMANDS } from '../../src/commands/index.js';
import { runCli } from '../support/cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  bin: Record<string, string>;
};

describe('CLI surface', () => {
  test('--version prints the package version, not "unknown option"', async () => {
    for (const flag of ['--version', '-v']) {
      const r = await runCli([flag]);
      expect(r.code).toBe(0);
      expect(r.out.trim()).toBe(pkg.version);
    }
  });

  // (A command that reads no world config, as conformance, prints no legend for it: D5.)
  test.each(COMMANDS.filter((c) => c.worldConfigs !== false).map((c) => c.name))(
    '%s --help explains every config letter',
    async (name) => {
      const r = await runCli([name, '--help']);
      expect(r.code).toBe(0);
      for (const key of Object.keys(CONFIG_FIELD_HELP))
        expect(r.out, `${name} --help names ${key}`).toMatch(new RegExp(`^  ${key} +\\S`, 'm'));
    },
  );

  test('a command that reads no world config keeps its --help free of the config legend', async () => {
    const without = COMMANDS.filter((c) => c.worldConfigs === false).map((c) => c.name);
    expect(without).toContain('conformance');
    for (const name of without) {
      const r = await runCli([name, '--help']);
      expect(r.code).toBe(0);
      expect(r.out, name).not.toMatch(/^ {2}D +\S/m);
    }
  });

  test('explore refuses --config with --kind instead of dropping the kind silently (D7)', async () => {
    const r = await runCli([
      'explore',
      '--kind',
      'break:timeoutAboveKeepalive',
      '--config',
      'policy=honest',
      '--runs',
      '5',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /--config fixes the world's configuration, so --kind break:timeoutAboveKeepalive would be ignored/,
    );
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  test('explore opens with its summary; untaken transitions only with --verbose', async () => {
    const argv = ['explore', '--runs', '200', '--seed', '7', '--mutant-runs', '50'];
    const r = await runCli(argv);
    const lines = r.out.split('\n');
    expect(lines[1]).toMatch(
      /^summary: every claim held over 200 worlds; \d+ of \d+ mutants killed$/,
    );
    expect(r.out).not.toMatch(/not taken: /);
    expect(r.out).toMatch(/\d+ not taken; --verbose lists them/);
    expect(r.out).toMatch(/^rerun: npx mcp-resumption explore --seed 7 --runs 200$/m);
    expect(r.out).not.toMatch(/unprimed opening|primed resumes/);
    const v = await runCli([...argv, '--verbose']);
    expect(v.out).toMatch(/not taken: \w+\.\w+/);
  });

  test('a counterexample replay line runs through npx (the bin is not on PATH in a clone)', async () => {
    const r = await runCli(['explore', '--runs', '2000', '--seed', '3', '--mutant', 'head']);
    expect(r.out).toMatch(/^replay: npx mcp-resumption explore --seed 3 --path [\d:]+ /m);
  });

  test('npm run build keeps the bin executable', () => {
    expect(pkg.bin['mcp-resumption']).toBe('dist/src/cli.js');
    expect(pkg.scripts['build']).toMatch(/chmodSync\('dist\/src\/cli\.js', 0o755\)/);
  });
});
