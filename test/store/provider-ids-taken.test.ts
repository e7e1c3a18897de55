import { describe, expect, it } from 'vitest';
import { FollowStore } from '../../src/store/follow-store.ts';
import { engines, requestStoreOn } from '../helpers/db.ts';
import { checks, newRequest } from '../helpers/requests.ts';

/**
 * What record matching reads of the store: the provider ids other requests' records are known by
 * (named by a submitted write's answer, found by a reconciliation, learnt by a follow-up), never
 * taken for a request, and when the request's call was let out, before which no record is its.
 */

describe.each(engines())('what record matching reads of the store, on %s', (engine) => {
  const fixture = requestStoreOn(engine);

  /** A payout to a payee of its own, approved and claimed: executing. */
  async function claimed(): Promise<number> {
    const { id } = await fixture.store.create(newRequest());
    await fixture.store.approve(id, 'U0BOB', 'test', checks());
    return id;
  }

  it('names the ids of other requests’ records, never the request’s own', async () => {
    const submitted = await claimed();
    await fixture.store.finishExecution(submitted, 'submitted', {
      status: 201,
      providerId: 'po_a',
    });
    const found = await claimed();
    await fixture.store.finishExecution(found, 'unknown', { message: 'connection dropped' });
    await fixture.store.recordReconciliation(found, {
      checkedAt: new Date().toISOString(),
      result: 'found',
      providerId: 'po_b',
      detail: 'po_b in /payouts shows it',
    });
    const ambiguous = await claimed();
    await fixture.store.finishExecution(ambiguous, 'unknown', { message: 'connection dropped' });
    await fixture.store.recordReconciliation(ambiguous, {
      checkedAt: new Date().toISOString(),
      result: 'ambiguous',
      providerId: 'po_c',
      detail: 'two records match it',
    });
    const learnt = await claimed();
    await fixture.store.finishExecution(learnt, 'submitted', {
      status: 202,
      providerStatus: 'queued',
    });
    await new FollowStore(fixture.database.db).recordChange(learnt, {
      from: 'queued',
      to: 'pending',
      outcome: undefined,
      providerId: 'po_d',
      returnWindowMs: 0,
    });

    const listed = ['po_a', 'po_b', 'po_c', 'po_d', 'po_e'];
    const other = await claimed();
    expect([...(await fixture.store.providerIdsTaken(other, listed))].sort()).toEqual([
      'po_a',
      'po_b',
      'po_d',
    ]);
    expect([...(await fixture.store.providerIdsTaken(submitted, listed))].sort()).toEqual([
      'po_b',
      'po_d',
    ]);
    expect([...(await fixture.store.providerIdsTaken(learnt, listed))].sort()).toEqual([
      'po_a',
      'po_b',
    ]);
    expect(await fixture.store.providerIdsTaken(other, [])).toEqual(new Set());
  });

  it('a request carries when its call was let out: records older than that are not its effect', async () => {
    const { id } = await fixture.store.create(newRequest());
    const claim = await fixture.store.approve(id, 'U0BOB', 'test', checks());
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    expect((await fixture.store.get(id))?.sentAt).toBeUndefined();
    const before = Date.now();
    expect(await fixture.store.markSending(id, claim.claimToken, 60_000)).toEqual({ kind: 'send' });
    const sentAt = Date.parse((await fixture.store.get(id))?.sentAt ?? '');
    expect(Math.abs(sentAt - before)).toBeLessThan(5_000);
  });
});
