import { App, LogLevel, type SlashCommand, webApi } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  botEventsUrl,
  DEFAULT_SLACK,
  dmChannelFor,
  isObject,
  rateBuckets,
  SLACK_RATE_LIMITS,
  type SlackDriver,
  type SlackEmulation,
  type SlackEmulationOptions,
  startSlackEmulation,
} from '../../../src/rehearsal/sandbox/slack.ts';

const CHANNEL = 'C0PAYOPS';

const approvalBlocks = [
  { type: 'section', block_id: 'summary', text: { type: 'mrkdwn', text: 'Pay *10.00 EUR*?' } },
  {
    type: 'actions',
    block_id: 'decision',
    elements: [
      {
        type: 'button',
        action_id: 'approve',
        text: { type: 'plain_text', text: 'Approve' },
        value: 'approval-1',
        style: 'primary',
      },
    ],
  },
];

const transferModal = {
  type: 'modal' as const,
  callback_id: 'transfer',
  private_metadata: '{"wallet":"W1"}',
  title: { type: 'plain_text' as const, text: 'New transfer' },
  submit: { type: 'plain_text' as const, text: 'Request' },
  blocks: [
    {
      type: 'input' as const,
      block_id: 'amount',
      label: { type: 'plain_text' as const, text: 'Amount' },
      element: { type: 'plain_text_input' as const, action_id: 'value' },
    },
    {
      type: 'actions' as const,
      block_id: 'extras',
      elements: [
        {
          type: 'button' as const,
          action_id: 'add_note',
          text: { type: 'plain_text' as const, text: 'Add a note' },
        },
      ],
    },
  ],
};

/** Moves the emulation's clock (trigger and response_url expiry) without waiting. */
let clockOffsetMs = 0;
let emu: SlackEmulation;
let app: App;
let driver: SlackDriver;
const commandsHandled: SlashCommand[] = [];
const clicks: string[] = [];

beforeAll(async () => {
  emu = await startSlackEmulation({ now: () => Date.now() + clockOffsetMs });
  app = new App({
    signingSecret: DEFAULT_SLACK.signingSecret,
    token: DEFAULT_SLACK.botToken,
    botId: DEFAULT_SLACK.botId,
    botUserId: DEFAULT_SLACK.botUserId,
    logLevel: LogLevel.ERROR,
    clientOptions: {
      slackApiUrl: emu.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    },
  });
  app.command('/pay', async ({ command, ack, respond, client }) => {
    await ack();
    commandsHandled.push(command);
    if (command.text === 'new') {
      await client.views.open({ trigger_id: command.trigger_id, view: transferModal });
    } else {
      await respond({ response_type: 'ephemeral', text: `Looking up ${command.text}` });
    }
  });
  app.action('approve', async ({ ack, body, client }) => {
    await ack();
    if (body.type !== 'block_actions' || body.message === undefined || body.channel === undefined) {
      return;
    }
    clicks.push(body.actions[0]?.type === 'button' ? (body.actions[0].value ?? '') : '');
    await client.chat.update({
      channel: body.channel.id,
      ts: body.message.ts,
      text: `Approved by <@${body.user.id}>`,
      blocks: [],
    });
  });
  app.action('add_note', async ({ ack, body, client }) => {
    await ack();
    if (body.type !== 'block_actions') return;
    await client.views.push({ trigger_id: body.trigger_id, view: transferModal }).catch(() => {
      // The emulation's recorded answer is what the test reads.
    });
  });
  app.view('transfer', async ({ ack, view }) => {
    const amount = view.state.values.amount?.value?.value ?? '';
    if (!/^\d+\.\d{2}$/.test(amount)) {
      await ack({ response_action: 'errors', errors: { amount: 'Enter an amount like 12.50' } });
      return;
    }
    await ack();
  });
  app.event('app_home_opened', async ({ event, client }) => {
    await client.views.publish({
      user_id: event.user,
      view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Hi' } }] },
    });
  });
  driver = emu.driver(botEventsUrl(await app.start(0)));
});

afterAll(async () => {
  await app?.stop();
  await emu?.close();
});

/** A Web API call over plain HTTP, for the status and Retry-After the WebClient hides. */
async function rawCall(emulation: SlackEmulation, method: string, args: Record<string, unknown>) {
  const response = await fetch(`${emulation.apiUrl}${method}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${emulation.config.botToken}`,
    },
    body: JSON.stringify(args),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** The statuses of `count` calls made one after another. */
async function statusesOf(count: number, call: (n: number) => Promise<{ status: number }>) {
  const statuses: number[] = [];
  for (let n = 0; n < count; n += 1) statuses.push((await call(n)).status);
  return statuses;
}

/** Runs `/pay new`, whose handler opens the transfer modal, and returns what views.open answered. */
async function openTransferModal(userId: string) {
  const sent = await driver.slashCommand({ text: 'new', userId, channelId: CHANNEL });
  const opened = await emu.waitForCall(
    'views.open',
    (call) => call.args.trigger_id === sent.triggerId,
  );
  const view = opened.response.view;
  return {
    triggerId: sent.triggerId,
    response: opened.response,
    viewId: isObject(view) ? String(view.id) : '',
  };
}

describe('signed requests to the bot', () => {
  it('acks a signed slash command with 200; respond() lands at its response_url', async () => {
    const sent = await driver.slashCommand({
      text: 'balance W1',
      userId: 'U0ALICE',
      channelId: CHANNEL,
    });

    expect(sent.status).toBe(200);
    expect(sent.ackMs).toBeGreaterThan(0);
    const post = await emu.nextResponse(sent.responseUrlId);
    expect(post).toMatchObject({
      status: 200,
      body: { response_type: 'ephemeral', text: 'Looking up balance W1' },
    });
    expect(commandsHandled.at(-1)).toMatchObject({
      command: '/pay',
      user_name: 'alice',
      channel_name: 'payops',
      team_id: DEFAULT_SLACK.teamId,
      response_url: sent.responseUrl,
      trigger_id: sent.triggerId,
    });
    const { ephemeral } = emu.channel(CHANNEL);
    expect(ephemeral.at(-1)).toMatchObject({
      ephemeralTo: 'U0ALICE',
      text: 'Looking up balance W1',
    });
  });

  it('sends `&`, `<` and `>` in command text escaped, as Slack does', async () => {
    const sent = await driver.slashCommand({
      text: 'note Smith & Sons <ltd> &lt;',
      userId: 'U0ALICE',
      channelId: CHANNEL,
    });

    expect(sent.status).toBe(200);
    expect(commandsHandled.at(-1)?.text).toBe('note Smith &amp; Sons &lt;ltd&gt; &amp;lt;');
  });

  it.each([
    ['a bad signature', 'bad-signature'],
    ['a timestamp older than five minutes', 'stale-timestamp'],
    ['no signing headers', 'missing-headers'],
  ] as const)('refuses a request with %s with 401 before any handler runs', async (_, forge) => {
    const text = `forged ${forge}`;
    const sent = await driver.slashCommand(
      { text, userId: 'U0ALICE', channelId: CHANNEL },
      { forge },
    );

    expect(sent.status).toBe(401);
    expect(commandsHandled.map((command) => command.text)).not.toContain(text);
    expect(emu.responsesTo(sent.responseUrlId)).toEqual([]);
  });

  it('delivers a block_actions click on a posted message to the action handler', async () => {
    const posted = await app.client.chat.postMessage({
      channel: CHANNEL,
      text: 'Approve?',
      blocks: approvalBlocks,
    });
    const ts = posted.ts ?? '';

    const sent = await driver.blockAction({
      userId: 'U0BOB',
      actionId: 'approve',
      message: { channel: CHANNEL, ts },
    });

    expect(sent.status).toBe(200);
    const update = await emu.waitForCall('chat.update', (call) => call.args.ts === ts);
    expect(update.response.ok).toBe(true);
    // The button's value came from the stored message, as Slack would send it.
    expect(clicks).toContain('approval-1');
    expect(emu.message(CHANNEL, ts)).toMatchObject({ text: 'Approved by <@U0BOB>', blocks: [] });
  });

  it('delivers Events API JSON to event listeners', async () => {
    const sent = await driver.event({
      event: {
        type: 'app_home_opened',
        user: 'U0ERIN',
        channel: dmChannelFor('U0ERIN'),
        tab: 'home',
      },
    });

    expect(sent.status).toBe(200);
    const publish = await emu.waitForCall(
      'views.publish',
      (call) => call.args.user_id === 'U0ERIN',
    );
    expect(publish.args.view).toMatchObject({ type: 'home' });
    expect(publish.response).toMatchObject({
      ok: true,
      view: { type: 'home', id: expect.stringMatching(/^V/) },
    });
  });
});

describe('Web API emulation', () => {
  it('records chat.postMessage and chat.update with their blocks decoded', async () => {
    const posted = await app.client.chat.postMessage({
      channel: CHANNEL,
      text: 'v1',
      blocks: approvalBlocks,
    });
    const updated = await app.client.chat.update({
      channel: CHANNEL,
      ts: posted.ts ?? '',
      text: 'v2',
      blocks: [],
    });

    expect(posted.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(updated.ts).toBe(posted.ts);
    const [post, update] = [
      emu.callsTo('chat.postMessage').at(-1),
      emu.callsTo('chat.update').at(-1),
    ];
    expect(post?.args.blocks).toEqual(approvalBlocks);
    expect(update?.args).toMatchObject({ ts: posted.ts, text: 'v2', blocks: [] });
    expect(emu.channel(CHANNEL).messages.find((message) => message.ts === posted.ts)?.text).toBe(
      'v2',
    );
  });

  it('gives every posted message a unique, increasing ts', async () => {
    const posts = await Promise.all(
      [1, 2, 3].map((n) => app.client.chat.postMessage({ channel: 'C0GENERAL', text: `m${n}` })),
    );
    const stamps = posts.map((post) => post.ts ?? '');

    expect(new Set(stamps).size).toBe(3);
    expect(emu.channel('C0GENERAL').messages.map((message) => message.ts)).toEqual(
      [...stamps].sort(),
    );
  });

  it('answers message_not_found when chat.update names an unknown ts', async () => {
    await expect(
      app.client.chat.update({ channel: CHANNEL, ts: '1.000001', text: 'x' }),
    ).rejects.toMatchObject({ data: { error: 'message_not_found' } });
  });

  it('accepts an issued trigger_id once; reused, expired and unknown ones fail', async () => {
    const opened = await openTransferModal('U0CAROL');
    expect(opened.response).toMatchObject({ ok: true, view: { callback_id: 'transfer' } });

    const reopen = (triggerId: string) =>
      app.client.views.open({ trigger_id: triggerId, view: transferModal });
    await expect(reopen(opened.triggerId)).rejects.toMatchObject({
      data: { error: 'exchanged_trigger_id' },
    });
    await expect(reopen('123.456.unknown')).rejects.toMatchObject({
      data: { error: 'invalid_trigger_id' },
    });
    const stale = emu.issueTriggerId();
    clockOffsetMs = 3_001;
    try {
      await expect(reopen(stale)).rejects.toMatchObject({ data: { error: 'expired_trigger_id' } });
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('sends a view_submission built from the stored view and returns the parsed ack', async () => {
    const { viewId } = await openTransferModal('U0DAVE');

    const submit = (value: string) =>
      driver.viewSubmission({
        userId: 'U0DAVE',
        view: {
          id: viewId,
          state: { values: { amount: { value: { type: 'plain_text_input', value } } } },
        },
      });

    const refused = await submit('lots');
    expect(refused.status).toBe(200);
    expect(refused.ack).toEqual({
      response_action: 'errors',
      errors: { amount: 'Enter an amount like 12.50' },
    });
    expect((await submit('12.50')).ack).toBeUndefined();
  });

  it('stacks at most three modals: a third views.push answers push_limit_reached', async () => {
    const { viewId } = await openTransferModal('U0ERIN');

    const pushErrors: unknown[] = [];
    for (let click = 1; click <= 3; click += 1) {
      const clicked = await driver.blockAction({
        userId: 'U0ERIN',
        actionId: 'add_note',
        view: { id: viewId },
      });
      const push = await emu.waitForCall(
        'views.push',
        (call) => call.args.trigger_id === clicked.triggerId,
      );
      pushErrors.push(push.response.error);
    }

    expect(pushErrors).toEqual([undefined, undefined, 'push_limit_reached']);
  });

  it('refuses a modal whose title is longer than 24 characters', async () => {
    const view = { ...transferModal, title: { type: 'plain_text' as const, text: 'x'.repeat(25) } };
    await expect(
      app.client.views.open({ trigger_id: emu.issueTriggerId(), view }),
    ).rejects.toMatchObject({ data: { error: 'invalid_arguments' } });
  });

  it('lists the members of a group; an unknown group gets no_such_subteam', async () => {
    const approvers = await app.client.usergroups.users.list({ usergroup: 'S0APPROVERS' });
    const groups = await app.client.usergroups.list({ include_users: true });

    expect(approvers.users).toEqual(['U0ALICE', 'U0BOB', 'U0CAROL']);
    expect(groups.usergroups?.[0]).toMatchObject({
      id: 'S0APPROVERS',
      handle: 'payops-approvers',
      user_count: 3,
    });
    await expect(app.client.usergroups.users.list({ usergroup: 'S0NOPE' })).rejects.toMatchObject({
      data: { error: 'no_such_subteam' },
    });
  });

  it('changes a group’s members, listed at once, and gives the event Slack sends about it', async () => {
    const changing = await startSlackEmulation({ userGroups: { S0TEAM: ['U0ALICE', 'U0BOB'] } });
    try {
      const client = new webApi.WebClient(DEFAULT_SLACK.botToken, {
        slackApiUrl: changing.apiUrl,
        retryConfig: { retries: 0 },
      });
      const event = changing.changeGroupMembers('S0TEAM', ['U0BOB', 'U0CAROL']);
      expect(event).toMatchObject({
        type: 'subteam_members_changed',
        subteam_id: 'S0TEAM',
        team_id: DEFAULT_SLACK.teamId,
        added_users: ['U0CAROL'],
        added_users_count: '1',
        removed_users: ['U0ALICE'],
        removed_users_count: '1',
      });
      expect((await client.usergroups.users.list({ usergroup: 'S0TEAM' })).users).toEqual([
        'U0BOB',
        'U0CAROL',
      ]);
      expect(() => changing.changeGroupMembers('S0NOPE', [])).toThrow(/no user group S0NOPE/);
    } finally {
      await changing.close();
    }
  });

  it('answers plan_upgrade_required for user groups on a free plan', async () => {
    const free = await startSlackEmulation({ plan: 'free' });
    try {
      const client = new webApi.WebClient(DEFAULT_SLACK.botToken, {
        slackApiUrl: free.apiUrl,
        retryConfig: { retries: 0 },
      });
      await expect(
        client.usergroups.users.list({ usergroup: 'S0APPROVERS' }),
      ).rejects.toMatchObject({
        data: { error: 'plan_upgrade_required' },
      });
    } finally {
      await free.close();
    }
  });

  it('answers users.info and conversations.open from the user directory', async () => {
    const info = await app.client.users.info({ user: 'U0FRANK' });
    const dm = await app.client.conversations.open({ users: 'U0ALICE' });

    expect(info.user).toMatchObject({ id: 'U0FRANK', name: 'frank', deleted: true, is_bot: false });
    expect(dm.channel?.id).toBe(dmChannelFor('U0ALICE'));
    await expect(app.client.users.info({ user: 'U0NOBODY' })).rejects.toMatchObject({
      data: { error: 'user_not_found' },
    });
  });

  it('identifies the bot on auth.test; a wrong token gets invalid_auth', async () => {
    const stranger = new webApi.WebClient('xoxb-wrong', {
      slackApiUrl: emu.apiUrl,
      retryConfig: { retries: 0 },
    });

    expect(await app.client.auth.test()).toMatchObject({
      ok: true,
      user_id: DEFAULT_SLACK.botUserId,
      bot_id: DEFAULT_SLACK.botId,
      team_id: DEFAULT_SLACK.teamId,
    });
    await expect(stranger.auth.test()).rejects.toMatchObject({ data: { error: 'invalid_auth' } });
  });

  it('keeps message metadata; conversations.history shows it only with include_all_metadata', async () => {
    const channel = 'C0HISTORY';
    const first = await app.client.chat.postMessage({
      channel,
      text: 'transfer 1 requested',
      metadata: { event_type: 'payops_request', event_payload: { request_id: 'R1' } },
    });
    const second = await app.client.chat.postMessage({ channel, text: 'transfer 2 requested' });
    await app.client.chat.postMessage({ channel, thread_ts: first.ts ?? '', text: 'a reply' });
    await app.client.chat.update({
      channel,
      ts: second.ts ?? '',
      text: 'transfer 2 approved',
      metadata: { event_type: 'payops_request', event_payload: { request_id: 'R2', n: 2 } },
    });

    const plain = await app.client.conversations.history({ channel });
    const full = await app.client.conversations.history({ channel, include_all_metadata: true });

    // Newest first, thread replies left out, metadata only when asked for.
    expect(plain.messages?.map((message) => [message.ts, message.text])).toEqual([
      [second.ts, 'transfer 2 approved'],
      [first.ts, 'transfer 1 requested'],
    ]);
    expect(plain.messages?.some((message) => 'metadata' in message)).toBe(false);
    expect(full.messages?.map((message) => message.metadata)).toEqual([
      { event_type: 'payops_request', event_payload: { request_id: 'R2', n: 2 } },
      { event_type: 'payops_request', event_payload: { request_id: 'R1' } },
    ]);
    expect(full.messages?.[0]).toMatchObject({ type: 'message', bot_id: DEFAULT_SLACK.botId });
  });

  it('pages conversations.history with limit and cursor; unknown channels are refused', async () => {
    const channel = 'C0PAGES';
    const stamps: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      stamps.push((await app.client.chat.postMessage({ channel, text })).ts ?? '');
    }

    const page1 = await app.client.conversations.history({ channel, limit: 2 });
    const page2 = await app.client.conversations.history({
      channel,
      limit: 2,
      cursor: page1.response_metadata?.next_cursor ?? '',
    });
    const bounded = await app.client.conversations.history({
      channel,
      oldest: stamps[0],
      latest: stamps[2],
    });

    expect(page1.messages?.map((message) => message.text)).toEqual(['three', 'two']);
    expect(page1.has_more).toBe(true);
    expect(page2.messages?.map((message) => message.text)).toEqual(['one']);
    expect(page2.has_more).toBe(false);
    expect(bounded.messages?.map((message) => message.text)).toEqual(['two']);
    await expect(app.client.conversations.history({ channel: 'nope' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
    await expect(
      // Not C0PAGES: a fourth post there within a second would be over its burst of 3.
      app.client.apiCall('chat.postMessage', {
        channel: 'C0METADATA',
        text: 'x',
        metadata: JSON.stringify({ event_type: 'payops_request' }),
      }),
    ).rejects.toMatchObject({ data: { error: 'invalid_metadata_schema' } });
  });

  describe('conversations.replies', () => {
    /** An emulation of its own without rate limits: a thread takes more posts than a burst. */
    const withThreadEmulation = async (
      run: (client: InstanceType<typeof webApi.WebClient>, own: SlackEmulation) => Promise<void>,
    ) => {
      const own = await startSlackEmulation({ rateLimits: 'off' });
      try {
        await run(
          new webApi.WebClient(DEFAULT_SLACK.botToken, {
            slackApiUrl: own.apiUrl,
            retryConfig: { retries: 0 },
          }),
          own,
        );
      } finally {
        await own.close();
      }
    };

    it('lists the parent first, then its replies oldest first; metadata only when asked', async () => {
      await withThreadEmulation(async (client, own) => {
        const post = async (text: string, extra: Record<string, unknown> = {}) =>
          (await client.chat.postMessage({ channel: CHANNEL, text, ...extra })).ts ?? '';
        const parent = await post('transfer requested', {
          metadata: { event_type: 'payops_request', event_payload: { request_id: 'R1' } },
        });
        const other = await post('another request');
        const first = await post('approved by alice', {
          thread_ts: parent,
          metadata: { event_type: 'payops_decision', event_payload: { request_id: 'R1' } },
        });
        await post('elsewhere', { thread_ts: other });
        // A reply to a reply joins the parent's thread, as in Slack.
        const second = await post('executed', { thread_ts: first });

        const plain = await client.conversations.replies({ channel: CHANNEL, ts: parent });
        const full = await client.conversations.replies({
          channel: CHANNEL,
          ts: parent,
          include_all_metadata: true,
        });

        expect(plain).toMatchObject({ ok: true, has_more: false });
        expect(
          plain.messages?.map((message) => [message.ts, message.thread_ts, message.text]),
        ).toEqual([
          [parent, parent, 'transfer requested'],
          [first, parent, 'approved by alice'],
          [second, parent, 'executed'],
        ]);
        expect(plain.messages?.[0]).toMatchObject({
          type: 'message',
          bot_id: DEFAULT_SLACK.botId,
          user: DEFAULT_SLACK.botUserId,
          reply_count: 2,
          latest_reply: second,
        });
        expect(plain.messages?.some((message) => 'metadata' in message)).toBe(false);
        expect(full.messages?.map((message) => message.metadata)).toEqual([
          { event_type: 'payops_request', event_payload: { request_id: 'R1' } },
          { event_type: 'payops_decision', event_payload: { request_id: 'R1' } },
          undefined,
        ]);
        // The reply's metadata is kept on the stored message, as a top-level message's is.
        expect(own.message(CHANNEL, first)).toMatchObject({
          thread_ts: parent,
          metadata: { event_type: 'payops_decision', event_payload: { request_id: 'R1' } },
        });
        const metadataAsText = await client.apiCall('conversations.replies', {
          channel: CHANNEL,
          ts: parent,
          include_all_metadata: 'true',
        });
        expect(metadataAsText).toMatchObject({
          messages: [{ metadata: { event_type: 'payops_request' } }, {}, {}],
        });
        // History shows the parent with its thread summary, and no reply.
        const history = await client.conversations.history({ channel: CHANNEL });
        expect(history.messages?.map((message) => [message.text, message.reply_count])).toEqual([
          ['another request', 1],
          ['transfer requested', 2],
        ]);
      });
    });

    it('answers a reply or an unanswered message alone; unknown ts gets thread_not_found', async () => {
      await withThreadEmulation(async (client) => {
        const parent = (await client.chat.postMessage({ channel: CHANNEL, text: 'p' })).ts ?? '';
        const reply =
          (await client.chat.postMessage({ channel: CHANNEL, text: 'r', thread_ts: parent })).ts ??
          '';
        const lone = (await client.chat.postMessage({ channel: CHANNEL, text: 'lone' })).ts ?? '';
        const elsewhere =
          (await client.chat.postMessage({ channel: 'C0GENERAL', text: 'x' })).ts ?? '';

        const ofReply = await client.conversations.replies({ channel: CHANNEL, ts: reply });
        const ofLone = await client.conversations.replies({ channel: CHANNEL, ts: lone });

        expect(ofReply.messages?.map((message) => [message.text, message.thread_ts])).toEqual([
          ['r', parent],
        ]);
        expect(ofLone.messages).toHaveLength(1);
        expect(ofLone.messages?.[0]).toMatchObject({ ts: lone, text: 'lone' });
        expect(ofLone.messages?.[0]).not.toHaveProperty('thread_ts');
        for (const ts of ['1.000001', elsewhere]) {
          await expect(
            client.conversations.replies({ channel: CHANNEL, ts }),
          ).rejects.toMatchObject({ data: { ok: false, error: 'thread_not_found' } });
        }
        await expect(
          client.conversations.replies({ channel: 'nope', ts: parent }),
        ).rejects.toMatchObject({ data: { error: 'channel_not_found' } });
      });
    });

    it('pages the replies with limit, cursor and oldest, the parent heading each page', async () => {
      await withThreadEmulation(async (client) => {
        const parent =
          (await client.chat.postMessage({ channel: CHANNEL, text: 'parent' })).ts ?? '';
        const stamps: string[] = [];
        for (const text of ['one', 'two', 'three']) {
          stamps.push(
            (await client.chat.postMessage({ channel: CHANNEL, text, thread_ts: parent })).ts ?? '',
          );
        }
        const texts = (reply: { messages?: { text?: string }[] }) =>
          reply.messages?.map((message) => message.text);

        const page1 = await client.conversations.replies({
          channel: CHANNEL,
          ts: parent,
          limit: 2,
        });
        const page2 = await client.conversations.replies({
          channel: CHANNEL,
          ts: parent,
          limit: 2,
          cursor: page1.response_metadata?.next_cursor ?? '',
        });
        const newer = await client.conversations.replies({
          channel: CHANNEL,
          ts: parent,
          oldest: stamps[0],
        });
        const fromFirst = await client.conversations.replies({
          channel: CHANNEL,
          ts: parent,
          oldest: stamps[0],
          latest: stamps[1],
          inclusive: true,
        });

        expect([texts(page1), page1.has_more]).toEqual([['parent', 'one', 'two'], true]);
        expect([texts(page2), page2.has_more]).toEqual([['parent', 'three'], false]);
        expect(page2.response_metadata?.next_cursor ?? '').toBe('');
        expect(texts(newer)).toEqual(['parent', 'two', 'three']);
        expect(texts(fromFirst)).toEqual(['parent', 'one', 'two']);
        expect(rateBuckets('conversations.replies')).toEqual([
          { per: 'workspace', capacity: 50, perSecond: 50 / 60 },
        ]);
      });
    });
  });

  it('answers unknown_method for a method it does not emulate', async () => {
    await expect(app.client.apiCall('chat.teleport')).rejects.toMatchObject({
      data: { error: 'unknown_method' },
    });
  });

  it('keeps the bytes of a files.uploadV2 upload and shares the file in the channel', async () => {
    const csv = 'id,amount\n1,10.00\n';
    await app.client.filesUploadV2({
      channel_id: CHANNEL,
      filename: 'audit.csv',
      title: 'Audit export',
      content: csv,
      initial_comment: 'Audit export attached',
    });

    const shared = emu.channel(CHANNEL).messages.at(-1);
    const fileId = shared?.files?.[0] ?? '';
    expect(shared?.text).toBe('Audit export attached');
    expect(emu.callsTo('files.completeUploadExternal').at(-1)?.args.files).toEqual([
      { id: fileId, title: 'Audit export' },
    ]);
    expect(emu.file(fileId)).toMatchObject({
      filename: 'audit.csv',
      title: 'Audit export',
      completed: true,
    });
    expect(emu.file(fileId)?.bytes?.toString('utf8')).toBe(csv);
  });

  it('shows a member’s file through files.info and serves its bytes to the bot token only', async () => {
    const bytes = Buffer.from('%PDF-1.7 invoice 2291');
    const shared = emu.uploadFileAs('U0ALICE', { name: 'invoice.pdf', bytes, channelId: CHANNEL });
    const formFile = emu.uploadFileAs('U0ALICE', { name: 'quote.pdf', bytes });

    const info = await app.client.files.info({ file: shared.id });
    expect(info.file).toMatchObject({
      id: shared.id,
      name: 'invoice.pdf',
      size: bytes.length,
      user: 'U0ALICE',
      channels: [CHANNEL],
    });
    expect(emu.channel(CHANNEL).messages.at(-1)?.files).toEqual([shared.id]);
    expect(emu.fileObject(formFile.id)).toMatchObject({ channels: [], groups: [], ims: [] });
    await expect(app.client.files.info({ file: 'F0NOSUCH' })).rejects.toMatchObject({
      data: { error: 'file_not_found' },
    });

    const url = String(info.file?.url_private_download);
    const withToken = await fetch(url, {
      headers: { Authorization: `Bearer ${DEFAULT_SLACK.botToken}` },
    });
    expect(Buffer.from(await withToken.arrayBuffer())).toEqual(bytes);
    const without = await fetch(url, { redirect: 'manual' });
    expect(without.status).toBe(302);
    expect(emu.downloads.slice(-2).map((download) => download.authorized)).toEqual([true, false]);
  });
});

describe('fault injection', () => {
  it('answers a failNext ratelimited call with 429 and Retry-After', async () => {
    emu.failNext('chat.update', 'ratelimited', { retryAfterSec: 7 });

    await expect(
      app.client.chat.update({ channel: CHANNEL, ts: '1.000001', text: 'x' }),
    ).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 7,
    });
    expect(emu.callsTo('chat.update').at(-1)).toMatchObject({
      status: 429,
      response: { error: 'ratelimited' },
    });
  });

  it('fails only the next call of the named method', async () => {
    emu.failNext('users.info', 'fatal_error');

    await expect(app.client.users.info({ user: 'U0BOB' })).rejects.toMatchObject({
      data: { error: 'fatal_error' },
    });
    expect((await app.client.users.info({ user: 'U0BOB' })).ok).toBe(true);
  });

  it('holds a delayNext call for the given time', async () => {
    emu.delayNext('conversations.info', 150);

    const started = performance.now();
    const info = await app.client.conversations.info({ channel: CHANNEL });

    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(info.channel).toMatchObject({ id: CHANNEL, name: 'payops' });
  });
});

describe('rate limits', () => {
  const started: SlackEmulation[] = [];
  /** An emulation on a clock only the test moves, so buckets refill exactly when told. */
  const emulationAt = async (options: SlackEmulationOptions = {}) => {
    const clock = { ms: 1_700_000_000_000 };
    const emulation = await startSlackEmulation({ now: () => clock.ms, ...options });
    started.push(emulation);
    return { emulation, clock };
  };

  afterEach(async () => {
    await Promise.all(started.splice(0).map((emulation) => emulation.close()));
  });

  it("refuses a method past its tier's allowance with 429 and Retry-After until it refills", async () => {
    const { emulation, clock } = await emulationAt();
    const list = () => rawCall(emulation, 'usergroups.list', {});

    // Tier 2: 20 at once, then one every 3 s.
    expect(await statusesOf(20, list)).toEqual(Array(20).fill(200));
    const refused = await list();
    expect(refused).toEqual({
      status: 429,
      retryAfter: '3',
      body: { ok: false, error: 'ratelimited' },
    });
    clock.ms += 2_999;
    expect(await list()).toMatchObject({ status: 429, retryAfter: '1' });
    clock.ms += 1;
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(429);

    expect(emulation.callsTo('usergroups.list').map((call) => call.status)).toEqual([
      ...Array(20).fill(200),
      429,
      429,
      200,
      429,
    ]);
    expect(emulation.rateLimited).toEqual({ 'usergroups.list': 3 });
    expect(emulation.rateLimitScale).toBe(1);
    // Other methods have buckets of their own.
    expect(
      (await rawCall(emulation, 'usergroups.users.list', { usergroup: 'S0APPROVERS' })).status,
    ).toBe(200);
  });

  it('lets chat.postMessage burst 3 per channel, each channel apart, refilled one a second', async () => {
    const { emulation, clock } = await emulationAt();
    const post = (channel: string) =>
      rawCall(emulation, 'chat.postMessage', { channel, text: 'hi' });

    expect(await statusesOf(4, () => post('C0ONE'))).toEqual([200, 200, 200, 429]);
    expect(await statusesOf(3, () => post('C0TWO'))).toEqual([200, 200, 200]);
    // The refused post changed nothing.
    expect(emulation.channel('C0ONE').messages).toHaveLength(3);
    clock.ms += 1_000;
    expect(await statusesOf(2, () => post('C0ONE'))).toEqual([200, 429]);

    const client = new webApi.WebClient(DEFAULT_SLACK.botToken, {
      slackApiUrl: emulation.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    await expect(client.chat.postMessage({ channel: 'C0ONE', text: 'hi' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 1,
    });
    expect(emulation.rateLimited).toEqual({ 'chat.postMessage': 3 });
  });

  it('scale multiplies the allowance and the refill rate', async () => {
    const { emulation, clock } = await emulationAt({ rateLimits: { scale: 2 } });
    const list = () => rawCall(emulation, 'usergroups.list', {});

    expect(emulation.rateLimitScale).toBe(2);
    expect(rateBuckets('usergroups.list', 2)).toEqual([
      { per: 'workspace', capacity: 40, perSecond: 40 / 60 },
    ]);
    expect(await statusesOf(41, list)).toEqual([...Array(40).fill(200), 429]);
    // A token every 1.5 s, where scale 1 takes 3 s.
    clock.ms += 1_500;
    expect((await list()).status).toBe(200);
  });

  it("caps chat.postMessage for the whole workspace too, at a tenth of Slack's rate", async () => {
    const { emulation, clock } = await emulationAt({ rateLimits: { scale: 0.1 } });
    const post = (n: number) =>
      rawCall(emulation, 'chat.postMessage', { channel: `C0CH${n}`, text: 'hi' });
    const burst = SLACK_RATE_LIMITS.postMessage.workspacePerMinute * 0.1;

    // 30 at once, then one every 2 s; each fresh channel's own bucket still holds one.
    expect(burst).toBe(30);
    expect(await statusesOf(burst, post)).toEqual(Array(30).fill(200));
    expect(await post(99)).toMatchObject({ status: 429, retryAfter: '2' });
    clock.ms += 2_000;
    // The refused call took nothing from its fresh channel's bucket.
    expect((await post(99)).status).toBe(200);
  });

  it("'off' never refuses", async () => {
    const { emulation } = await emulationAt({ rateLimits: 'off' });

    const statuses = await statusesOf(25, () =>
      rawCall(emulation, 'chat.postMessage', { channel: CHANNEL, text: 'hi' }),
    );

    expect(statuses).toEqual(Array(25).fill(200));
    expect(emulation.rateLimitScale).toBeUndefined();
    expect(emulation.rateLimited).toEqual({});
  });
});

describe('outages and dropped answers', () => {
  it('answers 500 to the methods an outage covers, changes nothing, until it ends', async () => {
    const own = await startSlackEmulation();
    try {
      const client = new webApi.WebClient(DEFAULT_SLACK.botToken, {
        slackApiUrl: own.apiUrl,
        retryConfig: { retries: 0 },
      });
      const end = own.outage(/^chat\./);

      await expect(client.chat.postMessage({ channel: CHANNEL, text: 'hi' })).rejects.toMatchObject(
        { code: 'slack_webapi_http_error', statusCode: 500 },
      );
      expect((await client.users.info({ user: 'U0ALICE' })).ok).toBe(true);
      expect(own.channel(CHANNEL).messages).toEqual([]);
      expect(own.callsTo('chat.postMessage')).toMatchObject([
        { status: 500, response: { ok: false, error: 'internal_error' } },
      ]);

      end();
      expect((await client.chat.postMessage({ channel: CHANNEL, text: 'hi' })).ok).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('ends an outage by itself at untilMs on the emulation clock, with the status asked for', async () => {
    const clock = { ms: 1_700_000_000_000 };
    const own = await startSlackEmulation({ now: () => clock.ms });
    try {
      own.outage((method) => method.startsWith('views.'), {
        status: 503,
        untilMs: clock.ms + 5_000,
      });
      const publish = () =>
        rawCall(own, 'views.publish', { user_id: 'U0ALICE', view: { type: 'home', blocks: [] } });

      expect((await publish()).status).toBe(503);
      clock.ms += 5_000;
      expect((await publish()).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('dropAfterNext posts the message, then hangs up without an answer', async () => {
    const own = await startSlackEmulation();
    try {
      const client = new webApi.WebClient(DEFAULT_SLACK.botToken, {
        slackApiUrl: own.apiUrl,
        retryConfig: { retries: 0 },
      });
      own.dropAfterNext('chat.postMessage');

      await expect(
        client.chat.postMessage({ channel: CHANNEL, text: 'lost answer' }),
      ).rejects.toMatchObject({ code: 'slack_webapi_request_error' });
      expect(own.channel(CHANNEL).messages.map((message) => message.text)).toEqual(['lost answer']);
      expect(own.callsTo('chat.postMessage')).toMatchObject([{ status: 200, dropped: true }]);
      expect((await client.chat.postMessage({ channel: CHANNEL, text: 'next' })).ok).toBe(true);
    } finally {
      await own.close();
    }
  });
});

describe('response_url', () => {
  const post = (url: string, text: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text }),
    });

  it('accepts five posts and refuses the sixth with 404 used_url', async () => {
    const { id, url } = emu.issueResponseUrl({ channelId: CHANNEL, userId: 'U0ALICE' });

    for (let n = 1; n <= 5; n += 1) expect((await post(url, `post ${n}`)).status).toBe(200);
    const sixth = await post(url, 'post 6');

    expect(sixth.status).toBe(404);
    expect(await sixth.text()).toBe('used_url');
    expect(emu.responsesTo(id).map((record) => record.status)).toEqual([
      200, 200, 200, 200, 200, 404,
    ]);
  });

  it('refuses unknown and expired response_urls with 404', async () => {
    const { id, url } = emu.issueResponseUrl({ channelId: CHANNEL, userId: 'U0ALICE' });
    emu.expireResponseUrl(id);

    expect((await post(`${emu.url}/respond/nope`, 'x')).status).toBe(404);
    const expired = await post(url, 'x');
    expect([expired.status, await expired.text()]).toEqual([404, 'expired_url']);
  });

  it('replaces the clicked message when a response_url post says replace_original', async () => {
    const posted = await app.client.chat.postMessage({
      channel: CHANNEL,
      text: 'pending',
      blocks: approvalBlocks,
    });
    const { url } = emu.issueResponseUrl({
      channelId: CHANNEL,
      userId: 'U0BOB',
      messageTs: posted.ts ?? '',
    });

    await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ replace_original: true, text: 'done' }),
    });

    expect(emu.message(CHANNEL, posted.ts ?? '')).toMatchObject({
      text: 'done',
      blocks: undefined,
    });
  });
});

describe("a long run's history", () => {
  it('forgetHistory drops records, ephemeral answers and used-up URLs; the channel stays', async () => {
    const own = await startSlackEmulation();
    try {
      const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const posted = await postJson(
        `${own.apiUrl}chat.postMessage`,
        { channel: CHANNEL, text: 'a card' },
        { Authorization: `Bearer ${own.config.botToken}` },
      );
      const { ts } = (await posted.json()) as { ts: string };
      const openModal = async (triggerId: string) => {
        const opened = await postJson(
          `${own.apiUrl}views.open`,
          { trigger_id: triggerId, view: transferModal },
          { Authorization: `Bearer ${own.config.botToken}` },
        );
        return ((await opened.json()) as { ok: boolean; error?: string }).error ?? 'ok';
      };
      const usedTrigger = own.issueTriggerId();
      const freshTrigger = own.issueTriggerId();
      expect(await openModal(usedTrigger)).toBe('ok');
      const answered = own.issueResponseUrl({ channelId: CHANNEL, userId: 'U0ALICE' });
      const unanswered = own.issueResponseUrl({ channelId: CHANNEL, userId: 'U0ALICE' });
      expect((await postJson(answered.url, { text: 'your balance' })).status).toBe(200);
      expect(own.calls).toHaveLength(2);
      expect(own.responses).toHaveLength(1);
      const ephemeralTs = own.channel(CHANNEL).ephemeral[0]?.ts ?? '';
      expect(own.message(CHANNEL, ephemeralTs)).toBeDefined();

      own.forgetHistory();

      expect(own.calls).toHaveLength(0);
      expect(own.responses).toHaveLength(0);
      expect(own.channel(CHANNEL)).toMatchObject({
        messages: [{ ts, text: 'a card' }],
        ephemeral: [],
      });
      expect(own.message(CHANNEL, ephemeralTs)).toBeUndefined();
      expect(own.message(CHANNEL, ts)).toBeDefined();
      const again = await postJson(answered.url, { text: 'once more' });
      expect([again.status, await again.text()]).toEqual([404, 'no_service']);
      expect((await postJson(unanswered.url, { text: 'late answer' })).status).toBe(200);
      expect(own.responses.map((post) => post.id)).toEqual([answered.id, unanswered.id]);
      expect(await openModal(usedTrigger)).toBe('invalid_trigger_id');
      expect(await openModal(freshTrigger)).toBe('ok');
    } finally {
      await own.close();
    }
  });

  it('forgetResponseUrls drops only the URLs it is given', async () => {
    const own = await startSlackEmulation();
    try {
      const post = (url: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ text: 'an answer' }),
        }).then(async (response) => [response.status, await response.text()]);
      const unsent = own.issueResponseUrl({ channelId: CHANNEL, userId: 'U0ALICE' });
      const kept = own.issueResponseUrl({ channelId: CHANNEL, userId: 'U0ALICE' });

      own.forgetResponseUrls([unsent.id]);

      expect(await post(unsent.url)).toEqual([404, 'no_service']);
      expect((await post(kept.url))[0]).toBe(200);
      expect(own.responses.map((answer) => [answer.id, answer.status])).toEqual([
        [unsent.id, 404],
        [kept.id, 200],
      ]);
    } finally {
      await own.close();
    }
  });
});
