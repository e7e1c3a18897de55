import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { type RunningBot, startBot } from '../../src/bot.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { rehearsalEnv } from '../../src/rehearsal/rehearsal.ts';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';

const APP_TOKEN = 'xapp-1-A0PAYOPS-emulation';

/**
 * Slack's side of Socket Mode: a WebSocket server that greets the bot with `hello`, sends
 * envelopes, and collects the bot's acknowledgements by envelope id.
 */
let wss: WebSocketServer;
let socket: WebSocket | undefined;
const acks = new Map<string, unknown>();
let sandbox: PaymentsSandbox;
let slack: SlackEmulation;
let bot: RunningBot;

beforeAll(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => wss.once('listening', resolve));
  wss.on('connection', (connection) => {
    socket = connection;
    connection.on('message', (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
      if (message.envelope_id) acks.set(message.envelope_id, message.payload);
    });
    connection.send(JSON.stringify({ type: 'hello', num_connections: 1, debug_info: {} }));
  });
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/link`;
  sandbox = await startPaymentsSandbox();
  slack = await startSlackEmulation({ socketMode: { appToken: APP_TOKEN, url } });
  const config = loadConfig({ ...rehearsalEnv(sandbox, slack), SLACK_APP_TOKEN: APP_TOKEN });
  bot = await startBot(config, createLogger({ level: 'silent', secrets: [] }));
});

afterAll(async () => {
  await bot?.stop();
  for (const client of wss.clients) client.terminate();
  wss.close();
  await Promise.all([sandbox.close(), slack.close()]);
});

describe('Socket Mode (SLACK_APP_TOKEN set)', () => {
  it('connects with the app-level token, acknowledges a slash command, and answers it', async () => {
    const connected = await slack.waitFor(() => socket);
    const responseUrl = slack.issueResponseUrl({ channelId: 'C0PAYOPS', userId: 'U0ALICE' });
    connected.send(
      JSON.stringify({
        envelope_id: 'env-1',
        type: 'slash_commands',
        accepts_response_payload: true,
        payload: {
          command: '/pay',
          text: 'me',
          user_id: 'U0ALICE',
          user_name: 'alice',
          channel_id: 'C0PAYOPS',
          team_id: slack.config.teamId,
          api_app_id: slack.config.apiAppId,
          response_url: responseUrl.url,
          trigger_id: slack.issueTriggerId(),
        },
      }),
    );
    const answer = await slack.nextResponse(responseUrl.id);
    expect(acks.has('env-1')).toBe(true);
    expect(JSON.stringify(answer.body)).toContain('cus_acme01');
    expect(slack.callsTo('apps.connections.open')).toHaveLength(1);
  });
});
