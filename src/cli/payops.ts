#!/usr/bin/env node
/**
 * `payops <command>`: the package's one executable (`bin`), built to `dist/cli/payops.js` so it
 * runs with the production dependencies alone. A command is a module loaded only when asked for;
 * adding one is one line in COMMANDS.
 */

interface Command {
  /** Printed by `payops <command> --help`. */
  usage: string;
  /** The arguments it accepts; any other is refused with its usage. */
  flags: readonly string[];
  /** How many other arguments (a file's path) it takes besides its flags; none when unset. */
  operands?: number;
  /** Resolves with the exit code, once the command is done or, for a server, once it serves. */
  run(args: string[]): Promise<number>;
}

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  start: {
    summary: 'run the bot, configured by its environment',
    load: () => import('./start.ts'),
  },
  doctor: {
    summary: "run the provider's first checks against the configured Payments API",
    load: () => import('./doctor.ts'),
  },
  sandbox: {
    summary: 'run the Payments API sandbox and an emulated Slack on 127.0.0.1',
    load: () => import('../rehearsal/sandbox-command.ts'),
  },
  demo: {
    summary: 'payops end to end on this machine, in a console, with nothing to configure',
    load: () => import('../rehearsal/demo/demo.ts'),
  },
  audit: {
    summary: "check the audit log's hash chain (`payops audit verify`)",
    load: () => import('./audit.ts'),
  },
  policy: {
    summary: 'check a policy file and say what it means (`payops policy check FILE`)',
    load: () => import('./policy-check.ts'),
  },
  'rotate-key': {
    summary: 'encrypt every stored payload with the current PAYOPS_ENCRYPTION_KEY',
    load: () => import('./rotate-key.ts'),
  },
};

const HELP_FLAGS = ['--help', '-h'];

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    'Usage: payops <command> [--help]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`),
  ].join('\n');
}

async function main([name, ...args]: string[]): Promise<number> {
  if (name === undefined) {
    console.error(help());
    return 2;
  }
  if (HELP_FLAGS.includes(name) || name === 'help') {
    console.log(help());
    return 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    console.error(`payops: there is no command ${name}.\n\n${help()}`);
    return 2;
  }
  const command = await entry.load();
  if (args.some((arg) => HELP_FLAGS.includes(arg))) {
    console.log(command.usage);
    return 0;
  }
  const unknown = args
    .filter((arg) => !command.flags.includes(arg))
    .find((arg, index) => index >= (command.operands ?? 0) || arg.startsWith('-'));
  if (unknown !== undefined) {
    console.error(`payops ${name}: unknown argument ${unknown}.\n\n${command.usage}`);
    return 2;
  }
  return command.run(args);
}

process.exitCode = await main(process.argv.slice(2));
