import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RECONCILE_PAGES, reconcile } from '../../src/app/reconcile.ts';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import type { WriteOperationId } from '../../src/domain/operations.ts';
import {
  type PagingStyle,
  SANDBOX_IDS,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { reconciliationDetailText } from '../../src/slack/text/list-findings.ts';
import { clientFor, EXAMPLE_CALLS, sandboxAndClient } from '../helpers/payments.ts';
import { testSigner } from '../helpers/requests.ts';

const payments = sandboxAndClient();
/** No other request's record is known: every listed id may be the request's. */
const NONE_TAKEN = { attributedElsewhere: async () => new Set<string>() };

/** A request approved `approvedAgoMs` ago, for an operation with these path ids and fields. */
function approved(
  operationId: WriteOperationId,
  path: Record<string, string>,
  fields: Record<string, string> | undefined,
  approvedAgoMs = 0,
): PaymentRequest {
  const body = fields ? JSON.stringify(fields) : undefined;
  const at = new Date(Date.now() - approvedAgoMs).toISOString();
  return {
    id: 1,
    operationId,
    path,
    body,
    fingerprint: testSigner.fingerprint(operationId, path, body),
    holdKey: testSigner.holdKey(operationId, path, body),
    requesterId: 'U0ALICE',
    status: 'unknown',
    requiredApprovals: 1,
    approvals: [{ userId: 'U0BOB', at }],
    createdAt: at,
    expiresAt: at,
    channelId: 'C1',
    messageTs: '1.1',
    decidedBy: undefined,
    reason: undefined,
    outcome: undefined,
    reconciliation: undefined,
    updatedAt: at,
  };
}

describe('reconciliation of an unknown outcome', () => {
  it('finds the one payout the request made, with its id', async () => {
    const fields = { ...EXAMPLE_CALLS.createPayout.body, amount: '11.11' } as Record<
      string,
      string
    >;
    const request = approved('createPayout', {}, fields);
    const made = await payments.client.call('createPayout', { body: fields });
    const result = await reconcile(payments.client, request, NONE_TAKEN);
    expect(result.result).toBe('found');
    expect(result.providerId).toBe((made.body as { id: string }).id);
  });

  it('says ambiguous, not found, when two payouts could be it', async () => {
    const fields = { ...EXAMPLE_CALLS.createPayout.body, amount: '12.12' } as Record<
      string,
      string
    >;
    await payments.client.call('createPayout', { body: fields });
    await payments.client.call('createPayout', { body: fields });
    expect(
      (await reconcile(payments.client, approved('createPayout', {}, fields), NONE_TAKEN)).result,
    ).toBe('ambiguous');
  });

  it('does not count a payout made before the request was approved', async () => {
    const fields = { ...EXAMPLE_CALLS.createPayout.body, amount: '13.13' } as Record<
      string,
      string
    >;
    await payments.client.call('createPayout', { body: fields });
    const later = approved('createPayout', {}, fields, -10 * 60_000);
    expect((await reconcile(payments.client, later, NONE_TAKEN)).result).toBe('not_found');
  });

  it('does not call a deactivation done while the recipient is still active', async () => {
    const path = { externalAccountId: SANDBOX_IDS.recipient.usSupplier };
    expect(
      (
        await reconcile(
          payments.client,
          approved('deactivateRecipient', path, undefined),
          NONE_TAKEN,
        )
      ).result,
    ).toBe('not_found');
    await payments.client.call('deactivateRecipient', { path });
    const done = await reconcile(
      payments.client,
      approved('deactivateRecipient', path, undefined),
      NONE_TAKEN,
    );
    expect(done).toMatchObject({ result: 'found', providerId: path.externalAccountId });
  });

  it('does not mistake a payment route for an ordinary transfer of the same wallet', async () => {
    const route = EXAMPLE_CALLS.createPaymentRoute.body as Record<string, string>;
    await payments.client.call('createCryptoTransfer', EXAMPLE_CALLS.createCryptoTransfer);
    const request = approved(
      'createPaymentRoute',
      {},
      { ...route, destination_address: `0x${'99'.repeat(20)}` },
    );
    expect((await reconcile(payments.client, request, NONE_TAKEN)).result).toBe('not_found');
  });
});

describe('reconciliation against lists shown as a provider shows them', () => {
  afterEach(() => {
    payments.sandbox.setListView({});
    payments.sandbox.clearFaults();
  });

  const payoutReads = () =>
    payments.sandbox.requests.filter((entry) => entry.operationId === 'listPayouts').length;

  /** A payout made after the approval, then `others` more, so it is not on the first page. */
  async function payoutAmong(amount: string, others: number): Promise<PaymentRequest> {
    const fields = { ...EXAMPLE_CALLS.createPayout.body, amount } as Record<string, string>;
    const request = approved('createPayout', {}, fields);
    await payments.client.call('createPayout', { body: fields });
    for (let index = 0; index < others; index++) {
      await payments.client.call('createPayout', {
        body: { ...fields, amount: '1.00', beneficiary_account: '000999990000' },
      });
    }
    return request;
  }

  // A distinct amount for each, each with a trailing zero the list leaves out.
  it.each<[PagingStyle, string]>([
    ['cursor', '33.30'],
    ['link', '33.10'],
    ['page', '33.20'],
    ['has_more', '33.40'],
  ])(
    'finds a payout shown with the last four digits and a shortened amount, on the second page (%s paging, %s)',
    async (paging, amount) => {
      const request = await payoutAmong(amount, 3);
      payments.sandbox.setListView({
        pageSize: 3,
        paging,
        bankingNumbers: 'last4',
        shortAmounts: true,
        renames: { account_last4: 'last4', created_at: 'createdAt' },
      });
      const before = payoutReads();
      const result = await reconcile(payments.client, request, NONE_TAKEN);
      expect(result).toMatchObject({ result: 'found', providerStatus: 'pending' });
      expect(result.providerId).toMatch(/^po_/);
      expect(reconciliationDetailText(result)).toContain('beneficiary_account shown only in part');
      expect(payoutReads() - before).toBeGreaterThanOrEqual(2);
    },
  );

  it('a single match that shows no creation time is ambiguous, not found: it may be an earlier payment', async () => {
    const request = await payoutAmong('36.70', 0);
    payments.sandbox.setListView({ renames: { created_at: 'made' } });
    const result = await reconcile(payments.client, request, NONE_TAKEN);
    expect(result.result).toBe('ambiguous');
    expect(result.providerId).toBeUndefined();
    expect(reconciliationDetailText(result)).toMatch(
      /^po_\w+ in \/payouts matches it but shows no creation time, so it may be an earlier payment/,
    );
  });

  it('reports ambiguity when two payouts on different pages match equally', async () => {
    const fields = { ...EXAMPLE_CALLS.createPayout.body, amount: '34.40' } as Record<
      string,
      string
    >;
    const request = approved('createPayout', {}, fields);
    await payments.client.call('createPayout', { body: fields });
    await payoutAmong('34.40', 2);
    payments.sandbox.setListView({ pageSize: 2, bankingNumbers: 'masked', shortAmounts: true });
    const result = await reconcile(payments.client, request, NONE_TAKEN);
    expect(result.result).toBe('ambiguous');
    expect(reconciliationDetailText(result)).toMatch(
      /^2 records among \d+ records on \d+ pages of \/payouts match it equally \(po_\w+, po_\w+\)/,
    );
  });

  it(`stops after ${MAX_RECONCILE_PAGES} pages and says so: not found there is not "not found"`, async () => {
    const request = approved('createPayout', {}, {
      ...EXAMPLE_CALLS.createPayout.body,
      amount: '35.50',
    } as Record<string, string>);
    payments.sandbox.setListView({ pageSize: 1, order: 'oldest_first' });
    const before = payoutReads();
    const result = await reconcile(payments.client, request, NONE_TAKEN);
    expect(payoutReads() - before).toBe(MAX_RECONCILE_PAGES);
    expect(result.result).toBe('check_failed');
    expect(reconciliationDetailText(result)).toContain(
      `payops reads at most ${MAX_RECONCILE_PAGES} pages and the list goes on`,
    );
  });

  it('one match in a list not read to its end is not taken as the only one', async () => {
    const request = await payoutAmong('36.60', 0);
    // Undated, so nothing shows where the records newer than the approval end.
    payments.sandbox.setListView({ pageSize: 1, renames: { created_at: 'made' } });
    const result = await reconcile(payments.client, request, NONE_TAKEN);
    expect(result.result).toBe('check_failed');
    expect(reconciliationDetailText(result)).toMatch(
      /^one record \(po_\w+\) matches among 10 records on 10 pages/,
    );
  });
});

describe('reconciliation of a newest-first list', () => {
  it('reads only until the records are older than the approval', async () => {
    let clock = Date.parse('2025-03-01T12:00:00.000Z');
    const own = await startPaymentsSandbox({ now: () => clock });
    const ownClient = clientFor(own.url);
    try {
      const fields = { ...EXAMPLE_CALLS.createPayout.body, amount: '2.00' } as Record<
        string,
        string
      >;
      for (let index = 0; index < 6; index++) {
        await ownClient.call('createPayout', { body: fields });
      }
      clock += 10 * 60_000;
      const request = {
        ...approved('createPayout', {}, fields),
        approvals: [{ userId: 'U0BOB', at: new Date(clock).toISOString() }],
      };
      await ownClient.call('createPayout', { body: fields });
      own.setListView({ pageSize: 2 });
      const before = own.requests.length;
      const result = await reconcile(ownClient, request, NONE_TAKEN);
      expect(result.result).toBe('found');
      expect(own.requests.slice(before).map((entry) => entry.query)).toEqual([{}]);
    } finally {
      await ownClient.close();
      await own.close();
    }
  });
});

describe('reconciliation of a list reply that does not say it is whole', () => {
  /** A provider whose every list reply is `reply`. */
  async function providerAnswering(reply: unknown) {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = clientFor(`http://127.0.0.1:${port}/v1`);
    return {
      client,
      close: async () => {
        await client.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  const payout = approved(
    'createPayout',
    {},
    EXAMPLE_CALLS.createPayout.body as Record<string, string>,
  );
  const transfer = approved(
    'createTransfer',
    {},
    EXAMPLE_CALLS.createTransfer.body as Record<string, string>,
  );
  const other = (index: number) => ({ id: `x_${index}`, amount: '1.00', status: 'completed' });

  it('a full last page the reply says is the last is read to its end', async () => {
    const full = Array.from({ length: 50 }, (_, index) => other(index));
    const provider = await providerAnswering({ data: full, has_more: false });
    try {
      expect((await reconcile(provider.client, transfer, NONE_TAKEN)).result).toBe('not_found');
    } finally {
      await provider.close();
    }
  });

  it.each<[string, PaymentRequest, unknown, RegExp]>([
    [
      'holds no list',
      payout,
      { message: 'ok' },
      /^no record among 0 records on 1 page of \/payouts matches it, but page 1 holds no list payops can read/,
    ],
    [
      'announces more records than its pages showed',
      payout,
      { data: [other(1)], total: 120 },
      /but the list says it holds 120 records, and its pages showed 1/,
    ],
    [
      'fills the page it asked for and says nothing of a next one',
      transfer,
      Array.from({ length: 50 }, (_, index) => other(index)),
      /but page 1 is full \(50 records\) and says nothing of a next one/,
    ],
  ])('is not "not found" when the reply %s', async (_what, request, reply, detail) => {
    const provider = await providerAnswering(reply);
    try {
      const result = await reconcile(provider.client, request, NONE_TAKEN);
      expect(result.result).toBe('check_failed');
      expect(reconciliationDetailText(result)).toMatch(detail);
    } finally {
      await provider.close();
    }
  });
});
