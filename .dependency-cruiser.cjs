/**
 * The layers of src/ (docs/architecture.md), checked on every `npm test`. Type-only imports
 * count: a type names what a module knows about, and knowing is the dependency.
 *
 * "Production" is what the `payops` bin and the bot load without being asked for a rehearsal:
 * everything in src/ but src/rehearsal/ (the Payments sandbox, the Slack emulation, the demo).
 */
const REHEARSAL = '^src/rehearsal/';
const PRODUCTION = { path: '^src/', pathNot: REHEARSAL };
/** The modules the bin loads for `payops demo` and `payops sandbox`. */
const REHEARSAL_COMMANDS = '^src/rehearsal/(demo/demo|sandbox-command)[.]ts$';
/** The configuration: its index and its sections. */
const CONFIG = '^src/config([.]ts$|/)';

/** A rule every import from `from` to `to` breaks; `comment` says why, in the failure too. */
function forbid(name, comment, from, to) {
  return { name, severity: 'error', comment, from, to };
}

module.exports = {
  forbidden: [
    forbid(
      'no-circular',
      'A cycle makes two modules one: neither can be read, tested or moved alone.',
      { path: '^src/' },
      { circular: true },
    ),
    forbid(
      'resolvable',
      'An import the check cannot resolve is an edge no rule sees: fail rather than pass blind.',
      { path: '^src/' },
      { couldNotResolve: true },
    ),
    forbid(
      'domain-imports-domain',
      'The domain is the rules alone: it knows nothing of the use cases, the provider, the store, Slack or the configuration that use it.',
      { path: '^src/domain/' },
      { path: '^src/', pathNot: '^src/domain/' },
    ),
    forbid(
      'domain-without-io',
      'The domain does no I/O: of packages it uses zod and yaml (which parse values and text they are given, never a file), and of node only crypto (keyed digests). Files, network, database and logging are for the layers around it.',
      { path: '^src/domain/' },
      {
        dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg'],
        pathNot: ['^node_modules/(zod|yaml)/', '^(node:)?crypto$'],
      },
    ),
    forbid(
      'app-not-adapters',
      'Use cases are driven by Slack and the CLI, never the other way round, and never reach the sandbox: the same workflow runs behind any front.',
      { path: '^src/app/' },
      { path: '^src/(slack|cli|rehearsal)/' },
    ),
    forbid(
      'slack-not-store',
      'Slack code parses, calls a use case and renders: what it reads or writes of the store goes through src/app, which owns the rules about it.',
      { path: '^src/slack/' },
      { path: '^src/store/' },
    ),
    forbid(
      'slack-payments-shapes-only',
      "Slack renders what the provider answered, so it may read provider bodies (response-shape.ts) and the errors it is given (errors.ts); calling the provider is for src/app's use cases.",
      { path: '^src/slack/' },
      { path: '^src/payments/', pathNot: '^src/payments/(errors|response-shape)[.]ts$' },
    ),
    forbid(
      'store-not-above',
      'The store keeps rows: the use cases, Slack and the configuration depend on it, never it on them (its ports and settings are handed to it).',
      { path: '^src/store/' },
      { path: ['^src/(app|slack|cli|rehearsal)/', CONFIG, '^src/bot[.]ts$'] },
    ),
    forbid(
      'payments-not-above',
      'The provider client knows the provider only: no use case, store or Slack behind it, so it can be used and tested alone.',
      { path: '^src/payments/' },
      { path: ['^src/(app|slack|store|cli|rehearsal)/', CONFIG, '^src/bot[.]ts$'] },
    ),
    forbid(
      'config-below-app',
      'Configuration is validated before anything runs: it may use domain rules to check values, never the use cases or adapters built from it.',
      { path: CONFIG },
      { path: ['^src/(app|slack|store|payments|cli|rehearsal)/', '^src/bot[.]ts$'] },
    ),
    forbid(
      'production-not-rehearsal',
      'The sandbox and the Slack emulation are rehearsal tools: production code never loads them (but for the commands that run them, below), so a fake can never answer for the real provider or Slack.',
      PRODUCTION,
      { path: REHEARSAL, pathNot: REHEARSAL_COMMANDS },
    ),
    forbid(
      'rehearsal-commands-lazily',
      'The bin offers demo and sandbox (run from a production install), loaded by import() only when asked for: a static import would load the sandbox with every command.',
      PRODUCTION,
      { path: REHEARSAL_COMMANDS, dynamic: false },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
