/**
 * The layers of the code and the rules that keep them (dependency-cruiser; `npm run lint:layers`,
 * run by `npm test`). docs/architecture.md draws them, from the same list.
 *
 * A layer may import its own layer and the layers below it, never one above. The tests
 * (properties/) may import anything. There are no import circles, type-only imports included.
 * The runtime's public entries never reach a mutant builder: those are test tools.
 */
/* global module */

/** The layers, lowest first: each entry's `paths` are regular expressions on repo paths. */
const LAYERS = [
  {
    name: 'model',
    summary: 'the client machine, bindings, simulated world, claims, model checks and mutants',
    paths: ['^model/'],
  },
  {
    name: 'oracle',
    summary: 'reads a trace and classifies its reconnects; the exhaustive checker',
    paths: ['^src/trace/', '^src/verify/', '^src/reference[.]ts$', '^src/classify[.]ts$'],
  },
  {
    name: 'runtime',
    summary: 'the deployable guard and its stores; the package entry',
    paths: ['^src/runtime/', '^src/redis/', '^src/index[.]ts$'],
  },
  {
    name: 'conformance',
    summary: 'the conformance kit: scenarios, rows, adapters around real SDKs; runtime mutants',
    paths: ['^src/conformance/', '^src/runtime-mutants/'],
  },
  {
    name: 'docs',
    summary: 'the docs generators (diagrams, mutation tables) and explore (with world strings)',
    paths: ['^src/docs-gen/', '^src/explore/'],
  },
  {
    name: 'cli',
    summary: 'the CLI: its entry, its helpers and its commands',
    paths: ['^src/commands/', '^src/cli[.]ts$'],
  },
  {
    name: 'top',
    summary: 'the playground and the benchmarks',
    paths: ['^src/playground/', '^bench/'],
  },
];

const either = (patterns) => patterns.map((p) => `(${p})`).join('|');

/** One rule per layer: nothing in it imports a layer above it. */
const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.name}`,
  comment: `${layer.name} may import only ${LAYERS.slice(0, i + 1)
    .map((l) => l.name)
    .join(', ')}`,
  severity: 'error',
  from: { path: either(layer.paths) },
  to: { path: either(LAYERS.slice(i + 1).flatMap((l) => l.paths)) },
}));

/** Every module in a circle: none is allowed. */
const circles = [
  {
    name: 'no-circular',
    comment: 'no import circles: what both files need moves down into a file both import',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    ...circles,
    {
      name: 'no-mutants-in-deployables',
      comment: "the package's and the runtime's public entries never reach a mutant builder",
      severity: 'error',
      from: { path: '^src/(index|runtime/index|redis/index)[.]ts$' },
      to: { path: '^(model/mutants/|src/runtime-mutants/)', reachable: true },
    },
    {
      name: 'no-tests-in-code',
      comment: 'code never imports the tests',
      severity: 'error',
      from: { path: '^(model|src|bench)/' },
      to: { path: '^properties/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    // Type-only imports count: a circle of types is still a circle for a reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node'] },
  },
};
// The layers, for the architecture page's generator (properties/support/architecture.mjs); not
// enumerable, so that dependency-cruiser's check of its own options does not see it.
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS, enumerable: false });
