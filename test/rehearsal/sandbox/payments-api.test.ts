import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS, OPERATIONS, type OperationId } from '../../../src/domain/operations.ts';
import {
  type PagingStyle,
  type PaymentsSandbox,
  PROFILE_NAMES,
  PROFILES,
  type ProfileName,
  SANDBOX_BUSINESS,
  SANDBOX_IDS,
  SANDBOX_KEY,
  startPaymentsSandbox,
} from '../../../src/rehearsal/sandbox/payments-api.ts';

const {
  wallet: WALLET,
  depositAccount: DEPOSIT_ACCOUNT,
  recipient: RECIPIENT,
  corridor: CORRIDOR,
} = SANDBOX_IDS;
const EVM_ADDRESS = `0x${'ab'.repeat(20)}`;
const STATUS_STEP_MS = 1000;

interface CallOptions {
  /** Default: the full-scope key; null sends no key. */
  key?: string | null;
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown;
}

interface CallResult {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON replies
  json: any;
}

/** One request built from the catalogue, so the tests never restate a path or a method. */
function urlOf(sandbox: PaymentsSandbox, id: OperationId, options: CallOptions = {}): URL {
  const path = OPERATIONS[id].path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(options.params?.[name] ?? ''),
  );
  const url = new URL(`${sandbox.url}${path}`);
  for (const [name, value] of Object.entries(options.query ?? {}))
    url.searchParams.set(name, value);
  return url;
}

function requestInit(id: OperationId, options: CallOptions = {}): RequestInit {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? SANDBOX_KEY.full : options.key;
  if (key !== null) headers['X-Api-Key'] = key;
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return { method: OPERATIONS[id].method, headers, body };
}

async function call(
  sandbox: PaymentsSandbox,
  id: OperationId,
  options: CallOptions = {},
): Promise<CallResult> {
  const response = await fetch(urlOf(sandbox, id, options), requestInit(id, options));
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text ? JSON.parse(text) : undefined,
  };
}

async function balanceOf(
  sandbox: PaymentsSandbox,
  walletId: string,
  currency: string,
): Promise<string> {
  const { json } = await call(sandbox, 'getWalletBalance', { params: { walletId } });
  return json.balances.find((entry: { currency: string }) => entry.currency === currency)?.amount;
}

function payoutBody(amount: unknown, walletId: string = WALLET.ethereumOps) {
  return {
    wallet_id: walletId,
    amount,
    currency: 'USDC',
    beneficiary_name: 'Northwind Components Inc',
    beneficiary_account: '000123456789',
    beneficiary_routing: '021000021',
    destination_type: 'ach',
  };
}

/** A valid request for every operation, each touching its own resources. */
const VALID_REQUESTS: Record<OperationId, CallOptions> = {
  health: { key: null },
  getMe: {},
  listWallets: { query: { sync: 'true' } },
  getWalletBalance: { params: { walletId: WALLET.ethereumOps } },
  getWalletHistory: { params: { walletId: WALLET.ethereumOps } },
  createWallet: { body: { chain: 'arbitrum' } },
  listDepositAccounts: {},
  createDepositAccount: {
    body: {
      source_currency: 'USD',
      destination_currency: 'USDC',
      destination_payment_rail: 'base',
      destination_address: EVM_ADDRESS,
    },
  },
  deactivateDepositAccount: { params: { virtualAccountId: DEPOSIT_ACCOUNT.activeUsd } },
  reactivateDepositAccount: { params: { virtualAccountId: DEPOSIT_ACCOUNT.inactiveEur } },
  listRecipients: {},
  getRecipient: { params: { externalAccountId: RECIPIENT.usSupplier } },
  createRecipient: {
    body: {
      corridor_id: CORRIDOR.usdAch,
      account_owner_name: 'Contoso Parts LLC',
      bank_name: 'Bank of America',
      account_number: '004433221100',
      routing_number: '026009593',
      street_line_1: '1 Main St',
      city: 'Austin',
      state: 'TX',
      postal_code: '78701',
      country: 'US',
    },
  },
  updateRecipient: {
    params: { externalAccountId: RECIPIENT.mxContractor },
    body: { account_owner_name: 'María López' },
  },
  deactivateRecipient: { params: { externalAccountId: RECIPIENT.deAgency } },
  reactivateRecipient: { params: { externalAccountId: RECIPIENT.brInactive } },
  listDeposits: {},
  listTransfers: { query: { limit: '10' } },
  createTransfer: {
    body: {
      wallet_id: WALLET.solanaTreasury,
      external_account_id: RECIPIENT.usSupplier,
      amount: '250.00',
      source_currency: 'USDC',
      corridor_id: CORRIDOR.usdAch,
    },
  },
  createCryptoTransfer: {
    body: {
      wallet_id: WALLET.solanaTreasury,
      amount: '10',
      source_currency: 'USDC',
      destination_currency: 'USDC',
      destination_payment_rail: 'ethereum',
      destination_address: EVM_ADDRESS,
    },
  },
  createPaymentRoute: {
    body: {
      wallet_id: WALLET.polygonPetty,
      source_currency: 'USDC',
      destination_payment_rail: 'polygon',
      destination_currency: 'USDC',
      destination_address: EVM_ADDRESS,
    },
  },
  createOfframpRoute: {
    body: {
      wallet_id: WALLET.ethereumOps,
      corridor_id: CORRIDOR.mxnSpei,
      external_account_id: RECIPIENT.mxContractor,
      source_currency: 'USDC',
    },
  },
  listPayouts: {},
  createPayout: { body: payoutBody('12.34', WALLET.solanaTreasury) },
  getFxLatest: {},
  getFxRate: { query: { from: 'USD', to: 'MXN', amount: '100' } },
  listCorridors: {},
};

describe('routes', () => {
  let sandbox: PaymentsSandbox;
  beforeAll(async () => {
    sandbox = await startPaymentsSandbox();
  });
  afterAll(() => sandbox.close());

  it.each(OPERATION_IDS)(
    '%s is served at its catalogue path and method with the full key',
    async (id) => {
      const { status } = await call(sandbox, id, VALID_REQUESTS[id]);
      expect(status).toBe(id.startsWith('create') ? 201 : 200);
      expect(sandbox.requests.at(-1)?.operationId).toBe(id);
    },
  );

  it('an unknown path answers 404 in JSON', async () => {
    const response = await fetch(`${sandbox.url}/nope`, {
      headers: { 'X-Api-Key': SANDBOX_KEY.full },
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as CallResult['json']).error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('a known path with another method answers 405 naming the allowed methods', async () => {
    const response = await fetch(urlOf(sandbox, 'listWallets'), {
      method: 'DELETE',
      headers: { 'X-Api-Key': SANDBOX_KEY.full },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('an encoded path parameter is decoded as one id and cannot escape its segment', async () => {
    const { status, json } = await call(sandbox, 'getWalletBalance', {
      params: { walletId: 'wal/../me' },
    });
    expect(status).toBe(404);
    expect(json.error.code).toBe('WALLET_NOT_FOUND');
  });

  it('every response carries an X-Request-Id, errors included, matching the error body', async () => {
    const replies = await Promise.all([
      call(sandbox, 'health', { key: null }),
      call(sandbox, 'getMe', { key: null }),
      call(sandbox, 'createPayout', { body: '{' }),
      fetch(`${sandbox.url}/nope`),
    ]);
    for (const reply of replies) expect(reply.headers.get('x-request-id')).toMatch(/^req_\w+$/);
    const unauthenticated = replies[1] as CallResult;
    expect(unauthenticated.json.error.request_id).toBe(unauthenticated.headers.get('x-request-id'));
  });

  it('a body over 1 MB answers 413 without crashing the server', async () => {
    const { status } = await call(sandbox, 'createPayout', { body: `"${'a'.repeat(1_100_000)}"` });
    expect(status).toBe(413);
    expect((await call(sandbox, 'health', { key: null })).status).toBe(200);
  });
});

describe('authentication and scopes', () => {
  let sandbox: PaymentsSandbox;
  beforeAll(async () => {
    sandbox = await startPaymentsSandbox();
  });
  afterAll(() => sandbox.close());

  it('health needs no key; every other operation without a key answers 401 "API key is required"', async () => {
    expect((await call(sandbox, 'health', { key: null })).json).toEqual({ status: 'ok' });
    const { status, json } = await call(sandbox, 'listWallets', { key: null });
    expect(status).toBe(401);
    expect(json.error.message).toMatch(/API key is required/i);
  });

  it('unknown, revoked and ineligible keys get the same 401 "invalid or revoked"', async () => {
    const replies = await Promise.all(
      ['sbx_nope', SANDBOX_KEY.revoked, SANDBOX_KEY.ineligible].map((key) =>
        call(sandbox, 'getMe', { key }),
      ),
    );
    for (const { status, json } of replies) {
      expect(status).toBe(401);
      expect(json.error.code).toBe('INVALID_API_KEY');
      expect(json.error.message).toMatch(/invalid or revoked/);
    }
  });

  it('a legacy key answers 403 API_KEY_SCOPE_REVIEW_REQUIRED on reads and writes alike', async () => {
    for (const id of ['getMe', 'createPayout'] as const) {
      const { status, json } = await call(sandbox, id, {
        ...VALID_REQUESTS[id],
        key: SANDBOX_KEY.legacy,
      });
      expect(status).toBe(403);
      expect(json.error.code).toBe('API_KEY_SCOPE_REVIEW_REQUIRED');
    }
  });

  it('a read-only key cannot create a payout: 403 INSUFFICIENT_API_KEY_SCOPE, nothing executed', async () => {
    const { status, json } = await call(sandbox, 'createPayout', {
      key: SANDBOX_KEY.read,
      body: payoutBody('1.00'),
    });
    expect(status).toBe(403);
    expect(json.error.code).toBe('INSUFFICIENT_API_KEY_SCOPE');
    expect(json.error.message).toContain('payments:write');
    expect(sandbox.requests.at(-1)?.executed).toBe(false);
    expect(await balanceOf(sandbox, WALLET.ethereumOps, 'USDC')).toBe('1250.50');
  });

  it('deposit-account creation needs both write scopes: a payments key is refused', async () => {
    const { status, json } = await call(sandbox, 'createDepositAccount', {
      ...VALID_REQUESTS.createDepositAccount,
      key: SANDBOX_KEY.payments,
    });
    expect(status).toBe(403);
    expect(json.error.message).toContain('resources:write');
  });

  it('sync=true needs resources:write; sync=false is an ordinary read; a malformed sync is 400', async () => {
    const read = { key: SANDBOX_KEY.read };
    expect((await call(sandbox, 'listWallets', { ...read, query: { sync: 'true' } })).status).toBe(
      403,
    );
    expect((await call(sandbox, 'listWallets', { ...read, query: { sync: 'false' } })).status).toBe(
      200,
    );
    const resources = { key: SANDBOX_KEY.resources, query: { sync: 'true' } };
    expect((await call(sandbox, 'listDeposits', resources)).status).toBe(200);
    const malformed = await call(sandbox, 'listWallets', { query: { sync: 'yes' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.code).toBe('INVALID_QUERY_PARAMETER');
  });

  it('a key in the URL is refused, never used', async () => {
    const { status, json } = await call(sandbox, 'getMe', {
      key: null,
      query: { api_key: SANDBOX_KEY.full },
    });
    expect(status).toBe(401);
    expect(json.error.code).toBe('API_KEY_REQUIRED');
  });

  it('GET /me names the business of the key and its scopes', async () => {
    const { json } = await call(sandbox, 'getMe', { key: SANDBOX_KEY.payments });
    expect(json).toEqual({
      customer: { id: SANDBOX_BUSINESS.id, business_name: SANDBOX_BUSINESS.name },
      api_key: { scopes: ['read', 'payments:write'] },
    });
  });
});

describe('business isolation', () => {
  let sandbox: PaymentsSandbox;
  beforeAll(async () => {
    sandbox = await startPaymentsSandbox();
  });
  afterAll(() => sandbox.close());

  it("another business's recipient answers 404 exactly like a nonexistent one", async () => {
    const theirs = await call(sandbox, 'getRecipient', {
      params: { externalAccountId: SANDBOX_IDS.other.recipient },
    });
    const none = await call(sandbox, 'getRecipient', {
      params: { externalAccountId: 'ea_nonexistent' },
    });
    expect(theirs.status).toBe(404);
    expect(theirs.json.error.code).toBe(none.json.error.code);
    expect(theirs.json.error.message.replace(SANDBOX_IDS.other.recipient, 'ID')).toBe(
      none.json.error.message.replace('ea_nonexistent', 'ID'),
    );
  });

  it("another business's wallet balance answers 404 and cannot be paid from", async () => {
    const balance = await call(sandbox, 'getWalletBalance', {
      params: { walletId: SANDBOX_IDS.other.wallet },
    });
    expect(balance.status).toBe(404);
    const payout = await call(sandbox, 'createPayout', {
      body: payoutBody('1.00', SANDBOX_IDS.other.wallet),
    });
    expect(payout.status).toBe(422);
    expect(payout.json.error.code).toBe('WALLET_NOT_FOUND');
    const owner = await call(sandbox, 'getWalletBalance', {
      key: SANDBOX_KEY.other,
      params: { walletId: SANDBOX_IDS.other.wallet },
    });
    expect(owner.json.balances).toEqual([{ currency: 'USDC', amount: '5000.00' }]);
  });

  it('lists show only the business of the key', async () => {
    const { json } = await call(sandbox, 'listRecipients');
    const ids: string[] = json.data.map((recipient: { id: string }) => recipient.id);
    expect(ids).toContain(RECIPIENT.usSupplier);
    expect(ids).not.toContain(SANDBOX_IDS.other.recipient);
  });
});

describe('writes change state', () => {
  let clock = Date.parse('2026-03-01T09:00:00.000Z');
  let sandbox: PaymentsSandbox;
  beforeAll(async () => {
    sandbox = await startPaymentsSandbox({ now: () => clock, statusStepMs: STATUS_STEP_MS });
  });
  afterAll(() => sandbox.close());

  it('a payout debits the wallet exactly, is listed and in the history, and advances with the clock', async () => {
    const created = await call(sandbox, 'createPayout', { body: payoutBody('250.25') });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^po_/),
      amount: '250.25',
      status: 'pending',
    });
    expect(await balanceOf(sandbox, WALLET.ethereumOps, 'USDC')).toBe('1000.25');

    const statusNow = async () =>
      (await call(sandbox, 'listPayouts')).json.data.find(
        (p: { id: string }) => p.id === created.json.id,
      )?.status;
    expect(await statusNow()).toBe('pending');
    clock += STATUS_STEP_MS;
    expect(await statusNow()).toBe('processing');
    clock += STATUS_STEP_MS;
    expect(await statusNow()).toBe('completed');

    const history = await call(sandbox, 'getWalletHistory', {
      params: { walletId: WALLET.ethereumOps },
    });
    expect(history.json.data[0]).toMatchObject({
      reference_id: created.json.id,
      type: 'payout',
      direction: 'debit',
      amount: '250.25',
      status: 'completed',
    });
  });

  it('a test moves a record through chosen statuses, any word, and can make it disappear', async () => {
    const created = await call(sandbox, 'createPayout', { body: payoutBody('1.00') });
    const id: string = created.json.id;
    const listed = async () =>
      (await call(sandbox, 'listPayouts')).json.data.find((p: { id: string }) => p.id === id);
    expect(sandbox.setRecordStatus(id, 'in_review')).toBe(true);
    expect((await listed())?.status).toBe('in_review');
    clock += 10 * STATUS_STEP_MS;
    // Set by hand: the clock no longer moves it.
    expect((await listed())?.status).toBe('in_review');
    expect(sandbox.setRecordStatus(id, 'FUNDS RETURNED')).toBe(true);
    expect((await listed())?.status).toBe('FUNDS RETURNED');
    expect(sandbox.removeRecord(id)).toBe(true);
    expect(await listed()).toBeUndefined();
    expect(sandbox.setRecordStatus(id, 'completed')).toBe(false);
    expect(sandbox.removeRecord('po_nothing')).toBe(false);
  });

  it('an amount sent as a JSON number is refused with 422 INVALID_AMOUNT', async () => {
    const { status, json } = await call(sandbox, 'createPayout', { body: payoutBody(10) });
    expect(status).toBe(422);
    expect(json.error.code).toBe('INVALID_AMOUNT');
  });

  it('a payout above the balance is refused with 422 INSUFFICIENT_FUNDS and debits nothing', async () => {
    const { status, json } = await call(sandbox, 'createPayout', {
      body: payoutBody('42.76', WALLET.polygonPetty),
    });
    expect(status).toBe(422);
    expect(json.error.code).toBe('INSUFFICIENT_FUNDS');
    expect(await balanceOf(sandbox, WALLET.polygonPetty, 'USDC')).toBe('42.75');
  });

  it('a refused write changes nothing: a bad destination address leaves the balance as it was', async () => {
    const before = await balanceOf(sandbox, WALLET.solanaTreasury, 'USDC');
    const body = {
      ...(VALID_REQUESTS.createCryptoTransfer.body as object),
      destination_address: 'nope',
    };
    const { status, json } = await call(sandbox, 'createCryptoTransfer', { body });
    expect(status).toBe(422);
    expect(json.error.code).toBe('INVALID_DESTINATION_ADDRESS');
    expect(await balanceOf(sandbox, WALLET.solanaTreasury, 'USDC')).toBe(before);
  });

  it('an unknown body field is refused with 422 naming it; a non-object or broken body with 400', async () => {
    const unknown = await call(sandbox, 'createWallet', { body: { chain: 'base', label: 'ops' } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error).toMatchObject({
      code: 'UNKNOWN_FIELD',
      message: expect.stringContaining('label'),
    });
    expect((await call(sandbox, 'createWallet', { body: '["base"]' })).json.error.code).toBe(
      'INVALID_BODY',
    );
    expect((await call(sandbox, 'createWallet', { body: '{"chain":' })).json.error.code).toBe(
      'INVALID_JSON',
    );
  });

  it('a wallet is created on a known chain only', async () => {
    const unknown = await call(sandbox, 'createWallet', { body: { chain: 'dogecoin' } });
    expect(unknown.json.error.code).toBe('UNSUPPORTED_CHAIN');
    const created = await call(sandbox, 'createWallet', { body: { chain: 'solana' } });
    expect(created.status).toBe(201);
    const listed = (await call(sandbox, 'listWallets')).json.data.map((w: { id: string }) => w.id);
    expect(listed).toContain(created.json.id);
  });

  it('deactivate then reactivate flips status, and repeating either answers 409', async () => {
    const cases = [
      [
        'deactivateDepositAccount',
        'reactivateDepositAccount',
        { virtualAccountId: DEPOSIT_ACCOUNT.activeUsd },
      ],
      ['deactivateRecipient', 'reactivateRecipient', { externalAccountId: RECIPIENT.usSupplier }],
    ] as const;
    for (const [deactivate, reactivate, params] of cases) {
      expect((await call(sandbox, deactivate, { params })).json.status).toBe('inactive');
      const again = await call(sandbox, deactivate, { params });
      expect(again.status).toBe(409);
      expect(again.json.error.code).toBe('ALREADY_INACTIVE');
      expect((await call(sandbox, reactivate, { params })).json.status).toBe('active');
      expect((await call(sandbox, reactivate, { params })).status).toBe(409);
    }
  });

  it('a recipient update accepts account_owner_name only', async () => {
    const params = { externalAccountId: RECIPIENT.deAgency };
    const renamed = await call(sandbox, 'updateRecipient', {
      params,
      body: { account_owner_name: 'Blau Studio GmbH' },
    });
    expect(renamed.json.account_owner_name).toBe('Blau Studio GmbH');
    const refused = await call(sandbox, 'updateRecipient', {
      params,
      body: { bank_name: 'Other Bank' },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('FIELD_NOT_UPDATABLE');
  });

  it('routes and transfers are listed among the transfers with their type, newest first', async () => {
    await call(sandbox, 'createOfframpRoute', VALID_REQUESTS.createOfframpRoute);
    await call(sandbox, 'createTransfer', VALID_REQUESTS.createTransfer);
    const { json } = await call(sandbox, 'listTransfers', { query: { limit: '2' } });
    expect(json.data.map((transfer: { type: string }) => transfer.type)).toEqual([
      'offramp',
      'offramp_route',
    ]);
    expect(json.data[1].status).toBe('active');
  });

  it('a transfer to an inactive recipient is refused', async () => {
    const { status, json } = await call(sandbox, 'createTransfer', {
      body: {
        ...(VALID_REQUESTS.createTransfer.body as object),
        external_account_id: RECIPIENT.brInactive,
        corridor_id: CORRIDOR.brlPix,
      },
    });
    expect(status).toBe(422);
    expect(json.error.code).toBe('RECIPIENT_INACTIVE');
  });

  it.each(['0', '101', 'abc', '1.5', '-1', ''])(
    'transfers limit=%j is refused with 400',
    async (limit) => {
      const { status, json } = await call(sandbox, 'listTransfers', { query: { limit } });
      expect(status).toBe(400);
      expect(json.error.code).toBe('INVALID_QUERY_PARAMETER');
    },
  );

  it('transfers limit accepts 1 to 100', async () => {
    expect(
      (await call(sandbox, 'listTransfers', { query: { limit: '1' } })).json.data,
    ).toHaveLength(1);
    expect((await call(sandbox, 'listTransfers', { query: { limit: '100' } })).status).toBe(200);
  });

  it('an FX rate converts the amount exactly and says it is indicative', async () => {
    const { json } = await call(sandbox, 'getFxRate', {
      query: { from: 'USD', to: 'MXN', amount: '100' },
    });
    expect(json).toMatchObject({
      rate: '17.05420000',
      converted_amount: '1705.42',
      indicative: true,
    });
  });
});

describe('faults', () => {
  let sandbox: PaymentsSandbox;
  beforeAll(async () => {
    sandbox = await startPaymentsSandbox();
  });
  afterAll(() => sandbox.close());

  const payoutIds = async () =>
    (await call(sandbox, 'listPayouts')).json.data.map((payout: { id: string }) => payout.id);
  const sendPayout = (amount: string) =>
    fetch(
      urlOf(sandbox, 'createPayout'),
      requestInit('createPayout', { body: payoutBody(amount) }),
    );
  const requestsOf = (id: OperationId) =>
    sandbox.requests.filter((request) => request.operationId === id);

  it('latency delays the matching operation only, and setLatency delays every response', async () => {
    sandbox.addFault({ kind: 'latency', operationId: 'listCorridors', latencyMs: 200, times: 1 });
    const timed = async (id: OperationId, options?: CallOptions) => {
      const started = performance.now();
      await call(sandbox, id, options);
      return performance.now() - started;
    };
    expect(await timed('listCorridors')).toBeGreaterThanOrEqual(190);
    expect(await timed('listCorridors')).toBeLessThan(150);
    sandbox.setLatency(120);
    expect(await timed('health', { key: null })).toBeGreaterThanOrEqual(110);
    sandbox.setLatency(0);
  });

  it('status answers the injected status with Retry-After and does not execute, for `times` requests', async () => {
    sandbox.addFault({
      kind: 'status',
      operationId: 'createPayout',
      status: 503,
      retryAfterSeconds: 7,
      times: 1,
    });
    const before = await payoutIds();
    const refused = await sendPayout('1.00');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
    expect(((await refused.json()) as CallResult['json']).error.code).toBe('SERVICE_UNAVAILABLE');
    expect(requestsOf('createPayout').at(-1)?.executed).toBe(false);
    expect(await payoutIds()).toEqual(before);
    expect((await sendPayout('1.00')).status).toBe(201);
  });

  it('status with execute answers the error after the write took effect', async () => {
    sandbox.addFault({
      kind: 'status',
      operationId: 'createPayout',
      status: 500,
      execute: true,
      times: 1,
    });
    const before = (await payoutIds()).length;
    expect((await sendPayout('2.00')).status).toBe(500);
    expect(requestsOf('createPayout').at(-1)?.executed).toBe(true);
    expect(await payoutIds()).toHaveLength(before + 1);
  });

  it('reset drops the connection without executing the write', async () => {
    sandbox.addFault({ kind: 'reset', operationId: 'createPayout', times: 1 });
    const before = await payoutIds();
    await expect(sendPayout('3.00')).rejects.toThrow();
    expect(requestsOf('createPayout').at(-1)?.executed).toBe(false);
    expect(await payoutIds()).toEqual(before);
  });

  it('execute_then_drop executes the write, then drops the connection: the payout is listed afterwards', async () => {
    sandbox.addFault({ kind: 'execute_then_drop', operationId: 'createPayout', times: 1 });
    const before = await payoutIds();
    await expect(sendPayout('4.44')).rejects.toThrow();
    const sent = requestsOf('createPayout').at(-1);
    expect(sent?.executed).toBe(true);
    const after = (await call(sandbox, 'listPayouts')).json.data;
    expect(after).toHaveLength(before.length + 1);
    expect(after[0]).toMatchObject({ amount: '4.44' });
  });

  it('malformed_json answers 200 application/json that does not parse, after executing a write', async () => {
    sandbox.addFault({ kind: 'malformed_json', operationId: 'listWallets', times: 1 });
    const read = await fetch(urlOf(sandbox, 'listWallets'), requestInit('listWallets'));
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toContain('application/json');
    await expect(read.json()).rejects.toThrow();

    sandbox.addFault({ kind: 'malformed_json', operationId: 'createPayout', times: 1 });
    const write = await sendPayout('5.00');
    await expect(write.json()).rejects.toThrow();
    expect(requestsOf('createPayout').at(-1)?.executed).toBe(true);
  });

  it('a fault without an operation applies to every operation except health, until cleared', async () => {
    sandbox.addFault({ kind: 'status', status: 502 });
    expect((await call(sandbox, 'listCorridors')).status).toBe(502);
    expect((await call(sandbox, 'getMe')).status).toBe(502);
    expect((await call(sandbox, 'health', { key: null })).status).toBe(200);
    sandbox.clearFaults();
    expect((await call(sandbox, 'listCorridors')).status).toBe(200);
  });

  it('hang never answers, and close() ends the hung request without blocking', async () => {
    const hanging = await startPaymentsSandbox();
    hanging.addFault({ kind: 'hang', operationId: 'getMe' });
    const pending = fetch(`${hanging.url}/me`, { headers: { 'X-Api-Key': SANDBOX_KEY.full } });
    const outcome = pending.then(
      () => 'answered',
      () => 'dropped',
    );
    await expect.poll(() => hanging.requests.length).toBe(1);
    const raced = await Promise.race([
      outcome,
      new Promise((resolve) => setTimeout(resolve, 300, 'hung')),
    ]);
    expect(raced).toBe('hung');
    const started = performance.now();
    await hanging.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await outcome).toBe('dropped');
  });
});

describe("a long run's records", () => {
  it('forgetRequests empties the record; later requests are recorded as before', async () => {
    const sandbox = await startPaymentsSandbox();
    try {
      await call(sandbox, 'listWallets');
      expect(sandbox.requests).toHaveLength(1);

      sandbox.forgetRequests();
      expect(sandbox.requests).toHaveLength(0);

      const balance = await call(sandbox, 'getWalletBalance', {
        params: { walletId: WALLET.ethereumOps },
      });
      expect(balance.status).toBe(200);
      expect(sandbox.requests.map((request) => request.operationId)).toEqual(['getWalletBalance']);
    } finally {
      await sandbox.close();
    }
  });
});

describe('list views: lists shown and paged as a real provider might', () => {
  let sandbox: PaymentsSandbox;
  beforeAll(async () => {
    sandbox = await startPaymentsSandbox();
    for (const amount of ['1.10', '2.20', '3.30']) {
      await call(sandbox, 'createPayout', {
        body: { ...(VALID_REQUESTS.createPayout.body as object), amount },
      });
    }
  });
  afterAll(() => sandbox.close());

  it('by default a list is one page of records as sent, and takes no paging parameter', async () => {
    const { json } = await call(sandbox, 'listPayouts');
    expect(json).toEqual({ data: expect.any(Array) });
    expect(json.data[0]).toMatchObject({ amount: '3.30', beneficiary_account: '000123456789' });
    const refused = await call(sandbox, 'listPayouts', { query: { cursor: 'x' } });
    expect(refused.json.error.code).toBe('UNKNOWN_QUERY_PARAMETER');
  });

  it('pages behind a cursor, a link, a next URL, a page number or has_more, to the same records', async () => {
    const everything = (await call(sandbox, 'listPayouts')).json.data.map(
      (p: { id: string }) => p.id,
    );
    const follow: Record<string, (json: CallResult['json']) => Record<string, string> | undefined> =
      {
        cursor: (json) => (json.next_cursor ? { cursor: json.next_cursor } : undefined),
        link: (json) =>
          json.links.next ? Object.fromEntries(new URL(json.links.next).searchParams) : undefined,
        next_url: (json) =>
          json.next ? Object.fromEntries(new URL(json.next).searchParams) : undefined,
        page: (json) =>
          json.page < json.total_pages ? { page: String(json.page + 1) } : undefined,
        has_more: (json) => (json.has_more ? { starting_after: json.data.at(-1).id } : undefined),
      };
    for (const [paging, next] of Object.entries(follow)) {
      sandbox.setListView({ pageSize: 2, paging: paging as PagingStyle });
      const ids: string[] = [];
      let query: Record<string, string> | undefined = {};
      while (query) {
        const { json } = await call(sandbox, 'listPayouts', { query });
        const records = paging === 'next_url' ? json.results : json.data;
        expect(records.length).toBeLessThanOrEqual(2);
        ids.push(...records.map((p: { id: string }) => p.id));
        query = next(json);
      }
      expect(ids).toEqual(everything);
    }
    sandbox.setListView({ pageSize: 2 });
    expect((await call(sandbox, 'listPayouts', { query: { cursor: 'bogus' } })).status).toBe(400);
    sandbox.setListView({});
  });

  it('shows account numbers masked or as their last four digits, amounts shortened, names changed, oldest first', async () => {
    sandbox.setListView({ bankingNumbers: 'masked', shortAmounts: true });
    const masked = (await call(sandbox, 'listPayouts')).json.data[0];
    expect(masked).toMatchObject({
      amount: '3.3',
      beneficiary_account: '••••6789',
      beneficiary_routing: '••••0021',
    });
    sandbox.setListView({
      bankingNumbers: 'last4',
      renames: { amount: 'value' },
      order: 'oldest_first',
    });
    const cut = (await call(sandbox, 'listPayouts')).json.data;
    expect(cut.at(-1)).toMatchObject({ value: '3.30', account_last4: '6789' });
    expect(cut.at(-1)).not.toHaveProperty('beneficiary_account');
    expect(cut.at(-1)).not.toHaveProperty('beneficiary_routing');
    expect(JSON.stringify(cut)).not.toContain('000123456789');
    sandbox.setListView({});
    expect(() => sandbox.setListView({ pageSize: 0 })).toThrow(RangeError);
  });
});

describe("provider profiles: the spec's silences filled as another provider would", () => {
  const SOLANA = WALLET.solanaTreasury; // holds 98000.00 USDC and nothing else
  const usdPayout = (account = '000123456789') => ({
    ...payoutBody('25.00', SOLANA),
    currency: 'USD',
    beneficiary_account: account,
  });
  /** The currency a profile's payouts over ACH are requested in. */
  const currencyOf = (profile: ProfileName) =>
    PROFILES[profile].payoutCurrency === 'fiat' ? 'USD' : 'USDC';

  /** A sandbox playing `profile`, on a clock the test moves. */
  async function playing(profile: ProfileName) {
    const clock = { now: Date.parse('2026-03-01T10:00:00.000Z') };
    const sandbox = await startPaymentsSandbox({
      profile,
      statusStepMs: STATUS_STEP_MS,
      now: () => clock.now,
    });
    return { sandbox, clock };
  }

  /** Every payout the list shows, page after page, whichever way the profile pages. */
  async function everyPayout(sandbox: PaymentsSandbox): Promise<Record<string, unknown>[]> {
    const records: Record<string, unknown>[] = [];
    let query: Record<string, string> | undefined = {};
    while (query) {
      const { json } = await call(sandbox, 'listPayouts', { query });
      records.push(...(json.data ?? json.results));
      const link = json.next ?? json.links?.next;
      query = link
        ? Object.fromEntries(new URL(link).searchParams)
        : json.next_cursor
          ? { cursor: json.next_cursor }
          : json.page < json.total_pages
            ? { page: String(json.page + 1) }
            : undefined;
    }
    return records;
  }

  /** The listed record that shows every field of `written` but its status. */
  function listedAs(records: Record<string, unknown>[], written: Record<string, unknown>) {
    const { status: _, ...identity } = written;
    return records.find((record) =>
      Object.entries(identity).every(([name, value]) => isDeepStrictEqual(record[name], value)),
    );
  }

  async function rawText(sandbox: PaymentsSandbox, id: OperationId, options: CallOptions = {}) {
    return (await fetch(urlOf(sandbox, id, options), requestInit(id, options))).text();
  }

  it.each(PROFILE_NAMES)(
    '%s: a payout is listed as its write answered it, through every page',
    async (profile) => {
      const { sandbox } = await playing(profile);
      try {
        const written = await call(sandbox, 'createPayout', {
          body: { ...usdPayout(), currency: currencyOf(profile) },
        });
        expect(written.status).toBe(201);
        const records = await everyPayout(sandbox);
        expect(records).toHaveLength(3);
        expect(records).toContainEqual(written.json);
      } finally {
        await sandbox.close();
      }
    },
  );

  it('stablecoin-offramp: a USD payout over ACH debits the USDC wallet by conversion, exactly', async () => {
    const { sandbox } = await playing('stablecoin-offramp');
    try {
      const paid = await call(sandbox, 'createPayout', { body: usdPayout() });
      expect(paid.status).toBe(201);
      expect(paid.json).toMatchObject({
        payout_id: expect.stringMatching(/^po_/),
        amount: '25.00',
        currency: 'USD',
        source_currency: 'USDC',
        // 25.00 USD at 0.99985 USDC per USD.
        source_amount: '24.996250',
        created: Date.parse('2026-03-01T10:00:00.000Z') / 1000,
      });
      expect(paid.json).not.toHaveProperty('id');
      const balance = async () =>
        (await call(sandbox, 'getWalletBalance', { params: { walletId: SOLANA } })).json.balances;
      expect(await balance()).toEqual({ USDC: { available: '97975.003750', pending: '0.00' } });
      for (const [currency, rail] of [
        ['USDC', 'ach'],
        ['EUR', 'ach'],
        ['USD', 'sepa'],
      ]) {
        const refused = await call(sandbox, 'createPayout', {
          body: { ...usdPayout(), currency, destination_type: rail },
        });
        expect(refused.status).toBe(422);
        expect(refused.json.error.code).toBe('UNSUPPORTED_CURRENCY');
      }
      expect((await balance()).USDC.available).toBe('97975.003750');
    } finally {
      await sandbox.close();
    }
  });

  it("each profile's lifecycle in its own words; stablecoin-offramp's test account is returned after it is paid", async () => {
    const seen: Record<string, string[]> = {};
    for (const profile of PROFILE_NAMES) {
      const { sandbox, clock } = await playing(profile);
      try {
        const written = await call(sandbox, 'createPayout', {
          body: { ...usdPayout('000111111113'), currency: currencyOf(profile) },
        });
        const statuses: string[] = [];
        const createdAt = clock.now;
        // Returned 8 steps after its final status: at step 10, not 9.
        for (const step of [0, 1, 2, 9, 10]) {
          clock.now = createdAt + step * STATUS_STEP_MS;
          statuses.push(String(listedAs(await everyPayout(sandbox), written.json)?.status));
        }
        seen[profile] = statuses;
      } finally {
        await sandbox.close();
      }
    }
    expect(seen).toEqual({
      default: ['pending', 'processing', 'completed', 'completed', 'completed'],
      'stablecoin-offramp': ['pending', 'in_transit', 'paid', 'paid', 'returned'],
      'masked-lists': ['submitted', 'processing', 'completed', 'completed', 'completed'],
      'numeric-amounts': ['PENDING', 'PROCESSING', 'SETTLED', 'SETTLED', 'SETTLED'],
      terse: ['created', 'sent', 'paid', 'paid', 'paid'],
    });
  });

  it('numeric-amounts: amounts and balances are JSON number tokens of exactly their digits', async () => {
    const { sandbox } = await playing('numeric-amounts');
    try {
      await call(sandbox, 'createPayout', { body: payoutBody('25.10', SOLANA) });
      expect(await rawText(sandbox, 'listPayouts')).toContain('"amount":25.10,');
      const wallet = { params: { walletId: SOLANA } };
      expect(await rawText(sandbox, 'getWalletBalance', wallet)).toContain('"available":97974.90}');
      expect(await rawText(sandbox, 'getWalletHistory', wallet)).toContain('"amount":25.10,');
    } finally {
      await sandbox.close();
    }
  });

  it('masked-lists and terse never list a whole account number, and show its last four under names of their own', async () => {
    for (const [profile, shown] of [
      ['masked-lists', { payee_acct_masked: '****6789' }],
      ['terse', { destination: { type: 'ach', last_four: '6789' } }],
    ] as const) {
      const { sandbox } = await playing(profile);
      try {
        const written = await call(sandbox, 'createPayout', { body: usdPayout() });
        expect(written.json).toMatchObject(shown);
        const listed = JSON.stringify(await everyPayout(sandbox));
        expect(listed).toContain(JSON.stringify(shown).slice(1, -1));
        expect(listed).not.toMatch(/000123456789|021000021/);
      } finally {
        await sandbox.close();
      }
    }
  });

  it('terse: a reference, no date, a balance of assets', async () => {
    const { sandbox } = await playing('terse');
    try {
      const written = await call(sandbox, 'createPayout', { body: usdPayout() });
      expect(Object.keys(written.json).sort()).toEqual([
        'amount',
        'currency',
        'destination',
        'reference',
        'status',
      ]);
      const balance = await call(sandbox, 'getWalletBalance', { params: { walletId: SOLANA } });
      expect(balance.json).toEqual({
        data: [{ asset: 'USDC', free: '97975.003750', locked: '0.00' }],
      });
    } finally {
      await sandbox.close();
    }
  });
});
