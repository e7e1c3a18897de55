import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackHttp, ResponseUrlRefused } from '../../src/slack/slack-http.ts';

/**
 * The WebClient's fetch and the response_url answers, over undici against a real HTTP server:
 * what the SDK reads must be what fetch gives, and an answer must arrive once.
 */

let server: Server;
let base: string;
const received: Array<{ method: string; url: string; type: string; body: string }> = [];
const slackHttp = createSlackHttp();

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    received.push({
      method: req.method ?? '',
      url: req.url ?? '',
      type: req.headers['content-type'] ?? '',
      body,
    });
    if (req.url === '/moved') {
      res.writeHead(302, { location: '/elsewhere' }).end();
    } else if (req.url === '/empty') {
      res.writeHead(204).end();
    } else if (req.url === '/respond/ok') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } else if (req.url === '/respond/expired') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('expired_url');
    } else {
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end('{"ok":false,"error":"ratelimited"}');
    }
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await slackHttp.close();
  server.close();
});

describe('the fetch given to Slack SDKs', () => {
  it('posts a string body with its headers and returns status, headers and body', async () => {
    const response = await slackHttp.fetch(`${base}/api/chat.postMessage`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'channel=C1&text=hi',
    });
    expect(received.at(-1)).toEqual({
      method: 'POST',
      url: '/api/chat.postMessage',
      type: 'application/x-www-form-urlencoded',
      body: 'channel=C1&text=hi',
    });
    expect(response.status).toBe(429);
    expect(response.ok).toBe(false);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(await response.json()).toEqual({ ok: false, error: 'ratelimited' });
  });

  it("refuses a redirect when asked to, as fetch's redirect: 'error' does", async () => {
    await expect(
      slackHttp.fetch(`${base}/moved`, { method: 'POST', body: 'x', redirect: 'error' }),
    ).rejects.toThrow(/redirect/);
  });

  it('gives a 204 no body', async () => {
    const response = await slackHttp.fetch(`${base}/empty`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('sends a multipart upload through the standard fetch', async () => {
    const form = new FormData();
    form.append('file', new Blob(['a,b\n1,2\n']), 'audit.csv');
    await slackHttp.fetch(`${base}/upload`, { method: 'POST', body: form });
    const upload = received.at(-1);
    expect(upload?.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(upload?.body).toContain('a,b\n1,2\n');
  });
});

describe('an answer on a response_url', () => {
  it('is posted as JSON, and resolves when Slack takes it', async () => {
    await slackHttp.respondTo(`${base}/respond/ok`)({
      response_type: 'ephemeral',
      replace_original: false,
      text: 'done',
    });
    expect(received.at(-1)).toEqual({
      method: 'POST',
      url: '/respond/ok',
      type: 'application/json',
      body: '{"response_type":"ephemeral","replace_original":false,"text":"done"}',
    });
  });

  it('rejects with the status and what Slack said when Slack refuses it', async () => {
    const refused = await slackHttp
      .respondTo(`${base}/respond/expired`)({ text: 'late' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ResponseUrlRefused);
    expect(refused).toMatchObject({ status: 404, answer: 'expired_url' });
    expect(String(refused)).toContain('HTTP 404 expired_url');
  });
});

describe('a post on a kept-alive connection the server has closed', () => {
  // This server drops any connection that has served a request before, as one whose idle
  // timeout fired just as the next request arrived on it.
  let closing: Server;
  let origin: string;
  const posts: string[] = [];
  beforeAll(async () => {
    const served = new WeakMap<object, number>();
    closing = createServer(async (req, res) => {
      const count = served.get(req.socket) ?? 0;
      served.set(req.socket, count + 1);
      if (count > 0) return req.socket.destroy();
      let body = '';
      for await (const chunk of req) body += chunk;
      posts.push(body);
      res
        .writeHead(200, { 'content-type': 'application/json', 'content-length': '11' })
        .end('{"ok":true}');
    }).listen(0, '127.0.0.1');
    await once(closing, 'listening');
    origin = `http://127.0.0.1:${(closing.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    closing.closeAllConnections();
    await new Promise((resolve) => closing.close(resolve));
  });
  // After a pause, so the previous post's connection is idle in the pool and is the one used.
  const pause = () => sleep(20);

  it('is sent once more on a new connection when it is an answer (a response_url), and arrives once', async () => {
    const own = createSlackHttp();
    posts.length = 0;
    try {
      for (const text of ['first', 'second', 'third']) {
        await pause();
        await own.respondTo(`${origin}/respond/1`)({ text });
      }
      expect(posts).toEqual(['{"text":"first"}', '{"text":"second"}', '{"text":"third"}']);
    } finally {
      await own.close();
    }
  });

  it('fails as it is when it is a Web API call, left to the WebClient’s own retries', async () => {
    const own = createSlackHttp();
    posts.length = 0;
    const call = async (text: string) => {
      await pause();
      return own.fetch(`${origin}/api/chat.postMessage`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text }),
      });
    };
    try {
      await call('first');
      await expect(call('second')).rejects.toThrow(/other side closed|ECONNRESET|EPIPE/);
      expect(posts).toEqual(['{"text":"first"}']);
    } finally {
      await own.close();
    }
  });
});
