import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { App, LogLevel } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type DemoConsoleOptions,
  runDemoConsole,
  WorkspaceDirectory,
} from '../../src/cli/demo-console.ts';
import { SANDBOX_IDS } from '../../src/sandbox/payments-api.ts';
import { type Rehearsal, startRehearsal } from '../../src/sandbox/rehearsal.ts';
import {
  botEventsUrl,
  DEFAULT_CHANNELS,
  DEFAULT_SLACK,
  DEFAULT_USER_GROUPS,
  DEFAULT_USERS,
  type SlackEmulation,
  startSlackEmulation,
} from '../../src/sandbox/slack.ts';

const directory = new WorkspaceDirectory({
  users: DEFAULT_USERS,
  channels: DEFAULT_CHANNELS,
  userGroups: DEFAULT_USER_GROUPS,
});
const { wallet } = SANDBOX_IDS;

type SessionOptions = Partial<DemoConsoleOptions> &
  Pick<DemoConsoleOptions, 'emulation' | 'botUrl'>;

/** Types `lines` into a console (then the input ends) and returns everything it printed. */
async function session(lines: string[], options: SessionOptions): Promise<string> {
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  await runDemoConsole({
    input: Readable.from(lines.map((line) => `${line}\n`)),
    output,
    directory,
    user: 'alice',
    channel: 'C0PAYOPS',
    echo: true,
    ...options,
  });
  return printed;
}

describe('the demo console in front of the real bot', () => {
  let rehearsal: Rehearsal;
  const run = (lines: string[], options: Partial<DemoConsoleOptions> = {}) =>
    session(lines, { emulation: rehearsal.slack, botUrl: rehearsal.botUrl, ...options });

  beforeAll(async () => {
    // Readers: dave and the approvers' group (alice, bob, carol); erin is not one.
    rehearsal = await startRehearsal({ env: { PAYOPS_ACCESS_ADMIN: '<@U0ALICE>' } });
  });
  afterAll(() => rehearsal.close());
  afterEach(() => rehearsal.sandbox.setLatency(0));

  it('a scripted session shows wallets with their ids, a balance verbatim and erin refused', async () => {
    const printed = await run([
      '/pay wallets',
      `/pay balance ${wallet.ethereumOps}`,
      'as erin',
      '/pay me',
      'quit',
    ]);
    expect(printed).toContain(
      'alice@#payops> /pay wallets\npayops in #payops (only you can see this):',
    );
    for (const id of Object.values(wallet)) expect(printed).toContain(id);
    expect(printed).toContain('1250.50 USDC');
    expect(printed).toContain('erin@#payops> /pay me\n');
    expect(printed).toMatch(/not on the list of people who may use payops.*ask @alice/);
    expect(printed).not.toMatch(/undefined|\[object Object\]|<@U|\*\w/);
  });

  it('the command reaches the bot as a signed request whose answer goes to the response_url', async () => {
    const before = rehearsal.slack.responses.length;
    await run(['/pay me']);
    const posts = rehearsal.slack.responses.slice(before);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.status).toBe(200);
  });

  it('`as` and `in` change who types where, and the prompt says so', async () => {
    const printed = await run(['as bob', 'in #general', 'in payops', 'as @carol']);
    expect(printed).toContain('You are now @bob (Bob Baker).\nbob@#payops> ');
    expect(printed).toContain('You are now in #general.\nbob@#general> ');
    expect(printed).toContain('bob@#payops> as @carol\nYou are now @carol');
  });

  it('unknown people and channels are refused with the known ones; a deactivated account cannot act', async () => {
    const printed = await run(['as zed', 'in #nowhere', 'as frank']);
    expect(printed).toContain('no one called "zed" here. People: alice, bob, carol, dave, erin.');
    expect(printed).toContain(
      'no channel "#nowhere" here. Channels: #payops, #approvals, #general.',
    );
    expect(printed).toContain("frank's account is deactivated");
    expect(printed).toMatch(/alice@#payops> \n$/);
  });

  it('help lists the console commands; anything else points to help or says it is not installed', async () => {
    const printed = await run(['help', 'hello', '/other thing']);
    for (const usage of ['/pay <words>', 'as <name>', 'in <#channel>', 'click <n>', 'quit']) {
      expect(printed).toContain(usage);
    }
    expect(printed).toContain('"hello" is not a console command. Type help to see them.');
    expect(printed).toContain('Only /pay is installed in this workspace.');
  });

  it('quit stops the console: lines after it are never run', async () => {
    const before = rehearsal.slack.responses.length;
    const printed = await run(['quit', '/pay wallets']);
    expect(printed).toBe('alice@#payops> quit\n');
    expect(rehearsal.slack.responses.length).toBe(before);
  });

  it('the end of the input (Ctrl-D) ends the console like quit', async () => {
    const printed = await run(['as bob']);
    expect(printed).toMatch(/bob@#payops> \n$/);
  });

  it('a request the bot refuses, or a bot that cannot be reached, is reported at once', async () => {
    const forger = await startSlackEmulation({ signingSecret: 'not-the-bots-secret' });
    try {
      const refused = await session(['/pay me'], { emulation: forger, botUrl: rehearsal.botUrl });
      expect(refused).toContain('payops refused the request: HTTP 401');
      const unreachable = await session(['/pay me'], {
        emulation: forger,
        botUrl: 'http://127.0.0.1:9/slack/events',
      });
      expect(unreachable).toContain('Could not reach payops at http://127.0.0.1:9/slack/events');
    } finally {
      await forger.close();
    }
  });

  it('a slow answer says "waiting…" and is still shown when it comes', async () => {
    rehearsal.sandbox.setLatency(600);
    const printed = await run(['/pay me'], { waitingNoticeMs: 100 });
    expect(printed).toMatch(/waiting…\n[\s\S]*cus_acme01/);
  });

  it('an answer that does not come in time is reported, and the console carries on', async () => {
    rehearsal.sandbox.setLatency(1_500);
    const before = rehearsal.slack.responses.length;
    const printed = await run(['/pay me', 'as bob'], {
      answerTimeoutMs: 300,
      timeoutHint: 'See the log.',
    });
    expect(printed).toContain('payops showed nothing within 0.3 s. See the log.');
    expect(printed).toContain('You are now @bob');
    // Let the late answer land now, so that no later test sees it.
    await rehearsal.slack.waitFor(() => rehearsal.slack.responses.length > before);
  });
});

describe('buttons, clicks and messages the bot posts anywhere', () => {
  let emulation: SlackEmulation;
  let app: App;
  let botUrl: string;
  const clicks: { user: string; action: string; value: string | undefined }[] = [];
  const run = (lines: string[]) => session(lines, { emulation, botUrl });

  const approval = [
    { type: 'section', text: { type: 'mrkdwn', text: 'Pay *10.00 USDC* to <@U0CAROL>?' } },
    {
      type: 'actions',
      block_id: 'decision',
      elements: ['approve', 'reject'].map((action) => ({
        type: 'button',
        action_id: action,
        value: 'request-1',
        text: { type: 'plain_text', text: action === 'approve' ? 'Approve' : 'Reject' },
      })),
    },
  ];

  beforeAll(async () => {
    emulation = await startSlackEmulation();
    // A stand-in bot with buttons, until payops' own approvals have some.
    const { signingSecret, botToken: token, botId, botUserId } = DEFAULT_SLACK;
    app = new App({
      signingSecret,
      token,
      botId,
      botUserId,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: emulation.apiUrl, retryConfig: { retries: 0 } },
    });
    app.command('/pay', async ({ ack, command, respond, client }) => {
      await ack();
      if (command.text === 'request')
        await respond({ response_type: 'in_channel', blocks: approval });
      if (command.text === 'secret')
        await respond({ response_type: 'ephemeral', blocks: approval });
      if (command.text === 'notify') {
        await client.chat.postMessage({
          channel: 'U0BOB',
          text: `<@${command.user_id}> needs you`,
        });
        await client.chat
          .update({ channel: command.channel_id, ts: '1.000001', text: 'gone' })
          .catch(() => {});
      }
    });
    app.action(/approve|reject/, async ({ ack, action, body, respond }) => {
      await ack();
      const value = action.type === 'button' ? action.value : undefined;
      clicks.push({
        user: body.user.id,
        action: 'action_id' in action ? action.action_id : '',
        value,
      });
      await respond({ replace_original: true, text: `Approved by <@${body.user.id}>` });
    });
    botUrl = botEventsUrl((await app.start(0)) as Server);
  });
  afterAll(async () => {
    await app.stop();
    await emulation.close();
  });

  it('buttons are numbered and `click n` sends the signed click the bot acts on, as the current person', async () => {
    const printed = await run(['/pay request', 'as bob', 'click 1']);
    expect(printed).toContain(
      'payops in #payops:\n  Pay 10.00 USDC to @carol?\n  [1] Approve  [2] Reject',
    );
    expect(printed).toContain(
      '@bob clicks [1] Approve\npayops updated a message in #payops:\n  Approved by @bob',
    );
    expect(clicks.at(-1)).toEqual({ user: 'U0BOB', action: 'approve', value: 'request-1' });
  });

  it('a button no one offered, or on a message only someone else sees, is not clicked', async () => {
    const before = clicks.length;
    const printed = await run(['click 1', '/pay secret', 'click 3', 'as erin', 'click 2']);
    expect(printed).toContain('No button has been shown yet.');
    expect(printed).toContain('There is no button [3]: buttons shown so far are [1] to [2].');
    expect(printed).toContain('Only @alice sees that message, so only they can click its buttons.');
    expect(clicks.length).toBe(before);
  });

  it('any button shown earlier can be clicked later, whatever came since', async () => {
    const printed = await run(['/pay request', '/pay secret', 'as bob', 'click 1']);
    expect(printed).toContain('[3] Approve  [4] Reject');
    expect(printed).toContain('@bob clicks [1] Approve');
    expect(clicks.at(-1)).toEqual({ user: 'U0BOB', action: 'approve', value: 'request-1' });
  });

  it('a message the bot posts elsewhere is shown with where it went; a failed call is shown too', async () => {
    const printed = await run(['/pay notify']);
    expect(printed).toContain('payops in a DM with @bob:\n  @alice needs you');
    expect(printed).toContain("(payops' chat.update call failed: message_not_found)");
  });
});

describe('payops demo', () => {
  it('starts everything, answers typed commands and exits 0 on quit', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/payops.ts', 'demo'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdin.end(
      ['/pay wallets', `/pay balance ${wallet.ethereumOps}`, 'as erin', '/pay me', 'quit', ''].join(
        '\n',
      ),
    );
    // A demo that hangs is killed, so the assertions below say what it printed. Generous: it
    // starts PGlite, a sandbox and an emulation, which takes seconds on a busy 2-core machine.
    const deadline = setTimeout(() => child.kill(), 40_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(deadline);

    expect({ code, stderr, stdout: code === 0 ? '' : stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: '',
    });
    expect(stdout).toContain('/pay wallets');
    expect(stdout).toContain('as erin');
    for (const id of Object.values(wallet)) expect(stdout).toContain(id);
    expect(stdout).toContain('1250.50 USDC');
    expect(stdout).toMatch(
      /erin@#payops> \/pay me\n.*\n\s+Sorry, you are not on the list[^\n]*ask @alice\./,
    );
    expect(stdout).toMatch(/Stopped\.\n$/);
    // The bot's log lines go to a file, never into the conversation.
    expect(stdout).not.toContain('"level"');
  }, 60_000);
});
