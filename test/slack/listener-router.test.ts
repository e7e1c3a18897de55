import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { ListenerRouter } from '../../src/slack/listeners/registry.ts';
import type { ResponseUrlMessage } from '../../src/slack/slack-http.ts';

const BOT_USER = 'U0BOT';

function routerWithLog() {
  const calls: string[] = [];
  const answers: Array<{ url: string; message: ResponseUrlMessage }> = [];
  const router = new ListenerRouter({
    client: new WebClient('xoxb-unused'),
    respondTo: (url) => async (message) => {
      answers.push({ url, message });
    },
    botUserId: BOT_USER,
  });
  router.command('/pay', async ({ ack, command, respond }) => {
    calls.push(`command ${command.text}`);
    await ack();
    await respond({ text: 'answered' });
  });
  router.action('approve', async ({ ack, action, respond }) => {
    calls.push(`action ${action.value}`);
    await ack();
    await respond({ text: 'clicked' });
  });
  router.view('reason', async ({ ack, view }) => {
    calls.push(`view ${view.private_metadata}`);
    await ack({ response_action: 'errors', errors: { reason: 'too short' } });
  });
  router.event('app_home_opened', async ({ event }) => {
    calls.push(`event ${event.user}`);
  });
  return { router, calls, answers };
}

const acks = () => {
  const acked: unknown[] = [];
  return { acked, ack: async (response?: unknown) => void acked.push(response) };
};

describe('the engine finds the listener of a verified request', () => {
  it('by command, and its respond posts to that request’s response_url', async () => {
    const { router, calls, answers } = routerWithLog();
    const { acked, ack } = acks();
    await router.dispatch(
      { command: '/pay', text: 'balance w_1', response_url: 'http://slack.test/respond/1' },
      ack,
    );
    expect(calls).toEqual(['command balance w_1']);
    expect(acked).toEqual([undefined]);
    expect(answers).toEqual([
      { url: 'http://slack.test/respond/1', message: { text: 'answered' } },
    ]);
  });

  it('by the action_id of the clicked button', async () => {
    const { router, calls, answers } = routerWithLog();
    await router.dispatch(
      {
        type: 'block_actions',
        actions: [{ action_id: 'approve', value: 'req_1' }],
        response_url: 'http://slack.test/respond/2',
      },
      acks().ack,
    );
    expect(calls).toEqual(['action req_1']);
    expect(answers.map((answer) => answer.url)).toEqual(['http://slack.test/respond/2']);
  });

  it('by the callback_id of a submitted modal, whose answer goes in the ack', async () => {
    const { router, calls } = routerWithLog();
    const { acked, ack } = acks();
    await router.dispatch(
      { type: 'view_submission', view: { callback_id: 'reason', private_metadata: 'm' } },
      ack,
    );
    expect(calls).toEqual(['view m']);
    expect(acked).toEqual([{ response_action: 'errors', errors: { reason: 'too short' } }]);
  });

  it('by event type, leaving out events the bot itself caused', async () => {
    const { router, calls } = routerWithLog();
    const event = (user: string) => ({
      type: 'event_callback',
      event: { type: 'app_home_opened', user },
    });
    await router.dispatch(event('U0ALICE'), acks().ack);
    await router.dispatch(event(BOT_USER), acks().ack);
    expect(calls).toEqual(['event U0ALICE']);
  });

  it('does nothing for a request no listener asked for', async () => {
    const { router, calls, answers } = routerWithLog();
    const { acked, ack } = acks();
    await router.dispatch({ command: '/other', text: '' }, ack);
    await router.dispatch({ type: 'block_actions', actions: [{ action_id: 'nope' }] }, ack);
    await router.dispatch({ type: 'block_actions', actions: [] }, ack);
    await router.dispatch({ type: 'view_closed', view: { callback_id: 'reason' } }, ack);
    await router.dispatch({ type: 'event_callback', event: { type: 'team_join' } }, ack);
    await router.dispatch({ type: 'shortcut' }, ack);
    expect(calls).toEqual([]);
    expect(answers).toEqual([]);
    expect(acked).toEqual([]);
  });

  it('gives a request without a response_url a respond that fails, not one that vanishes', async () => {
    const { router } = routerWithLog();
    await expect(
      router.dispatch({ type: 'block_actions', actions: [{ action_id: 'approve' }] }, acks().ack),
    ).rejects.toThrow(/without a response_url/);
  });
});
