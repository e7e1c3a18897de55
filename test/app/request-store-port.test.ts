import { describe, expect, expectTypeOf, it } from 'vitest';
import type { FollowStorePort } from '../../src/app/follow-port.ts';
import type { PaymentsPort } from '../../src/app/payments-port.ts';
import type { RequestStorePort } from '../../src/app/request-store-port.ts';
import type { PaymentsClient } from '../../src/payments/client.ts';
import type { FollowStore } from '../../src/store/follow-store.ts';
import type { RequestStore } from '../../src/store/request-store.ts';
import { FakeRequestStore } from '../fakes/request-store.ts';
import { checks, newRequest } from '../helpers/requests.ts';

/**
 * The ports src/app owns are met by the real adapters as they are (checked by tsc), and the
 * fake request store keeps the rules the workflow relies on.
 */

describe('ports', () => {
  it('are met by the request store, the follow store and the Payments client', () => {
    expectTypeOf<RequestStore>().toExtend<RequestStorePort>();
    expectTypeOf<FollowStore>().toExtend<FollowStorePort>();
    expectTypeOf<PaymentsClient>().toExtend<PaymentsPort>();
  });
});

describe('FakeRequestStore', () => {
  it('lets only the approval completing the count claim, and only its token send, once', async () => {
    const store = new FakeRequestStore();
    const { id } = await store.create(newRequest({ requiredApprovals: 2 }));
    expect((await store.approve(id, 'U0BOB', 'a', checks())).kind).toBe('recorded');
    const claimed = await store.approve(id, 'U0CAROL', 'a', checks());
    if (claimed.kind !== 'claimed') throw new Error(`not claimed: ${claimed.kind}`);
    expect(claimed.request.status).toBe('executing');
    expect((await store.markSending(id, 'another token', 60_000)).kind).toBe('refused');
    expect((await store.markSending(id, claimed.claimToken, 60_000)).kind).toBe('send');
    expect((await store.markSending(id, claimed.claimToken, 60_000)).kind).toBe('refused');
    expect(store.deliveries.of(id)).toEqual(['created', 'approved', 'approved']);
  });

  it('claims nothing while payments are frozen, and holds a second request for an unsettled write', async () => {
    const store = new FakeRequestStore();
    const first = await store.create(newRequest());
    await store.setFreeze(true, 'U0ADMIN', 'drill');
    expect((await store.approve(first.id, 'U0BOB', 'a', checks())).kind).toBe('frozen');
    await store.setFreeze(false, 'U0ADMIN', undefined);
    expect((await store.approve(first.id, 'U0BOB', 'a', checks())).kind).toBe('claimed');
    const twin = await store.create(newRequest({ body: first.body, holdKey: first.holdKey }));
    expect(await store.approve(twin.id, 'U0BOB', 'a', checks())).toMatchObject({
      kind: 'held',
      twin: { id: first.id, status: 'executing' },
    });
  });

  it('decides a pending request once: a second rejection or a cancel changes nothing', async () => {
    const store = new FakeRequestStore();
    const { id } = await store.create(newRequest());
    expect((await store.reject(id, 'U0BOB', 'no'))?.status).toBe('rejected');
    expect(await store.reject(id, 'U0BOB', 'again')).toBeUndefined();
    expect(await store.cancel(id, 'U0ALICE')).toBeUndefined();
  });
});
