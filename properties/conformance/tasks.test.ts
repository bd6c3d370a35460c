/**
 * `conformance --binding mcp-tasks`: the task-stream scenarios pass against the reference
 * TaskEventLog server (exit 0), both built in (`--reference`) and through `--url` (the server
 * on a port of its own), and catch each mutant of the reference server (exit 1, the scenario
 * that catches it named). Bad input is one line and exit 2.
 */
import { describe, expect, test } from 'vitest';
import { serveFetch } from '../../src/conformance/fetch-host.js';
import {
  TASK_SERVER_MUTANTS,
  taskReferenceHandler,
  type TaskServerMutantName,
} from '../../src/conformance/task-reference.js';
import { runCli } from '../support/cli.js';

/** The scenario each mutant must fail (it may fail others too). */
const CAUGHT_BY: Record<TaskServerMutantName, string> = {
  'silent-skip': 'events-gone',
  renumbering: 'earliest-retained',
  'bare-410': 'events-gone',
  'replay-from-head': 'resume-after',
  'skip-one': 'resume-after',
};

describe('conformance --binding mcp-tasks', () => {
  test('the reference server through --url: every scenario passes, exit 0', async () => {
    const host = await serveFetch(taskReferenceHandler());
    try {
      const r = await runCli([
        'conformance',
        '--binding',
        'mcp-tasks',
        '--url',
        host.url,
        '--timeout',
        '10000',
      ]);
      expect(r.out).toMatch(/8 of 8 task scenarios pass/);
      expect(r.code, r.out + r.err).toBe(0);
    } finally {
      await host.close();
    }
  });

  test('--reference --json: every scenario passes', async () => {
    const r = await runCli([
      'conformance',
      '--binding',
      'mcp-tasks',
      '--reference',
      '--json',
      '--timeout',
      '10000',
    ]);
    const report = JSON.parse(r.out) as { results: { scenario: string; verdict: string }[] };
    expect(report.results.map((x) => x.verdict)).toEqual(report.results.map(() => 'pass'));
    expect(r.code).toBe(0);
  });

  test.each(TASK_SERVER_MUTANTS.map((m) => [m.name, m.description] as const))(
    'mutant %s (%s) is caught: exit 1',
    async (name) => {
      const host = await serveFetch(taskReferenceHandler(name));
      try {
        const r = await runCli([
          'conformance',
          '--binding',
          'mcp-tasks',
          '--url',
          host.url,
          '--json',
          // A mutant may leave a live stream waiting: the bound ends it (its verdict is not
          // the one asserted).
          '--timeout',
          '3000',
        ]);
        const report = JSON.parse(r.out) as {
          results: { scenario: string; verdict: string; detail: string }[];
        };
        const caught = report.results.find((x) => x.scenario === CAUGHT_BY[name]);
        expect(caught?.verdict, JSON.stringify(report.results)).toBe('fail');
        expect(r.code).toBe(1);
        console.log(`[task server mutant ${name}] ${caught!.scenario}: ${caught!.detail}`);
      } finally {
        await host.close();
      }
    },
  );

  test('bad input: one line, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--binding', 'mcp-grpc', '--reference'], /unknown --binding "mcp-grpc"/],
      [['--binding', 'mcp-tasks'], /needs --url URL or --reference/],
      [
        ['--binding', 'mcp-tasks', '--reference', '--reference-mutant', 'x'],
        /unknown --reference-mutant/,
      ],
      [['--binding', 'mcp-tasks', '--reference', '--only', 'nope'], /unknown task scenario "nope"/],
      [
        ['--binding', 'mcp-tasks', '--reference', '--retention', '3'],
        /--retention is not an option/,
      ],
      [['--binding', 'mcp-tasks', '--url', 'http://10.0.0.1:80/mcp'], /loopback/],
      [['--reference'], /--reference needs --binding mcp-tasks/],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(['conformance', ...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
});
