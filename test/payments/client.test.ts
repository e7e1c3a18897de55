import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS, OPERATIONS, type OperationId } from '../../src/domain/operations.ts';
import type { PaymentsClient } from '../../src/payments/client.ts';
import {
  InsufficientScopeError,
  InvalidApiKeyError,
  MalformedResponseError,
  MissingApiKeyError,
  NetworkError,
  OutcomeUnknownError,
  ReplyTooLargeError,
  RequestRejectedError,
  ScopeReviewRequiredError,
  ServerError,
  TimeoutError,
} from '../../src/payments/errors.ts';
import { findList, findRecord, recordIdentity } from '../../src/payments/response-shape.ts';
import {
  type PaymentsSandbox,
  SANDBOX_IDS,
  SANDBOX_KEY,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { providerErrorText } from '../../src/slack/text/provider-errors.ts';
import { captureLogger, clientFor, EXAMPLE_CALLS } from '../helpers/payments.ts';

let sandbox: PaymentsSandbox;
let client: PaymentsClient;

beforeAll(async () => {
  sandbox = await startPaymentsSandbox();
  client = clientFor(sandbox.url);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
afterEach(() => sandbox.clearFaults());

function callsOf(operationId: OperationId) {
  return sandbox.requests.filter((request) => request.operationId === operationId);
}

describe('every operation of the spec', () => {
  it.each(OPERATION_IDS)('%s succeeds against the sandbox over HTTP', async (operationId) => {
    const before = callsOf(operationId).length;
    const response = await client.call(operationId, EXAMPLE_CALLS[operationId]);
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(300);
    expect(response.requestId).toMatch(/^req_/);
    expect(response.attempts).toBe(1);
    const sent = callsOf(operationId);
    expect(sent).toHaveLength(before + 1);
    const last = sent.at(-1);
    expect(last?.method).toBe(OPERATIONS[operationId].method);
    expect(last?.hadApiKey).toBe(operationId !== 'health');
    const body = EXAMPLE_CALLS[operationId].body;
    if (body) expect(JSON.parse(last?.body ?? '')).toEqual(body);
  });

  it('keeps the API key out of every URL and sends none to /health', async () => {
    for (const request of sandbox.requests) {
      expect(request.path).not.toContain(SANDBOX_KEY.full);
      expect(JSON.stringify(request.query)).not.toContain(SANDBOX_KEY.full);
    }
    await client.call('health');
    expect(sandbox.requests.at(-1)?.hadApiKey).toBe(false);
  });

  it('encodes path parameters so an id cannot change the path', async () => {
    await expect(
      client.call('getRecipient', { path: { externalAccountId: '../wallets' } }),
    ).rejects.toBeInstanceOf(RequestRejectedError);
    expect(sandbox.requests.at(-1)?.path).toBe('/v1/external-accounts/..%2Fwallets');
  });

  it('keeps amounts sent as JSON numbers as the exact digits of the reply', async () => {
    // The sandbox sends strings; a provider may send numbers, which JSON.parse would round.
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_numeric' });
      res.end('{"data":[{"amount":1250.50,"rate":0.918437120,"count":3}]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const numeric = clientFor(`http://127.0.0.1:${port}/v1`);
    const response = await numeric.call('listWallets');
    await numeric.close();
    server.close();
    expect(findList(response.body)?.items[0]).toEqual({
      amount: '1250.50',
      rate: '0.918437120',
      count: 3,
    });
  });

  it('finds lists and records in replies without assuming their shape', async () => {
    const wallets = await client.call('listWallets');
    const list = findList(wallets.body);
    expect(list?.items.length).toBeGreaterThanOrEqual(4);
    expect(recordIdentity(list?.items[0]).id).toMatch(/^wal_/);
    const created = await client.call('createWallet', { body: { chain: 'polygon' } });
    expect(recordIdentity(findRecord(created.body)).id).toMatch(/^wal_/);
  });
});

describe('errors of the spec, each typed with status, code and request id', () => {
  it('a request without a key is a MissingApiKeyError', async () => {
    const keyless = clientFor(sandbox.url, { apiKey: '' });
    const error = await keyless.call('getMe').catch((caught) => caught);
    await keyless.close();
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect(error.status).toBe(401);
    expect(error.requestId).toMatch(/^req_/);
  });

  it.each([SANDBOX_KEY.revoked, SANDBOX_KEY.ineligible, 'sbx_never_issued'])(
    'key %s is an InvalidApiKeyError (ineligibility looks the same)',
    async (apiKey) => {
      const other = clientFor(sandbox.url, { apiKey });
      const error = await other.call('getMe').catch((caught) => caught);
      await other.close();
      expect(error).toBeInstanceOf(InvalidApiKeyError);
      expect(error.status).toBe(401);
      expect(providerErrorText(error.facts())).toMatch(/do not try another business/);
    },
  );

  it('a legacy key is a ScopeReviewRequiredError', async () => {
    const legacy = clientFor(sandbox.url, { apiKey: SANDBOX_KEY.legacy });
    const error = await legacy.call('listWallets').catch((caught) => caught);
    await legacy.close();
    expect(error).toBeInstanceOf(ScopeReviewRequiredError);
    expect(error).toMatchObject({ status: 403, providerCode: 'API_KEY_SCOPE_REVIEW_REQUIRED' });
  });

  it('a read-only key on a payout, and on sync=true, is an InsufficientScopeError', async () => {
    const readOnly = clientFor(sandbox.url, { apiKey: SANDBOX_KEY.read });
    const payout = await readOnly.call('createPayout', EXAMPLE_CALLS.createPayout).catch((e) => e);
    const sync = await readOnly.call('listWallets', { query: { sync: true } }).catch((e) => e);
    await readOnly.close();
    for (const error of [payout, sync]) {
      expect(error).toBeInstanceOf(InsufficientScopeError);
      expect(error).toMatchObject({ status: 403, providerCode: 'INSUFFICIENT_API_KEY_SCOPE' });
      expect(error.outcome).toBe('not_executed');
    }
  });

  it('another 4xx is a RequestRejectedError: not executed, with the provider code', async () => {
    const error = await client
      .call('createPayout', {
        body: { ...EXAMPLE_CALLS.createPayout.body, amount: '999999999.00' },
      })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect(error).toMatchObject({
      status: 422,
      providerCode: 'INSUFFICIENT_FUNDS',
      outcome: 'not_executed',
    });
    expect(error.providerMessage).toBeTruthy();
    expect(providerErrorText(error.facts())).toContain('Nothing was executed');
    const limit = await client.call('listTransfers', { query: { limit: '0' } }).catch((e) => e);
    expect(limit).toBeInstanceOf(RequestRejectedError);
    expect(limit.status).toBe(400);
  });

  it("masks account-like numbers in the provider's words shown to people, not amounts", () => {
    const error = new RequestRejectedError('getRecipient failed with HTTP 404', {
      operationId: 'getRecipient',
      status: 404,
      providerCode: 'NOT_FOUND',
      providerMessage: 'account 000123456789 not found; limit 1250000.00',
    });
    expect(providerErrorText(error.facts())).toContain(
      'account ••••6789 not found; limit 1250000.00',
    );
    expect(providerErrorText(error.facts())).not.toContain('000123456789');
  });

  it("another business's records are invisible (404 like a missing id)", async () => {
    const error = await client
      .call('getRecipient', { path: { externalAccountId: SANDBOX_IDS.other.recipient } })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect(error.status).toBe(404);
  });
});

describe('faults', () => {
  it('a read that keeps failing with a 5xx is a ServerError after bounded retries', async () => {
    sandbox.addFault({ kind: 'status', status: 503, operationId: 'listCorridors' });
    const before = callsOf('listCorridors').length;
    const error = await client.call('listCorridors').catch((caught) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(503);
    expect(callsOf('listCorridors').length - before).toBe(3);
  });

  it('a plain 500 on a read is not retried', async () => {
    sandbox.addFault({ kind: 'status', status: 500, operationId: 'listCorridors' });
    const before = callsOf('listCorridors').length;
    await expect(client.call('listCorridors')).rejects.toBeInstanceOf(ServerError);
    expect(callsOf('listCorridors').length - before).toBe(1);
  });

  it('a read succeeds after transient 502s and a connection reset', async () => {
    sandbox.addFault({ kind: 'status', status: 502, operationId: 'listDeposits', times: 1 });
    sandbox.addFault({ kind: 'reset', operationId: 'listDeposits', times: 1 });
    const response = await client.call('listDeposits');
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(3);
  });

  it("a read honours the provider's Retry-After", async () => {
    sandbox.addFault({
      kind: 'status',
      status: 429,
      retryAfterSeconds: 1,
      operationId: 'getFxLatest',
      times: 1,
    });
    const started = performance.now();
    const response = await client.call('getFxLatest');
    expect(response.attempts).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('a Retry-After longer than the cap is reported, not waited for', async () => {
    sandbox.addFault({
      kind: 'status',
      status: 429,
      retryAfterSeconds: 60,
      operationId: 'getFxLatest',
      times: 1,
    });
    const error = await client.call('getFxLatest').catch((caught) => caught);
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 60_000 });
  });

  it('a read that hangs is a TimeoutError', async () => {
    const quick = clientFor(sandbox.url, { readTimeoutMs: 200, readRetries: 0 });
    sandbox.addFault({ kind: 'hang', operationId: 'listPayouts' });
    const error = await quick.call('listPayouts').catch((caught) => caught);
    await quick.close();
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it('a read answered with malformed JSON is a MalformedResponseError', async () => {
    sandbox.addFault({ kind: 'malformed_json', operationId: 'listCorridors' });
    const error = await client.call('listCorridors').catch((caught) => caught);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.status).toBe(200);
    expect(error.requestId).toMatch(/^req_/);
  });

  it('a read whose reply goes past the byte cap is a ReplyTooLargeError and is not retried', async () => {
    sandbox.addFault({ kind: 'oversized', operationId: 'listPayouts', bytes: 8 * 1024 * 1024 });
    const before = callsOf('listPayouts').length;
    const error = await client.call('listPayouts').catch((caught) => caught);
    expect(error).toBeInstanceOf(ReplyTooLargeError);
    expect(error.status).toBe(200);
    expect(providerErrorText(error.facts())).toContain(
      'more than payops reads of one reply (2 MiB)',
    );
    expect(callsOf('listPayouts')).toHaveLength(before + 1);
    // The connection was dropped at the cap: the next read gets its own, whole.
    sandbox.clearFaults();
    expect(findList((await client.call('listPayouts')).body)?.items).toBeDefined();
  });

  it('a write whose success reply goes past the byte cap has an unknown outcome', async () => {
    sandbox.addFault({ kind: 'oversized', operationId: 'createPayout', bytes: 4 * 1024 * 1024 });
    const error = await client
      .call('createPayout', EXAMPLE_CALLS.createPayout)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.reason).toBe('unreadable_success_reply');
  });

  it('an unreachable provider is a NetworkError; a write to it is known not to be sent', async () => {
    const port = await closedPort();
    const offline = clientFor(`http://127.0.0.1:${port}/v1`, { readRetries: 1 });
    const read = await offline.call('listWallets').catch((caught) => caught);
    const write = await offline.call('createPayout', EXAMPLE_CALLS.createPayout).catch((e) => e);
    await offline.close();
    expect(read).toBeInstanceOf(NetworkError);
    expect(write).toBeInstanceOf(NetworkError);
    expect(write.outcome).toBe('not_executed');
  });

  it('added latency slows answers but does not fail them', async () => {
    sandbox.addFault({ kind: 'latency', latencyMs: 150, operationId: 'getMe', times: 1 });
    const response = await client.call('getMe');
    expect(response.durationMs).toBeGreaterThanOrEqual(140);
  });
});

describe('writes are never retried', () => {
  const payout = EXAMPLE_CALLS.createPayout;

  it.each([
    ['a 503', { kind: 'status', status: 503 } as const, 'server_error'],
    [
      'a 502 after executing',
      { kind: 'status', status: 502, execute: true } as const,
      'server_error',
    ],
    ['a hang', { kind: 'hang' } as const, 'timeout'],
    ['a connection reset', { kind: 'reset' } as const, 'connection_lost'],
    ['a malformed success', { kind: 'malformed_json' } as const, 'unreadable_success_reply'],
    ['a 409', { kind: 'status', status: 409, execute: true } as const, 'unclear_refusal'],
    ["a gateway's 408", { kind: 'status', status: 408 } as const, 'unclear_refusal'],
  ])(
    'after %s the outcome is unknown and the write was sent once',
    async (_name, fault, reason) => {
      const writer = clientFor(sandbox.url, { writeTimeoutMs: 300 });
      sandbox.addFault({ ...fault, operationId: 'createPayout' });
      const before = callsOf('createPayout').length;
      const error = await writer.call('createPayout', payout).catch((caught) => caught);
      await writer.close();
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(error).toMatchObject({ outcome: 'unknown', reason });
      expect(providerErrorText(error.facts())).toMatch(/Do not resubmit/);
      expect(callsOf('createPayout').length - before).toBe(1);
    },
  );

  it('when the connection drops after the write was executed: sent exactly once, outcome unknown, and a read finds it', async () => {
    sandbox.addFault({ kind: 'execute_then_drop', operationId: 'createPayout', times: 1 });
    const before = callsOf('createPayout').length;
    const body = { ...payout.body, amount: '7.77' };
    const error = await client.call('createPayout', { body }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.reason).toBe('connection_lost');
    const sent = callsOf('createPayout').slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.executed).toBe(true);
    const payouts = findList((await client.call('listPayouts')).body)?.items ?? [];
    expect(payouts.filter((item) => (item as { amount?: string }).amount === '7.77')).toHaveLength(
      1,
    );
  });
});

describe('a write and kept-alive connections', () => {
  it('goes out on a connection of its own, never one a read left open that the provider may have closed', async () => {
    // This provider drops a connection that has served a request before, as one whose idle
    // timeout fired just as the request arrived: the write must never meet it.
    const served = new WeakMap<object, number>();
    const writes: string[] = [];
    const provider = createHttpServer((request, response) => {
      const count = served.get(request.socket) ?? 0;
      served.set(request.socket, count + 1);
      if (request.method === 'POST') {
        if (count > 0) return request.socket.destroy();
        writes.push(request.url ?? '');
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'po_1', status: 'pending' }));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const { port } = provider.address() as AddressInfo;
    const own = clientFor(`http://127.0.0.1:${port}`, { maxInFlight: 1 });
    try {
      await own.call('listPayouts');
      await own.call('createPayout', EXAMPLE_CALLS.createPayout);
      await own.call('listPayouts');
      await own.call('createPayout', EXAMPLE_CALLS.createPayout);
      expect(writes).toHaveLength(2);
    } finally {
      await own.close();
      provider.closeAllConnections();
      await new Promise((resolve) => provider.close(resolve));
    }
  });
});

describe('bounds', () => {
  it('never has more requests in flight than the bound', async () => {
    const bounded = clientFor(sandbox.url, { maxInFlight: 2 });
    sandbox.addFault({ kind: 'latency', latencyMs: 150, operationId: 'listCorridors' });
    const before = callsOf('listCorridors').length;
    await Promise.all(Array.from({ length: 6 }, () => bounded.call('listCorridors')));
    await bounded.close();
    const arrivals = callsOf('listCorridors')
      .slice(before)
      .map((request) => request.at);
    expect(arrivals).toHaveLength(6);
    // Two at a time: the third arrives only after one of the first two was answered.
    expect((arrivals[2] as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(140);
    expect((arrivals[4] as number) - (arrivals[2] as number)).toBeGreaterThanOrEqual(140);
  });
});

describe('a provider answering with a redirect', () => {
  it('a write is outcome unknown (never counted as done, never followed); a read is refused', async () => {
    const server = createHttpServer((_req, res) => {
      res.writeHead(307, { location: 'https://elsewhere.example/v1/payouts' });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const redirecting = clientFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
    const write = await redirecting
      .call('createPayout', EXAMPLE_CALLS.createPayout)
      .catch((e) => e);
    const read = await redirecting.call('listPayouts').catch((e) => e);
    await redirecting.close();
    server.close();
    expect(write).toBeInstanceOf(OutcomeUnknownError);
    expect(write).toMatchObject({ reason: 'unexpected_reply', status: 307 });
    expect(read).toBeInstanceOf(RequestRejectedError);
  });
});

describe('a read waiting for a connection', () => {
  it('times out within its own deadline instead of queueing without bound', async () => {
    const busy = clientFor(sandbox.url, { maxInFlight: 1, readTimeoutMs: 300, readRetries: 0 });
    sandbox.addFault({ kind: 'hang', operationId: 'listCorridors' });
    const hanging = busy.call('listCorridors').catch((caught) => caught);
    const before = callsOf('listDeposits').length;
    const started = performance.now();
    const error = await busy.call('listDeposits').catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(callsOf('listDeposits').length).toBe(before);
    sandbox.clearFaults();
    await busy.close().catch(() => undefined);
    await hanging;
  });
});

describe('a call granted a connection late', () => {
  it('is not sent when less than a tenth of its deadline is left', async () => {
    // The write holds the only connection until its own deadline, 290 ms; the read, queued
    // behind it with 300 ms, would get the connection with about 10 ms left.
    const busy = clientFor(sandbox.url, {
      maxInFlight: 1,
      writeTimeoutMs: 290,
      readTimeoutMs: 300,
      readRetries: 0,
    });
    sandbox.addFault({ kind: 'hang', operationId: 'createPayout' });
    const holding = busy.call('createPayout', EXAMPLE_CALLS.createPayout).catch((e) => e);
    const before = callsOf('listDeposits').length;
    const error = await busy.call('listDeposits').catch((e) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toMatch(/not sent/);
    expect(callsOf('listDeposits').length).toBe(before);
    sandbox.clearFaults();
    await holding;
    await busy.close().catch(() => undefined);
  });
});

describe('a write waiting for a connection', () => {
  it('is reported not sent when no slot frees up within its deadline', async () => {
    const busy = clientFor(sandbox.url, { maxInFlight: 1, writeTimeoutMs: 300, readRetries: 0 });
    sandbox.addFault({ kind: 'hang', operationId: 'listCorridors' });
    const hanging = busy.call('listCorridors').catch((caught) => caught);
    const before = callsOf('createPayout').length;
    const error = await busy.call('createPayout', EXAMPLE_CALLS.createPayout).catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.outcome).toBe('not_executed');
    expect(error.message).toMatch(/not sent/);
    expect(callsOf('createPayout').length).toBe(before);
    sandbox.clearFaults();
    await busy.close().catch(() => undefined);
    await hanging;
  });
});

describe('logging', () => {
  it('writes one line per call, and at trace level neither the key nor an account number', async () => {
    const { logger, lines } = captureLogger('trace', [SANDBOX_KEY.full]);
    const logged = clientFor(sandbox.url, { logger });
    await logged.call('getMe');
    await logged.call('createRecipient', EXAMPLE_CALLS.createRecipient);
    await logged.call('createPayout', EXAMPLE_CALLS.createPayout);
    await logged.call('listRecipients');
    await logged.call('listPayouts');
    sandbox.addFault({ kind: 'status', status: 500, operationId: 'createPayout', times: 1 });
    await logged.call('createPayout', EXAMPLE_CALLS.createPayout).catch(() => undefined);
    await logged.close();

    const text = lines.join('');
    expect(text).not.toContain(SANDBOX_KEY.full);
    for (const secret of ['000123456789', '021000021', 'Jane Roe'])
      expect(text).not.toContain(secret);
    const calls = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'payments call');
    expect(calls.map((line) => line.operationId)).toEqual([
      'getMe',
      'createRecipient',
      'createPayout',
      'listRecipients',
      'listPayouts',
    ]);
    for (const line of calls) {
      expect(line).toMatchObject({ status: expect.any(Number), durationMs: expect.any(Number) });
      expect(line.requestId).toMatch(/^req_/);
    }
    // Trace level really did log the bodies (redacted), so the assertion above means something.
    expect(text).toContain('payments request body');
    expect(text).toContain('••••6789');
  });
});

async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 1;
}
