/**
 * `payops demo`: payops end to end on this machine with nothing to configure. The Payments API
 * sandbox, the Slack emulation and the real bot start on loopback with ephemeral ports, then a
 * console lets you type `/pay …` as someone in the emulated workspace and read the answers.
 * The bot logs to a file, so its lines never interleave with the conversation.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_BUSINESS } from '../sandbox/payments-api.ts';
import { type Rehearsal, startRehearsal } from '../sandbox/rehearsal.ts';
import { DEFAULT_CHANNELS, DEFAULT_USER_GROUPS, DEFAULT_USERS } from '../sandbox/slack.ts';
import { ANSI_STYLE, PLAIN_STYLE } from '../slack/blocks/to-text.ts';
import { type DemoWorkspace, runDemoConsole, WorkspaceDirectory } from './demo-console.ts';

const WORKSPACE: DemoWorkspace = {
  users: DEFAULT_USERS,
  channels: DEFAULT_CHANNELS,
  userGroups: DEFAULT_USER_GROUPS,
};
/** alice, bob and carol, and the approvers' group: erin and dave are left out to be refused. */
const READERS = ['U0ALICE', 'U0BOB', 'U0CAROL', 'S0APPROVERS'];
/** Named in the refusal, so it shows a mention resolved to a name. */
const ACCESS_ADMIN = '<@U0ALICE>';
const FIRST_USER = 'alice';
const FIRST_CHANNEL = 'C0PAYOPS';

export const usage = `Usage: payops demo

payops end to end on this machine, with nothing to configure: the Payments API sandbox, an
emulated Slack workspace and the real bot on loopback, and a console where you type /pay …
as someone in that workspace. Type help there for the console's commands, quit to stop.`;

export const flags: readonly string[] = [];

export async function run(): Promise<number> {
  const directory = new WorkspaceDirectory(WORKSPACE);
  const logPath = join(tmpdir(), `payops-demo-${process.pid}.log`);
  const log = createWriteStream(logPath);
  const level = process.env.LOG_LEVEL ?? 'warn';

  console.log('Starting the Payments API sandbox, an emulated Slack and payops…');
  let rehearsal: Rehearsal;
  try {
    rehearsal = await startRehearsal({
      slack: WORKSPACE,
      logDestination: log,
      env: {
        PAYOPS_READERS: READERS.join(','),
        PAYOPS_ACCESS_ADMIN: ACCESS_ADMIN,
        LOG_LEVEL: level,
      },
    });
  } catch (error) {
    console.error(`The demo could not start: ${error instanceof Error ? error.message : error}`);
    console.error(`The bot's log is in ${logPath}`);
    // What startRehearsal had started before it failed may still listen and keep us alive.
    process.exit(1);
  }

  printBanner(rehearsal, directory, logPath);
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  try {
    await runDemoConsole({
      input: process.stdin,
      output: process.stdout,
      emulation: rehearsal.slack,
      botUrl: rehearsal.botUrl,
      directory,
      user: FIRST_USER,
      channel: FIRST_CHANNEL,
      terminal: interactive,
      echo: !interactive,
      style: interactive && !process.env.NO_COLOR ? ANSI_STYLE : PLAIN_STYLE,
      timeoutHint: `The bot's log is in ${logPath}`,
      signal: stop.signal,
    });
  } finally {
    console.log('Stopping payops, the emulated Slack and the sandbox…');
    await rehearsal.close();
    log.end();
    await once(log, 'close');
  }
  // An empty log is noise in the temporary folder; a non-empty one is worth pointing at.
  if ((await stat(logPath)).size === 0) await rm(logPath);
  else console.log(`payops logged warnings or errors while it ran: see ${logPath}`);
  console.log('Stopped.');
  return 0;
}

function printBanner(rehearsal: Rehearsal, directory: WorkspaceDirectory, logPath: string): void {
  const readers = directory.people().filter((user) => READERS.includes(user.id));
  const others = directory.people().filter((user) => !READERS.includes(user.id));
  const names = (users: { name: string }[]) => users.map((user) => `@${user.name}`).join(', ');
  console.log(
    [
      '',
      'payops demo: everything runs on this machine, no Slack workspace or API key needed.',
      `  Payments API sandbox  ${rehearsal.sandbox.url}  (${SANDBOX_BUSINESS.name}, ${SANDBOX_BUSINESS.id})`,
      `  emulated Slack        ${rehearsal.slack.url}  (people: ${names(directory.people())})`,
      `  payops, the real bot  ${rehearsal.botUrl}  (answers correctly signed Slack requests)`,
      `${names(readers)} may use payops; ${names(others)} may not.`,
      `The bot logs to ${logPath}`,
      '',
      'Try:',
      '  /pay wallets',
      '  /pay balance',
      '  as erin    then    /pay me',
      'Type help for the console commands, quit or Ctrl-D to stop.',
      '',
    ].join('\n'),
  );
}
