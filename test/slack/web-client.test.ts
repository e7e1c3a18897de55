import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, type Logger, LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SlackEmulation, startSlackEmulation } from '../../src/sandbox/slack.ts';
import { createSlackHttp } from '../../src/slack/slack-http.ts';
import { PayopsWebClient } from '../../src/slack/web-client.ts';

/**
 * The engine's WebClient against the Slack emulation over real HTTP: its direct calls must put
 * on the wire what the SDK would, fail as the SDK fails, and retry only as configured.
 */

const CHANNEL = 'C0APPROVALS';
/** Short backoffs, so retried calls take milliseconds. */
const RETRIES = { retries: 2, factor: 2, minTimeout: 5, maxTimeout: 20 };

let emu: SlackEmulation;
const slackHttp = createSlackHttp();
let sdkFetches: string[] = [];

function client(apiUrl = emu.apiUrl, logger?: Logger): PayopsWebClient {
  return new PayopsWebClient(emu.config.botToken, {
    slackApiUrl: apiUrl,
    ...(logger ? { logger } : {}),
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      sdkFetches.push(String(input));
      return slackHttp.fetch(input, init);
    }) as typeof fetch,
    postForm: slackHttp.postForm,
    retryConfig: RETRIES,
  });
}

beforeAll(async () => {
  emu = await startSlackEmulation();
});
beforeEach(() => {
  emu.forgetHistory();
  sdkFetches = [];
});
afterAll(async () => {
  await slackHttp.close();
  await emu.close();
});

const card = {
  text: '#7 · Create a payout · 10.00 USDC',
  blocks: [
    { type: 'header', text: { type: 'plain_text', text: '#7 · Create a payout & more = 10+ ✓' } },
    { type: 'section', text: { type: 'mrkdwn', text: 'Recipient ••••1234\nline two' } },
  ],
};

describe('PayopsWebClient: the calls made for every request and decision', () => {
  it('sends chat.postMessage, chat.update and chat.getPermalink as the SDK does, without it', async () => {
    const sdk = new WebClient(emu.config.botToken, {
      slackApiUrl: emu.apiUrl,
      fetch: slackHttp.fetch,
      retryConfig: { retries: 0 },
    });
    const direct = client();
    const bySdk = await sdk.chat.postMessage({ channel: CHANNEL, ...card });
    const byDirect = await direct.chat.postMessage({ channel: CHANNEL, ...card });
    expect(byDirect.ok).toBe(true);
    expect(typeof byDirect.ts).toBe('string');
    const [sdkCall, directCall] = emu.callsTo('chat.postMessage');
    // The same arguments reached Slack, blocks included, whichever way they went.
    expect(directCall?.args).toEqual(sdkCall?.args);
    expect(emu.message(CHANNEL, byDirect.ts as string)?.blocks).toEqual(card.blocks);

    const updated = await direct.chat.update({
      channel: CHANNEL,
      ts: byDirect.ts as string,
      text: 'updated',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'now *submitted*' } }],
    });
    expect(updated.ok).toBe(true);
    expect(emu.message(CHANNEL, byDirect.ts as string)?.text).toBe('updated');
    const link = await direct.chat.getPermalink({
      channel: CHANNEL,
      message_ts: byDirect.ts as string,
    });
    expect(link.permalink).toMatch(/^https?:\/\//);
    expect(bySdk.ok).toBe(true);
    expect(sdkFetches).toEqual([]);
  });

  it('leaves every other method to the SDK', async () => {
    const result = await client().auth.test();
    expect(result.ok).toBe(true);
    expect(sdkFetches).toEqual([`${emu.apiUrl}auth.test`]);
  });

  it('throws ok:false as the SDK does (a platform error), and does not retry it', async () => {
    emu.failNext('chat.update', 'message_not_found');
    await expect(
      client().chat.update({ channel: CHANNEL, ts: '1.000001', text: 'x' }),
    ).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { ok: false, error: 'message_not_found' },
    });
    expect(emu.callsTo('chat.update')).toHaveLength(1);
  });

  it('waits for a 429 as long as its Retry-After says, then sends it again', async () => {
    emu.failNext('chat.postMessage', 'ratelimited', { retryAfterSec: 1 });
    const started = performance.now();
    const result = await client().chat.postMessage({ channel: CHANNEL, text: 'after the limit' });
    expect(result.ok).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(emu.callsTo('chat.postMessage').map((call) => call.status)).toEqual([429, 200]);
  });

  it('tries an HTTP error again up to the configured retries, then throws an HTTP error', async () => {
    emu.failNext('chat.update', 'internal_error', { status: 500, times: 3 });
    await expect(
      client().chat.update({ channel: CHANNEL, ts: '1.000001', text: 'x' }),
    ).rejects.toMatchObject({ code: ErrorCode.HTTPError, statusCode: 500 });
    expect(emu.callsTo('chat.update')).toHaveLength(1 + RETRIES.retries);
  });

  it('succeeds when a retry does', async () => {
    emu.failNext('chat.update', 'internal_error', { status: 503 });
    const posted = await client().chat.postMessage({ channel: CHANNEL, text: 'first' });
    const updated = await client().chat.update({
      channel: CHANNEL,
      ts: posted.ts as string,
      text: 'second',
    });
    expect(updated.ok).toBe(true);
    expect(emu.callsTo('chat.update').map((call) => call.status)).toEqual([503, 200]);
  });

  it('reports Slack unreachable as a request error, without the token', async () => {
    const unreachable = client('http://127.0.0.1:9/api/');
    const error = await unreachable.chat
      .postMessage({ channel: CHANNEL, text: 'x' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: ErrorCode.RequestError });
    expect(JSON.stringify(error) + String(error)).not.toContain(emu.config.botToken);
  });

  it('reports an answer that is not JSON as a platform error quoting it', async () => {
    await withSlackAnswering('text/html', '<html>maintenance</html>', async (apiUrl) => {
      await expect(
        client(apiUrl).chat.postMessage({ channel: CHANNEL, text: 'x' }),
      ).rejects.toMatchObject({
        code: ErrorCode.PlatformError,
        data: { ok: false, error: '<html>maintenance</html>' },
      });
    });
  });

  it('logs the warnings Slack adds to an answer, as the SDK does', async () => {
    const answer = { ok: true, ts: '1.2', response_metadata: { warnings: ['missing_charset'] } };
    await withSlackAnswering('application/json', JSON.stringify(answer), async (apiUrl) => {
      const warned: unknown[] = [];
      const logger: Logger = {
        warn: (...messages: unknown[]) => warned.push(...messages),
        debug: () => {},
        info: () => {},
        error: () => {},
        setLevel: () => {},
        getLevel: () => LogLevel.WARN,
        setName: () => {},
      };
      expect(
        (await client(apiUrl, logger).chat.postMessage({ channel: CHANNEL, text: 'x' })).ts,
      ).toBe('1.2');
      expect(warned).toEqual(['missing_charset']);
    });
  });
});

/** A stand-in for Slack's API that gives every call the same answer. */
async function withSlackAnswering(
  contentType: string,
  body: string,
  work: (apiUrl: string) => Promise<void>,
): Promise<void> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType }).end(body);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await work(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`);
  } finally {
    server.close();
  }
}
