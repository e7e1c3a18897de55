import { describe, expect, it } from 'vitest';
import { Follower, type FollowerDeps } from '../../src/app/follow-up.ts';
import {
  DEFAULT_FAILURE_STATUSES,
  DEFAULT_SUCCESS_STATUSES,
  MISSING_EVENT,
  STOPPED_EVENT,
} from '../../src/domain/follow.ts';
import { createLogger } from '../../src/logger.ts';
import { ServerError } from '../../src/payments/errors.ts';
import { followLookErrorText } from '../../src/slack/text/list-findings.ts';
import { CARD_REDRAWN, FakeFollowStore, PROVIDER_STATUS } from '../fakes/follow-store.ts';
import { FakePayments } from '../fakes/payments.ts';

/**
 * The follower's rules on fakes of its ports: what it reads, what it tells, when it stops.
 * (test/app/follow-up.test.ts runs it on the store and the sandbox.)
 */

const DAY_MS = 24 * 3_600_000;

/** Why the last look at `requestId` learnt nothing, as its history says it. */
function whyNothing(store: FakeFollowStore, requestId: number): string | undefined {
  const error = store.followUps.get(requestId)?.lastError;
  return error && followLookErrorText(error);
}

/** A follower of payouts on `store` and `payments`, every follow-up due at each pass. */
function followerOn(
  store: FakeFollowStore,
  payments: FakePayments,
  overrides: Partial<FollowerDeps> = {},
): Follower {
  return new Follower({
    store,
    requests: {
      get: async () => undefined,
      providerIdsTaken: async () => new Set(),
    },
    client: payments,
    keyScopes: ['read', 'payments:write'],
    statuses: {
      success: new Set(DEFAULT_SUCCESS_STATUSES),
      failure: new Set(DEFAULT_FAILURE_STATUSES),
    },
    followForMs: 7 * DAY_MS,
    returnWindowMs: 60 * DAY_MS,
    intervalMs: 0,
    instanceId: 'test',
    logger: createLogger({ level: 'silent', secrets: [] }),
    ...overrides,
  });
}

/** A provider whose payouts list shows `records`, as the test sets them before each pass. */
function payoutsShowing(records: () => Array<{ id: string; status: string }>): FakePayments {
  return new FakePayments().answer('listPayouts', () => ({ data: records() }));
}

describe('Follower', () => {
  it('tells a status change once: the same status seen again is not told again', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', status: 'pending' });
    const follower = followerOn(
      store,
      payoutsShowing(() => [{ id: 'po_1', status: 'processing' }]),
    );
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 1 });
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 0 });
    expect(store.deliveries.of(1)).toEqual([PROVIDER_STATUS]);
    expect(store.followUps.get(1)?.status).toBe('processing');
  });

  it('reads each list once per pass, whatever the number of requests followed in it', async () => {
    const store = new FakeFollowStore();
    for (const id of [1, 2, 3]) store.follow(id, 'listPayouts', { providerId: `po_${id}` });
    const payments = payoutsShowing(() =>
      [1, 2, 3].map((id) => ({ id: `po_${id}`, status: 'pending' })),
    );
    expect(await followerOn(store, payments).followDue()).toEqual({ reads: 1, changes: 3 });
    expect(payments.count('listPayouts')).toBe(1);
  });

  it('stops following at a failure status: no list is read for it again', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', status: 'processing' });
    const payments = payoutsShowing(() => [{ id: 'po_1', status: 'failed' }]);
    const follower = followerOn(store, payments);
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 1 });
    expect(store.followUps.get(1)?.stopped).toBe('final_status');
    expect(await follower.followDue()).toEqual({ reads: 0, changes: 0 });
    expect(payments.count('listPayouts')).toBe(1);
  });

  it('goes on after a success, for the return window, and tells a return after it', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', status: 'processing' });
    let status = 'completed';
    const follower = followerOn(
      store,
      payoutsShowing(() => [{ id: 'po_1', status }]),
    );
    await follower.followDue();
    expect(store.followUps.get(1)?.watchUntil).toBeGreaterThan(Date.now() + 59 * DAY_MS);
    expect(store.followUps.get(1)?.stopped).toBeUndefined();
    status = 'returned';
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 1 });
    expect(store.followUps.get(1)?.stopped).toBe('final_status');
    expect(store.deliveries.of(1)).toEqual([PROVIDER_STATUS, PROVIDER_STATUS]);
  });

  it('watches a success the write answered with from the first pass, without reading it as new', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', status: 'completed' });
    const follower = followerOn(
      store,
      payoutsShowing(() => [{ id: 'po_1', status: 'completed' }]),
    );
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 0 });
    expect(store.followUps.get(1)?.watchUntil).toBeDefined();
    expect(store.deliveries.of(1)).toEqual([CARD_REDRAWN]);
  });

  it('stops a failure the write answered with before reading any list', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', status: 'rejected' });
    const payments = payoutsShowing(() => []);
    expect(await followerOn(store, payments).followDue()).toEqual({ reads: 0, changes: 0 });
    expect(store.followUps.get(1)?.stopped).toBe('final_status');
    expect(payments.count('listPayouts')).toBe(0);
  });

  it('never stops at a failed read: it tells nothing, says why on the look, and reads again next pass', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', status: 'pending' });
    const payments = new FakePayments().answer('listPayouts', () => {
      throw new ServerError('the list failed', { operationId: 'listPayouts', status: 500 });
    });
    const follower = followerOn(store, payments);
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 0 });
    expect(whyNothing(store, 1)).toMatch(/^could not read \/payouts: /);
    expect(store.followUps.get(1)?.stopped).toBeUndefined();
    expect(store.deliveries.told).toEqual([]);
    await follower.followDue();
    expect(payments.count('listPayouts')).toBe(2);
  });

  it('tells once that a record listed before is missing now, and goes on looking for it', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', status: 'pending' });
    let records = [{ id: 'po_1', status: 'pending' }];
    const follower = followerOn(
      store,
      payoutsShowing(() => records),
    );
    await follower.followDue();
    records = [];
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 1 });
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 0 });
    expect(store.deliveries.of(1)).toEqual([MISSING_EVENT]);
    expect(store.followUps.get(1)?.stopped).toBeUndefined();
  });

  it('takes neither of two records listed under its id', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', status: 'pending' });
    const follower = followerOn(
      store,
      payoutsShowing(() => [
        { id: 'po_1', status: 'completed' },
        { id: 'po_1', status: 'failed' },
      ]),
    );
    expect(await follower.followDue()).toEqual({ reads: 1, changes: 0 });
    expect(whyNothing(store, 1)).toMatch(/^2 records in \/payouts could be it/);
    expect(store.followUps.get(1)?.status).toBe('pending');
  });

  it('stops, tells and signals what has been followed past its time without a success', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listPayouts', { providerId: 'po_1', startedAt: Date.now() - 8 * DAY_MS });
    let signalled = 0;
    const payments = payoutsShowing(() => []);
    const follower = followerOn(store, payments, { onChange: () => signalled++ });
    expect(await follower.followDue()).toEqual({ reads: 0, changes: 0 });
    expect(store.deliveries.of(1)).toEqual([STOPPED_EVENT]);
    expect(signalled).toBe(1);
  });

  it('asks for a fresh list only when the key may (resources:write)', async () => {
    const store = new FakeFollowStore();
    store.follow(1, 'listTransfers', { providerId: 'tr_1' });
    const payments = new FakePayments().answer('listTransfers', () => ({ data: [] }));
    await followerOn(store, payments, { keyScopes: ['read'] }).followDue();
    await followerOn(store, payments, { keyScopes: ['read', 'resources:write'] }).followDue();
    expect(payments.calls.map((call) => call.input.query?.sync)).toEqual([undefined, true]);
  });
});
