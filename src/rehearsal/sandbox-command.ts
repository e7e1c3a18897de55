import { DemoConsole } from './demo/demo-console.ts';
import { EMULATED_WORKSPACE, WorkspaceDirectory } from './demo/demo-directory.ts';
import { rehearsalEnv } from './rehearsal.ts';
import {
  isProfileName,
  PROFILE_NAMES,
  PROFILES,
  type ProfileName,
  SANDBOX_KEYS,
  type SandboxKey,
  sandboxPaymentsEnv,
  startPaymentsSandbox,
} from './sandbox/payments-api.ts';
import {
  DEFAULT_CHANNELS,
  DEFAULT_USERS,
  type SlackEmulation,
  startSlackEmulation,
} from './sandbox/slack.ts';

const profileWidth = Math.max(...PROFILE_NAMES.map((name) => name.length));

/** Where npm run dev listens unless PORT says otherwise. */
const DEV_BOT_URL = 'http://127.0.0.1:3000/slack/events';

export const usage = `Usage: payops sandbox [--profile NAME] [--console]

The Payments API sandbox and an emulated Slack workspace on 127.0.0.1, for rehearsing against
the spec. It prints the sandbox's seeded keys and a complete environment for payops: paste it
into a shell and npm run dev starts the bot against both. Ctrl-C stops them.
  --profile NAME      the provider it plays where the spec shows nothing (default: default)
${PROFILE_NAMES.map((name) => `    ${name.padEnd(profileWidth)}  ${PROFILES[name].summary}`).join('\n')}
  --console           then a console where you type /pay as someone in the emulated workspace:
                      it sends the bot signed Slack requests (quit stops everything)
  SANDBOX_BOT_URL     where the console sends them (default ${DEV_BOT_URL})
  SANDBOX_PORT        the Payments sandbox's port (default 4010)
  SANDBOX_SLACK_PORT  the Slack emulation's port (default 4011)
  SANDBOX_LATENCY_MS  a delay added to every Payments response (default 0)`;

export const flags: readonly string[] = ['--profile', '--console', ...PROFILE_NAMES];

/** The profile `--profile NAME` names (default 'default'), or what is wrong with the arguments. */
function profileFrom(args: readonly string[]): ProfileName | string {
  if (args.length === 0) return 'default';
  const [flag, name] = args;
  if (args.length === 2 && flag === '--profile' && name !== undefined && isProfileName(name)) {
    return name;
  }
  return `give --profile once, followed by one of ${PROFILE_NAMES.join(', ')}`;
}

/** `use` run against a sandbox started for it (`payops doctor --sandbox`), closed after. */
export async function withPaymentsSandbox<T>(
  use: (env: ReturnType<typeof sandboxPaymentsEnv>) => Promise<T>,
): Promise<T> {
  const sandbox = await startPaymentsSandbox();
  try {
    return await use(sandboxPaymentsEnv(sandbox));
  } finally {
    await sandbox.close();
  }
}

function nonNegativeIntegerFromEnv(name: string, fallback: number): number | string {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) return `${name} must be a non-negative integer`;
  return Number(raw);
}

function describeKey(key: SandboxKey): string {
  if (key.legacy) return 'legacy key: 403 API_KEY_SCOPE_REVIEW_REQUIRED';
  if (key.revoked) return 'revoked: 401 invalid or revoked';
  if (key.ineligible) return 'ineligible business: 401 invalid or revoked';
  return key.scopes.join(' + ');
}

/**
 * Settings of the rehearsal left to the bot: loopback and logging, which `npm run dev` sets for
 * itself, and the purpose requirement, so a person rehearsing meets a deployment's default.
 */
const LEFT_TO_THE_BOT = new Set(['PORT', 'HOST', 'LOG_LEVEL', 'PAYOPS_REQUIRE_PURPOSE']);

/** `export NAME='value'`: pasted into a POSIX shell, the value arrives exactly as printed. */
function exportLine(name: string, value: string): string {
  return `export ${name}='${value.replaceAll("'", `'\\''`)}'`;
}

/** Starts the sandbox and the emulation and returns once they listen; SIGINT/SIGTERM close them. */
export async function run(args: string[] = []): Promise<number> {
  const withConsole = args.includes('--console');
  const profile = profileFrom(args.filter((arg) => arg !== '--console'));
  const port = nonNegativeIntegerFromEnv('SANDBOX_PORT', 4010);
  const slackPort = nonNegativeIntegerFromEnv('SANDBOX_SLACK_PORT', 4011);
  const latencyMs = nonNegativeIntegerFromEnv('SANDBOX_LATENCY_MS', 0);
  if (!isProfileName(profile)) {
    console.error(`payops sandbox: ${profile}.\n\n${usage}`);
    return 2;
  }
  const problems = [port, slackPort, latencyMs].filter((value) => typeof value === 'string');
  if (typeof port === 'string' || typeof slackPort === 'string' || typeof latencyMs === 'string') {
    console.error(`payops sandbox: ${problems.join('; ')}`);
    return 2;
  }
  const sandbox = await startPaymentsSandbox({ port, host: '127.0.0.1', latencyMs, profile });
  const slack = await startSlackEmulation({ port: slackPort }).catch(async (error: unknown) => {
    await sandbox.close();
    throw error;
  });

  const keyWidth = Math.max(...Object.keys(SANDBOX_KEYS).map((key) => key.length));
  const people = DEFAULT_USERS.filter((user) => !user.deleted).map((user) => `@${user.name}`);
  const channels = Object.values(DEFAULT_CHANNELS).map((channel) => `#${channel.name}`);
  console.log(
    `Payments API sandbox listening on ${sandbox.url}, playing the ${profile} provider: ${PROFILES[profile].summary}`,
  );
  if (latencyMs > 0) console.log(`Every response is delayed by ${latencyMs} ms.`);
  console.log(
    `Slack emulation listening on ${slack.url} (${people.join(', ')}; ${channels.join(', ')})`,
  );
  console.log('\nSeeded API keys (send as X-Api-Key):');
  for (const [key, spec] of Object.entries(SANDBOX_KEYS)) {
    console.log(`  ${key.padEnd(keyWidth)}  ${spec.customerId.padEnd(14)}  ${describeKey(spec)}`);
  }
  console.log(
    [
      '',
      'Environment for payops, made for this sandbox and emulation only: the Slack token and',
      'signing secret are the emulation’s, the store keys were generated now, and the store is',
      'in memory. Paste it into a shell, then run npm run dev there.',
    ].join('\n'),
  );
  for (const [name, value] of Object.entries(rehearsalEnv(sandbox, slack))) {
    if (!LEFT_TO_THE_BOT.has(name)) console.log(exportLine(name, value));
  }
  if (withConsole) {
    await typeCommands(slack, process.env.SANDBOX_BOT_URL || DEV_BOT_URL);
    console.log('Stopping the sandbox and the Slack emulation');
    await Promise.all([sandbox.close(), slack.close()]);
    return 0;
  }
  console.log(
    '\nThe emulated Slack sends the bot nothing by itself: start the sandbox with --console to type /pay as someone in it.',
  );
  console.log('\nCtrl-C to stop.');

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.log(`\n${signal}: stopping the sandbox and the Slack emulation`);
      // Once closed nothing holds the event loop, so the process ends by itself.
      void Promise.all([sandbox.close(), slack.close()]);
    });
  }
  return 0;
}

/** The demo's console in front of a bot started apart, until quit or the end of the input. */
async function typeCommands(slack: SlackEmulation, botUrl: string): Promise<void> {
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  console.log(
    `\nOnce the bot listens, type /pay help here: the console sends it to ${botUrl} as @alice in #payops (help lists the console's commands).\n`,
  );
  await new DemoConsole({
    input: process.stdin,
    output: process.stdout,
    emulation: slack,
    botUrl,
    directory: new WorkspaceDirectory(EMULATED_WORKSPACE),
    user: 'alice',
    channel: 'C0PAYOPS',
    terminal,
    echo: !terminal,
  }).run();
}
