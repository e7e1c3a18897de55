import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Follower } from '../../src/app/follow-up.ts';
import {
  DEFAULT_FAILURE_STATUSES,
  DEFAULT_SUCCESS_STATUSES,
  type ProviderFollow,
} from '../../src/domain/follow.ts';
import { createLogger } from '../../src/logger.ts';
import type { PaymentsClient } from '../../src/payments/client.ts';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { followLookErrorText } from '../../src/slack/text/list-findings.ts';
import { FollowStore } from '../../src/store/follow-store.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { clientFor, EXAMPLE_CALLS } from '../helpers/payments.ts';
import { checks, newRequest, testCipher, testSigner } from '../helpers/requests.ts';

/**
 * The follower against the sandbox: a record found without its id, never guessed among several,
 * a failure from the start, a success watched for a return, and reads that fail.
 */

let sandbox: PaymentsSandbox;
let client: PaymentsClient;
let database: TestDatabase;
let requests: RequestStore;
let follower: Follower;

beforeAll(async () => {
  sandbox = await startPaymentsSandbox({ statusStepMs: 3_600_000 });
  client = clientFor(sandbox.url);
  database = await freshDatabase('pglite');
  requests = new RequestStore(database.db, testCipher);
  follower = new Follower({
    store: new FollowStore(database.db),
    requests,
    client,
    keyScopes: ['read', 'payments:write'],
    statuses: {
      success: new Set(DEFAULT_SUCCESS_STATUSES),
      failure: new Set(DEFAULT_FAILURE_STATUSES),
    },
    followForMs: 7 * 24 * 3_600_000,
    returnWindowMs: 60 * 24 * 3_600_000,
    // Every follow-up is due at every pass.
    intervalMs: 0,
    instanceId: 'test',
    logger: createLogger({ level: 'silent', secrets: [] }),
  });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
  await database.drop();
});

/** A payout request, approved and submitted with `outcome`; `made` also makes it at the provider. */
async function submitted(
  amount: string,
  outcome: { providerId?: string; providerStatus?: string },
  made = 1,
): Promise<{ id: number; madeIds: string[] }> {
  const body = JSON.stringify({ ...EXAMPLE_CALLS.createPayout.body, amount });
  const { id } = await requests.create(
    newRequest({
      body,
      fingerprint: testSigner.fingerprint('createPayout', {}, body),
      holdKey: testSigner.holdKey('createPayout', {}, body),
    }),
  );
  await requests.approve(id, 'U0BOB', 'test', checks());
  const madeIds: string[] = [];
  for (let i = 0; i < made; i++) {
    const response = await client.call('createPayout', { body });
    madeIds.push((response.body as { id: string }).id);
  }
  await requests.finishExecution(id, 'submitted', { status: 201, ...outcome });
  return { id, madeIds };
}

const listReads = () =>
  sandbox.requests.filter((request) => request.operationId === 'listPayouts').length;

/** Why the last look learnt nothing, as the request's history says it. */
function whyNothing(follow: ProviderFollow | undefined): string | undefined {
  return follow?.lastError && followLookErrorText(follow.lastError);
}

describe('the follower', () => {
  it('finds a record the write named no id for as reconciliation matches it, and learns its id', async () => {
    const { id, madeIds } = await submitted('31.31', { providerStatus: 'pending' });
    sandbox.setRecordStatus(madeIds[0] as string, 'processing');
    expect((await follower.followDue()).changes).toBeGreaterThanOrEqual(1);
    const follow = (await requests.get(id))?.follow;
    expect(follow?.providerId).toBe(madeIds[0]);
    expect(follow?.history.map((seen) => seen.status)).toEqual(['pending', 'processing']);
  });

  it('never guesses between two records that could be it', async () => {
    const { id } = await submitted('32.32', { providerStatus: 'pending' }, 2);
    await follower.followDue();
    const follow = (await requests.get(id))?.follow;
    expect(follow?.history.map((seen) => seen.status)).toEqual(['pending']);
    expect(follow?.providerId).toBeUndefined();
    expect(whyNothing(follow)).toBe('2 records in /payouts could be it; payops does not guess');
  });

  it('never takes one of two records listed under the same id for the one it follows', async () => {
    // Records shown without an id of their own but their wallet's: each payout of it looks alike.
    const wallet = EXAMPLE_CALLS.createPayout.body?.wallet_id as string;
    const { id, madeIds } = await submitted(
      '33.33',
      { providerId: wallet, providerStatus: 'pending' },
      2,
    );
    sandbox.setListView({ renames: { id: 'ref_x' } });
    try {
      sandbox.setRecordStatus(madeIds[0] as string, 'completed');
      await follower.followDue();
    } finally {
      sandbox.setListView({});
    }
    const follow = (await requests.get(id))?.follow;
    expect(follow?.history.map((seen) => seen.status)).toEqual(['pending']);
    expect(whyNothing(follow)).toMatch(
      /^\d+ records in \/payouts could be it; payops does not guess$/,
    );
  });

  it('stops at once, without a read, when the write’s answer was already a failure', async () => {
    const { id } = await submitted('33.33', { providerId: 'po_x', providerStatus: 'Rejected' });
    // Only this one is open: a due look at the others would read the list for all.
    await database.db.query(
      "update follow_ups set stopped_reason = 'time_limit' where request_id <> $1",
      [id],
    );
    const before = listReads();
    await follower.followDue();
    expect(listReads()).toBe(before);
    expect((await requests.get(id))?.follow?.stoppedReason).toBe('final_status');
  });

  it('watches for a return a record whose write’s answer was already a success, and tells its return', async () => {
    const { id, madeIds } = await submitted('35.35', { providerStatus: 'Settled' });
    sandbox.setRecordStatus(madeIds[0] as string, 'Settled');
    await follower.followDue();
    const watched = (await requests.get(id))?.follow;
    expect(watched?.stoppedReason).toBeUndefined();
    expect(watched?.watchUntil).toEqual(expect.any(String));
    expect(watched?.history.at(-1)).toMatchObject({ status: 'Settled', outcome: 'success' });
    sandbox.setRecordStatus(madeIds[0] as string, 'returned');
    await follower.followDue();
    const returned = (await requests.get(id))?.follow;
    expect(returned?.history.map(({ status, outcome }) => [status, outcome])).toEqual([
      ['Settled', 'success'],
      ['returned', 'failure'],
    ]);
    expect(returned?.stoppedReason).toBe('final_status');
  });

  it('keeps following through failed reads, saying why the last look learnt nothing', async () => {
    const { id, madeIds } = await submitted('34.34', { providerStatus: 'pending' });
    sandbox.addFault({ kind: 'status', status: 500, operationId: 'listPayouts' });
    await follower.followDue();
    const failed = (await requests.get(id))?.follow;
    expect(whyNothing(failed)).toMatch(/^could not read \/payouts: /);
    expect(failed?.stoppedReason).toBeUndefined();
    sandbox.clearFaults();
    sandbox.setRecordStatus(madeIds[0] as string, 'returned');
    await follower.followDue();
    const after = (await requests.get(id))?.follow;
    expect(after?.stoppedReason).toBe('final_status');
    expect(after?.lastError).toBeUndefined();
  });
});
