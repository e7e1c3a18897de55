/**
 * `payops demo`: payops end to end on this machine with nothing to configure. The Payments API
 * sandbox, the Slack emulation and the real bot start on loopback with ephemeral ports, then a
 * console lets you type `/pay …` as someone in the emulated workspace and read the answers;
 * `--tour` plays the approval flow in it by itself. The bot logs to a file, so its lines never
 * interleave with the conversation.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS } from '../../domain/operations.ts';
import { DEFAULT_PURPOSE_REQUIRED } from '../../domain/purpose.ts';
import { type Rehearsal, startRehearsal } from '../rehearsal.ts';
import { SANDBOX_BUSINESS } from '../sandbox/payments-api.ts';
import { isObject, parseJson } from '../sandbox/slack.ts';
import { DemoConsole } from './demo-console.ts';
import { EMULATED_WORKSPACE, WorkspaceDirectory } from './demo-directory.ts';
import { TOUR_SETTINGS, type TourContext, tourScript } from './demo-tour.ts';
import { ANSI_STYLE, PLAIN_STYLE } from './to-text.ts';

/** Everyone but erin, who is left out to be refused; the approvers' group shows a group role. */
const READERS = ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0DAVE', 'S0APPROVERS'];
/** Named in the refusal, so it shows a mention resolved to a name. */
const ACCESS_ADMIN = '<@U0ALICE>';
/** What a deployment requires by default (the rehearsals' own environment requires none). */
const DEMO_REQUIRE_PURPOSE = DEFAULT_PURPOSE_REQUIRED.map((id) => OPERATIONS[id].command).join(',');
const FIRST_USER = 'alice';
const FIRST_CHANNEL = 'C0PAYOPS';
/** The sandbox moves a payout on every 5 s: followed this often, each move shows soon after. */
const FOLLOW_INTERVAL_MS = '2000';

export const usage = `Usage: payops demo [--tour]

payops end to end on this machine, with nothing to configure: the Payments API sandbox, an
emulated Slack workspace and the real bot on loopback, and a console where you type /pay …
as someone in that workspace. Type help there for the console's commands, quit to stop.
  --tour  play the approval flow by itself, saying each step, then stop`;

export const flags: readonly string[] = ['--tour'];

export async function run(args: string[] = []): Promise<number> {
  const tour = args.includes('--tour');
  const directory = new WorkspaceDirectory(EMULATED_WORKSPACE);
  const logPath = join(tmpdir(), `payops-demo-${process.pid}.log`);
  const log = createWriteStream(logPath);
  const level = process.env.LOG_LEVEL ?? 'warn';

  console.log('Starting the Payments API sandbox, an emulated Slack and payops…');
  let rehearsal: Rehearsal;
  try {
    rehearsal = await startRehearsal({
      slack: EMULATED_WORKSPACE,
      logDestination: log,
      ...(tour ? { sandbox: TOUR_SETTINGS.sandbox } : {}),
      env: {
        PAYOPS_READERS: READERS.join(','),
        PAYOPS_ACCESS_ADMIN: ACCESS_ADMIN,
        PAYOPS_FOLLOW_INTERVAL_MS: FOLLOW_INTERVAL_MS,
        PAYOPS_REQUIRE_PURPOSE: DEMO_REQUIRE_PURPOSE,
        LOG_LEVEL: level,
        ...(tour ? TOUR_SETTINGS.env : {}),
      },
    });
  } catch (error) {
    console.error(`The demo could not start: ${error instanceof Error ? error.message : error}`);
    console.error(`The bot's log is in ${logPath}`);
    // What startRehearsal had started before it failed may still listen and keep us alive.
    process.exit(1);
  }

  printBanner(rehearsal, directory, logPath, tour);
  const interactive = !tour && Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const style = process.stdout.isTTY && !process.env.NO_COLOR ? ANSI_STYLE : PLAIN_STYLE;
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const write = (text: string) => process.stdout.write(text);
  const context: TourContext = { rehearsal, style, write };
  let code = 0;
  try {
    const shell = new DemoConsole({
      input: tour ? tourScript(context) : process.stdin,
      output: process.stdout,
      emulation: rehearsal.slack,
      botUrl: rehearsal.botUrl,
      directory,
      user: FIRST_USER,
      channel: FIRST_CHANNEL,
      terminal: interactive,
      echo: !interactive,
      style,
      timeoutHint: `The bot's log is in ${logPath}`,
      signal: stop.signal,
    });
    context.console = shell;
    await shell.run();
  } catch (error) {
    // The tour's script throws where payops did not do what it should have.
    const what = tour ? 'The tour' : 'The demo';
    console.error(`${what} stopped: ${error instanceof Error ? error.message : error}`);
    code = 1;
  } finally {
    console.log('Stopping payops, the emulated Slack and the sandbox…');
    await rehearsal.close();
    log.end();
    await once(log, 'close');
  }
  // A log holding nothing unexpected is noise in the temporary folder; another is worth pointing at.
  const expected = tour ? TOUR_SETTINGS.expectedLogLines : [];
  if (unexpectedLogLines(await readFile(logPath, 'utf8'), expected).length === 0) await rm(logPath);
  else console.log(`payops logged warnings or errors while it ran: see ${logPath}`);
  console.log('Stopped.');
  return code;
}

function printBanner(
  rehearsal: Rehearsal,
  directory: WorkspaceDirectory,
  logPath: string,
  tour: boolean,
): void {
  const readers = directory.people().filter((user) => READERS.includes(user.id));
  const others = directory.people().filter((user) => !READERS.includes(user.id));
  const names = (users: { name: string }[]) => users.map((user) => `@${user.name}`).join(', ');
  const { timeZone } = Intl.DateTimeFormat().resolvedOptions();
  console.log(
    [
      '',
      'payops demo: everything runs on this machine, no Slack workspace or API key needed.',
      `  Payments API sandbox  ${rehearsal.sandbox.url}  (${SANDBOX_BUSINESS.name}, ${SANDBOX_BUSINESS.id})`,
      `  emulated Slack        ${rehearsal.slack.url}  (people: ${names(directory.people())})`,
      `  payops, the real bot  ${rehearsal.botUrl}  (answers correctly signed Slack requests)`,
      `${names(readers)} may use payops; @alice and @dave may request payments, @alice, @bob and @carol approve them; ${names(others)} may not use payops.`,
      `Times are shown in this machine's time zone (${timeZone}). The bot logs to ${logPath}`,
      '',
      ...(tour
        ? ['The tour: the approval flow, step by step.']
        : [
            'Try the approval flow (or quit and run npm run demo -- --tour to watch it played):',
            '  /pay payout                 alice asks for a payout: fill in the form, then submit',
            '  click 1                     alice approves her own request: refused',
            '  as bob    then    click 1   a second person approves: sent once, then followed',
            '  wait                        the provider status, told in the thread as it changes',
            '  /pay requests · /pay balance · show #approvals · help · quit',
          ]),
      '',
    ].join('\n'),
  );
}

/**
 * The log's lines but those `expected`: a line is expected when it has each of an entry's fields
 * with that value, and each entry takes out one line only.
 */
export function unexpectedLogLines(
  log: string,
  expected: readonly Readonly<Record<string, unknown>>[],
): string[] {
  const left = [...expected];
  return log.split('\n').filter((line) => {
    if (line.trim() === '') return false;
    const entry = parseJson(line);
    const index = left.findIndex(
      (fields) =>
        isObject(entry) && Object.entries(fields).every(([name, value]) => entry[name] === value),
    );
    if (index === -1) return true;
    left.splice(index, 1);
    return false;
  });
}
