import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/app/reconcile.ts';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import type { WriteOperationId } from '../../src/domain/operations.ts';
import type { PaymentsClient } from '../../src/payments/client.ts';
import {
  type PaymentsSandbox,
  SANDBOX_IDS,
  startPaymentsSandbox,
} from '../../src/sandbox/payments-api.ts';
import { clientFor, EXAMPLE_CALLS } from '../helpers/payments.ts';
import { testSigner } from '../helpers/requests.ts';

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
    const made = await client.call('createPayout', { body: fields });
    const result = await reconcile(client, request);
    expect(result.result).toBe('found');
    expect(result.providerId).toBe((made.body as { id: string }).id);
  });

  it('says ambiguous, not found, when two payouts could be it', async () => {
    const fields = { ...EXAMPLE_CALLS.createPayout.body, amount: '12.12' } as Record<
      string,
      string
    >;
    await client.call('createPayout', { body: fields });
    await client.call('createPayout', { body: fields });
    expect((await reconcile(client, approved('createPayout', {}, fields))).result).toBe(
      'ambiguous',
    );
  });

  it('does not count a payout made before the request was approved', async () => {
    const fields = { ...EXAMPLE_CALLS.createPayout.body, amount: '13.13' } as Record<
      string,
      string
    >;
    await client.call('createPayout', { body: fields });
    const later = approved('createPayout', {}, fields, -10 * 60_000);
    expect((await reconcile(client, later)).result).toBe('not_found');
  });

  it('does not call a deactivation done while the recipient is still active', async () => {
    const path = { externalAccountId: SANDBOX_IDS.recipient.usSupplier };
    expect((await reconcile(client, approved('deactivateRecipient', path, undefined))).result).toBe(
      'not_found',
    );
    await client.call('deactivateRecipient', { path });
    const done = await reconcile(client, approved('deactivateRecipient', path, undefined));
    expect(done).toMatchObject({ result: 'found', providerId: path.externalAccountId });
  });

  it('does not mistake a payment route for an ordinary transfer of the same wallet', async () => {
    const route = EXAMPLE_CALLS.createPaymentRoute.body as Record<string, string>;
    await client.call('createCryptoTransfer', EXAMPLE_CALLS.createCryptoTransfer);
    const request = approved(
      'createPaymentRoute',
      {},
      { ...route, destination_address: `0x${'99'.repeat(20)}` },
    );
    expect((await reconcile(client, request)).result).toBe('not_found');
  });
});
