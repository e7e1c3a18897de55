import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { App, LogLevel } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { unexpectedLogLines } from '../../../src/rehearsal/demo/demo.ts';
import {
  type DemoConsoleOptions,
  runDemoConsole,
} from '../../../src/rehearsal/demo/demo-console.ts';
import { WorkspaceDirectory } from '../../../src/rehearsal/demo/demo-directory.ts';
import { type Rehearsal, startRehearsal } from '../../../src/rehearsal/rehearsal.ts';
import { SANDBOX_IDS } from '../../../src/rehearsal/sandbox/payments-api.ts';
import {
  botEventsUrl,
  DEFAULT_CHANNELS,
  DEFAULT_SLACK,
  DEFAULT_USER_GROUPS,
  DEFAULT_USERS,
  type SlackEmulation,
  startSlackEmulation,
} from '../../../src/rehearsal/sandbox/slack.ts';

const directory = new WorkspaceDirectory({
  users: DEFAULT_USERS,
  channels: DEFAULT_CHANNELS,
  userGroups: DEFAULT_USER_GROUPS,
});
const { wallet } = SANDBOX_IDS;
const PAYOUT = (amount: string) =>
  `/pay payout wallet_id=${wallet.solanaTreasury} amount=${amount} currency=USDC beneficiary_name="Jane Roe" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach`;

type SessionOptions = Partial<DemoConsoleOptions> &
  Pick<DemoConsoleOptions, 'emulation' | 'botUrl'>;

/**
 * Types `lines` into a console (then the input ends) and returns everything it printed; a script
 * instead reads what was printed before it types each next line.
 */
async function session(
  lines: string[] | ((printed: () => string) => AsyncIterable<string>),
  options: SessionOptions,
): Promise<string> {
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  await runDemoConsole({
    input: Array.isArray(lines)
      ? Readable.from(lines.map((line) => `${line}\n`))
      : lines(() => printed),
    output,
    directory,
    user: 'alice',
    channel: 'C0PAYOPS',
    echo: true,
    ...options,
  });
  return printed;
}

/** The amounts of the payouts the provider has executed, in order. */
function payoutsSent(rehearsal: Rehearsal): string[] {
  return rehearsal.sandbox.requests
    .filter((request) => request.operationId === 'createPayout' && request.executed)
    .map((request) => String(JSON.parse(request.body).amount));
}

describe('the demo console in front of the real bot', () => {
  let rehearsal: Rehearsal;
  const run = (lines: Parameters<typeof session>[0], options: Partial<DemoConsoleOptions> = {}) =>
    session(lines, { emulation: rehearsal.slack, botUrl: rehearsal.botUrl, ...options });

  beforeAll(async () => {
    // Readers: dave and the approvers' group (alice, bob, carol); erin is not one.
    rehearsal = await startRehearsal({ env: { PAYOPS_ACCESS_ADMIN: '<@U0ALICE>' } });
  });
  afterAll(() => rehearsal.close());
  afterEach(() => rehearsal.sandbox.setLatency(0));

  it('a scripted session shows wallets with their ids, a balance as payops shows provider amounts, and erin refused', async () => {
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
    expect(printed).toContain('1,250.50 USDC');
    expect(printed).toContain('erin@#payops> /pay me\n');
    expect(printed).toMatch(/not on the list of people who may use payops.*ask @alice/);
    expect(printed).not.toMatch(/undefined|\[object Object\]|<@U|\*\w/);
  });

  it('rejects a card through its reason form, then approves an older card by its reference after other answers', async () => {
    const sentBefore = payoutsSent(rehearsal);
    const printed = await run([
      PAYOUT('25.00'),
      PAYOUT('30.00'),
      'as carol',
      'click 6',
      'fill',
      'Duplicate of the first one.',
      'submit',
      '/pay requests',
      `/pay balance ${wallet.solanaTreasury}`,
      'as bob',
      'in #approvals',
      'click 1',
      'click 5',
    ]);
    // Two cards: [1] Approve [2] Reject [3] Ask a question, then [5] Approve [6] Reject [7] Ask a
    // question, each with a [4]/[8] Cancel.
    expect(printed).toMatch(
      /#(\d+) · Create a payout · 25\.00 USDC[\s\S]*?\[1\] Approve {2}\[2\] Reject {2}\[3\] Ask a question/,
    );
    expect(printed).toMatch(
      /#(\d+) · Create a payout · 30\.00 USDC[\s\S]*?\[5\] Approve {2}\[6\] Reject {2}\[7\] Ask a question/,
    );
    expect(printed).toContain(
      '@carol clicks [6] Reject\npayops opened a modal:\n  Reject request #',
    );
    expect(printed).toContain('• Why is it rejected? (reason): ____');
    expect(printed).toContain('  Why is it rejected? (reason)> Duplicate of the first one.\n');
    expect(printed).toMatch(
      /carol@#payops \[Reject request #\d+\]> submit\n@carol submits Reject request #\d+\n[\s\S]*?🚫 Rejected by @carol today [\d:]+: Duplicate of the first one\.[\s\S]*?carol@#payops> \/pay requests/,
    );
    // After the rejection, a list and a balance were printed; bob still reaches the first card.
    expect(printed).toContain(
      'bob@#approvals> click 1\n@bob clicks [1] Approve\npayops updated a message in #approvals:',
    );
    expect(printed).toMatch(
      /#\d+ · Create a payout · 25\.00 USDC\n[^\n]*\n {2}✅ Submitted to the provider, not settled\. Approved by @bob/,
    );
    expect(printed).toContain(
      'payops has changed that message since: it no longer has [5] Approve',
    );
    expect(payoutsSent(rehearsal)).toEqual([...sentBefore, '25.00']);
    expect(printed).not.toMatch(
      /undefined|\[object Object\]|:white_check_mark:|\d{4}-\d\d-\d\dT\d\d:/,
    );
  });

  it('a form payops refuses shows one line per field in error, and stays open until cancelled', async () => {
    const printed = await run([
      '/pay payout',
      'submit amount=12.00',
      `wallet_id=solana amount=twelve currency=US$ beneficiary_name=Jane Roe beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach`,
      'as bob',
      'submit',
      'cancel',
      'as bob',
    ]);
    expect(printed).toContain('payops opened a modal:\n  Request a payout\n');
    expect(printed).toContain(
      'Slack would not send the form yet: wallet_id, currency, beneficiary_name, beneficiary_account, beneficiary_routing, destination_type are required.',
    );
    expect(printed).toContain('A form is open: submit it or cancel it first.');
    const errors = /payops did not accept the form[^\n]*\n((?: {2}✗ [^\n]*\n)+)/.exec(printed)?.[1];
    expect(errors?.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^ {2}✗ amount: (?!amount)\S/),
      expect.stringMatching(/^ {2}✗ currency: (?!currency)\S/),
    ]);
    expect(printed).toContain(
      'alice@#payops [Request a payout]> cancel\nThe form is closed; nothing was sent.\nalice@#payops> as bob',
    );
  });

  it("home opens the current person's Home tab as Slack does: payops draws it, and its buttons are clicked like any other", async () => {
    const sentBefore = payoutsSent(rehearsal);
    /** The reference of the Approve button of the 41.00 request on the Home tab drawn last. */
    const homeApprove = (text: string) =>
      /41\.00 USDC[\s\S]*?\[(\d+)\] Approve/.exec(
        text.slice(text.lastIndexOf('payops drew your Home tab:')),
      )?.[1];
    const printed = await run(async function* (printedSoFar) {
      yield PAYOUT('41.00');
      yield 'as bob';
      yield 'home';
      yield `click ${homeApprove(printedSoFar()) ?? 'none'}`;
    });
    expect(printed).toMatch(
      /bob@#payops> home\n[\s\S]*?payops drew your Home tab:\n {2}Waiting for your approval \(/,
    );
    const approve = homeApprove(printed.slice(0, printed.indexOf('bob@#payops> click')));
    // The Home tab's own button, numbered after the card's [1] Approve [2] Reject [3] Ask a
    // question and [4] Cancel.
    expect(Number(approve)).toBeGreaterThan(4);
    expect(printed).toContain(`@bob clicks [${approve}] Approve\n`);
    await vi.waitFor(() => expect(payoutsSent(rehearsal)).toEqual([...sentBefore, '41.00']), {
      timeout: 10_000,
    });
  });

  it('a file payops shares shows in its message, in `show` too, and `file n` prints it', async () => {
    const printed = await run(['as bob', '/pay audit', 'show #approvals', 'file 1', 'file 9']);
    const shared =
      /\n {2}📎 \[file 1\] payops-audit-\d{4}-\d\d-\d\d-part-1\.csv \([\d,]+ bytes\): payops audit log, part 1 \(events 1 to \d+\)\n/;
    expect(printed).toMatch(
      new RegExp(`payops in #approvals:\\n {2}@bob asked for the audit log\\.${shared.source}`),
    );
    expect(printed).toMatch(new RegExp(`#approvals now, [^\\n]*:[\\s\\S]*${shared.source}`));
    expect(printed).toMatch(
      /bob@#payops> file 1\n\[file 1\] payops-audit-[\d-]+-part-1\.csv:\n {2}"id","at","request","actor","event"/,
    );
    expect(printed).toContain('There is no file [9]: files shown so far are [1] to [1].');
  });

  it('`upload` shares a file as the current person, and a payout names it with file=: the card shows it with its hash', async () => {
    const printed = await run(['upload invoice-2291.pdf Invoice 2291']);
    const fileId = /its file id is (F\w+)/.exec(printed)?.[1] ?? '';
    expect(printed).toContain('You shared invoice-2291.pdf (13 bytes) in #payops');
    expect(rehearsal.slack.file(fileId)?.bytes?.toString('utf8')).toBe('Invoice 2291\n');
    const requested = await run([`${PAYOUT('12.00')} file=${fileId}`, 'wait 2', 'show #approvals']);
    expect(requested).toMatch(
      /Document: invoice-2291\.pdf[^\n]*\(13 bytes, SHA-256 [0-9a-f]{12}…\)/,
    );
    expect(await run(['upload'])).toContain('Name the file');
  });

  it('the command reaches the bot as a signed request whose answer goes to the response_url', async () => {
    const before = rehearsal.slack.responses.length;
    await run(['/pay me']);
    const posts = rehearsal.slack.responses.slice(before);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.status).toBe(200);
  });

  it('`as` and `in` change who types where, and the prompt says so', async () => {
    const printed = await run([
      'as bob',
      'in #general',
      'in payops',
      'as @carol',
      'in #C0APPROVALS',
    ]);
    expect(printed).toContain('You are now @bob (Bob Baker).\nbob@#payops> ');
    expect(printed).toContain('You are now in #general.\nbob@#general> ');
    expect(printed).toContain('bob@#payops> as @carol\nYou are now @carol');
    expect(printed).toContain('You are now in #approvals.\ncarol@#approvals> ');
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
    for (const usage of [
      '/pay <words>',
      'as <name>',
      'in <#channel>',
      'click <n>',
      'show [#channel]',
      'wait [seconds]',
      'quit',
    ]) {
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
    expect(printed).toMatch(/waiting…\n[\s\S]*?cus_acme01/);
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

describe('the README', () => {
  it("the README's walk-through runs as written: every line answered, one payout sent", async () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('## The core flow, in the demo'));
    const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(10);
    // A demo of its own: the walk-through names requests #1 to #3. Purposes required, as the
    // demo (and a deployment) requires them.
    const demo = await startRehearsal({
      env: { PAYOPS_FOLLOW_INTERVAL_MS: '500', PAYOPS_REQUIRE_PURPOSE: '' },
    });
    let printed: string;
    try {
      printed = await session([...lines, 'quit'], { emulation: demo.slack, botUrl: demo.botUrl });
      expect(payoutsSent(demo)).toEqual(['25.00']);
    } finally {
      await demo.close();
    }
    expect(printed).not.toMatch(
      /There is no button|button of request #\d+ is shown|No form is open|not a console command|payops refused the request|showed nothing within|has changed that message since/,
    );
    expect(printed).toContain('You requested this, so you cannot approve it');
    expect(printed).toMatch(/Submitted to the provider, not settled\. Approved by @bob/);
    expect(printed).toMatch(/Request #\d+ is cancelled; nothing was sent/);
    expect(printed).toMatch(/Rejected by @carol today [\d:]+: Duplicate of the first payout/);
    expect(printed).toContain('Payments are frozen (incident drill)');
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

/** `payops demo` with these arguments and typed lines: how it exits and what it printed. */
async function demo(args: string[], typed: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/payops.ts', 'demo', ...args], {
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
  child.stdin.end(typed.map((line) => `${line}\n`).join(''));
  // A demo that hangs is killed, so the assertions say what it printed. Generous: it starts
  // PGlite, a sandbox and an emulation, which takes seconds on a busy 2-core machine.
  const deadline = setTimeout(() => child.kill(), 40_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(deadline);
  return { code, stdout, stderr };
}

describe('payops demo', () => {
  it('starts everything, answers typed commands and exits 0 on quit', async () => {
    const { code, stdout, stderr } = await demo(
      [],
      ['/pay wallets', `/pay balance ${wallet.ethereumOps}`, 'as erin', '/pay me', 'quit'],
    );
    expect({ code, stderr, stdout: code === 0 ? '' : stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: '',
    });
    expect(stdout).toContain('/pay wallets');
    expect(stdout).toContain('as erin');
    for (const id of Object.values(wallet)) expect(stdout).toContain(id);
    expect(stdout).toContain('1,250.50 USDC');
    expect(stdout).toMatch(
      /erin@#payops> \/pay me\n.*\n\s+Sorry, you are not on the list[^\n]*ask @alice\./,
    );
    expect(stdout).toMatch(/Stopped\.\n$/);
    // The bot's log lines go to a file, never into the conversation.
    expect(stdout).not.toContain('"level"');
  }, 60_000);

  it('--tour plays the whole approval flow, each step said first, and exits 0', async () => {
    const { code, stdout, stderr } = await demo(['--tour']);
    expect({ code, stderr, stdout: code === 0 ? '' : stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: '',
    });
    const steps = [...stdout.matchAll(/^── (\d)\/8 /gm)].map(([, step]) => Number(step));
    expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Each step's outcome, in the order told.
    const outcomes = [
      /── 2\/8[^\n]*\nalice@#payops> click 1\n@alice clicks \[1\] Approve\n[^\n]*\n {2}You requested this, so you cannot approve it/,
      /@bob clicks \[1\] Approve\n[\s\S]*?✅ Submitted to the provider, not settled\. Approved by @bob/,
      /Provider status changed: pending → processing\./,
      /Provider status changed: processing → completed\. It is a success; payops keeps watching it for a return or reversal/,
      /@carol submits Reject request #2\n[\s\S]*?🚫 Rejected by @carol [^:]+:\d\d:\d\d: Jane Roe was paid already this week/,
      /Payments are frozen \(incident drill\)[\s\S]*?@bob clicks \[9\] Approve\n[^\n]*\n {2}Payments are frozen \(incident drill\): your approval was not counted/,
      /Payments are unfrozen\.[\s\S]*?#3 was approved by @bob and submitted to the provider/,
    ];
    let rest = stdout;
    for (const outcome of outcomes) {
      const found = outcome.exec(rest);
      expect(found, String(outcome)).not.toBeNull();
      rest = rest.slice((found?.index ?? 0) + (found?.[0].length ?? 0));
    }
    // Sent once each: #1 and, after the freeze, #3.
    expect(stdout.match(/was approved by @bob and submitted to the provider/g)).toHaveLength(2);
    expect(stdout).toMatch(/Stopped\.\n$/);
    expect(stdout).not.toMatch(/undefined|\[object Object\]|:warning:|\d{4}-\d\d-\d\dT\d\d:/);
    // Not a terminal: no colours.
    expect(stdout).not.toContain('\u001b[');
    // The freeze drill's own warnings are expected: the tour leaves no log behind.
    expect(stdout).not.toContain('payops logged warnings');
    const logPath = /The bot logs to (\S+\.log)/.exec(stdout)?.[1];
    expect(logPath).toBeDefined();
    expect(existsSync(logPath as string)).toBe(false);
  }, 60_000);
});

describe("the demo's log at the end", () => {
  const line = (fields: Record<string, unknown>) => JSON.stringify({ time: 1, ...fields });
  const frozen = line({ level: 40, msg: 'payments frozen', userId: 'U0CAROL', reason: 'drill' });
  const unfrozen = line({ level: 40, msg: 'payments unfrozen', userId: 'U0BOB' });
  const expected = [
    { level: 40, msg: 'payments frozen', userId: 'U0CAROL', reason: 'drill' },
    { level: 40, msg: 'payments unfrozen', userId: 'U0BOB' },
  ];

  it('holds nothing unexpected when it holds only the expected lines, each once', () => {
    expect(unexpectedLogLines(`${frozen}\n${unfrozen}\n`, expected)).toEqual([]);
    expect(unexpectedLogLines('', [])).toEqual([]);
  });

  it('keeps any other line: a second freeze, someone else, another warning, text', () => {
    const other = line({ level: 40, msg: 'payments frozen', userId: 'U0DAVE', reason: 'drill' });
    const error = line({ level: 50, msg: 'could not post' });
    const log = [frozen, frozen, other, unfrozen, error, 'not json'].join('\n');
    expect(unexpectedLogLines(log, expected)).toEqual([frozen, other, error, 'not json']);
    expect(unexpectedLogLines(`${frozen}\n`, [])).toEqual([frozen]);
  });
});
