import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderOutcome } from '../../src/domain/approval.ts';
import type { FollowLookError } from '../../src/domain/list-findings.ts';
import { FollowStore } from '../../src/store/follow-store.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { checks, newRequest, testCipher } from '../helpers/requests.ts';

/**
 * The follow-up of submitted writes: started in the statement that records the submission, and
 * each thing learnt written once, with its Slack messages, whichever replica learns it first.
 */

describe.each(engines())('follow-ups on %s', (engine) => {
  let database: TestDatabase;
  let requests: RequestStore;
  let follows: FollowStore;

  beforeAll(async () => {
    database = await freshDatabase(engine);
    requests = new RequestStore(database.db, testCipher);
    follows = new FollowStore(database.db);
  });
  afterAll(() => database.drop());

  async function submitted(
    outcome: ProviderOutcome = { status: 201, providerId: 'po_1', providerStatus: 'pending' },
    overrides: Parameters<typeof newRequest>[0] = {},
  ) {
    const { id } = await requests.create(newRequest(overrides));
    await requests.approve(id, 'U0BOB', 'test', checks());
    await requests.finishExecution(id, 'submitted', outcome);
    return id;
  }

  const DAY_MS = 86_400_000;

  /** A change of status from `from` to `to`, a success or failure as `outcome` says. */
  function change(from: string | undefined, to: string, outcome?: 'success' | 'failure') {
    return { from, to, outcome, providerId: 'po_1', returnWindowMs: 60 * DAY_MS };
  }

  async function notices(id: number): Promise<string[]> {
    const rows = await database.db.query<{ event: string }>(
      "select event from slack_outbox where request_id = $1 and kind = 'notice' order by id",
      [id],
    );
    return rows.map((row) => row.event);
  }

  it('a submitted payout is followed from its submission, with the id and status it came back with', async () => {
    const id = await submitted();
    expect((await requests.get(id))?.follow).toMatchObject({
      providerId: 'po_1',
      status: 'pending',
      history: [{ status: 'pending', seenAt: expect.any(String) }],
      stoppedReason: undefined,
    });
  });

  it('a write that moves no money is not followed', async () => {
    const body = JSON.stringify({ wallet_id: 'wal_1', source_currency: 'USDC', corridor_id: 'c' });
    const id = await submitted(
      { status: 201, providerId: 'rt_1', providerStatus: 'active' },
      { operationId: 'createOfframpRoute', body },
    );
    expect((await requests.get(id))?.follow).toBeUndefined();
  });

  it('an unknown outcome found by a read is followed from then on; a person’s word starts nothing', async () => {
    const found = await requests.create(newRequest());
    await requests.approve(found.id, 'U0BOB', 'test', checks());
    await requests.finishExecution(found.id, 'unknown', { message: 'timeout' });
    expect((await requests.get(found.id))?.follow).toBeUndefined();
    await requests.recordReconciliation(found.id, {
      checkedAt: new Date().toISOString(),
      result: 'found',
      providerId: 'po_found',
      providerStatus: 'processing',
      detail: 'found',
    });
    expect((await requests.get(found.id))?.follow).toMatchObject({
      providerId: 'po_found',
      status: 'processing',
    });

    const resolved = await requests.create(newRequest());
    await requests.approve(resolved.id, 'U0BOB', 'test', checks());
    await requests.finishExecution(resolved.id, 'unknown', { message: 'timeout' });
    await requests.recordReconciliation(resolved.id, {
      checkedAt: new Date().toISOString(),
      result: 'found',
      resolvedBy: 'U0CAROL',
      detail: 'seen in the dashboard',
    });
    expect((await requests.get(resolved.id))?.follow).toBeUndefined();
  });

  it('a change seen by two replicas at once is recorded and told once', async () => {
    const id = await submitted();
    const replicas = [new FollowStore(database.db), new FollowStore(database.db)];
    const won = await Promise.all(
      replicas.flatMap((replica) =>
        [1, 2, 3].map(() => replica.recordChange(id, change('pending', 'processing'))),
      ),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    // The next change, from the status just recorded; a stale one (from pending again) is not.
    expect(await follows.recordChange(id, change('processing', 'failed', 'failure'))).toBe(true);
    expect(await follows.recordChange(id, change('pending', 'failed', 'failure'))).toBe(false);

    const request = await requests.get(id);
    expect(request?.follow?.history.map(({ status, final }) => ({ status, final }))).toEqual([
      { status: 'pending', final: undefined },
      { status: 'processing', final: undefined },
      { status: 'failed', final: true },
    ]);
    expect(request?.follow?.stoppedReason).toBe('final_status');
    expect(await notices(id)).toEqual(['submitted', 'provider_status:2', 'provider_status:3']);
    const audited = (await requests.history(id)).filter(
      (entry) => entry.event === 'provider_status',
    );
    expect(audited.map((entry) => entry.detail)).toEqual([
      { from: 'pending', to: 'processing', final: false },
      { from: 'processing', to: 'failed', final: true, outcome: 'failure' },
    ]);
    // Stopped: nothing more is recorded.
    expect(await follows.recordChange(id, change('failed', 'returned', 'failure'))).toBe(false);
  });

  it('a success is followed on for the return window, a later return is told and ends it; a success never returned ends at the window', async () => {
    const returned = await submitted();
    expect(await follows.recordChange(returned, change('pending', 'completed', 'success'))).toBe(
      true,
    );
    const watched = (await requests.get(returned))?.follow;
    expect(watched?.stoppedReason).toBeUndefined();
    expect(watched?.history.at(-1)).toMatchObject({ status: 'completed', outcome: 'success' });
    const watchUntil = Date.parse(watched?.watchUntil ?? '');
    expect(Math.abs(watchUntil - (Date.now() + 60 * DAY_MS))).toBeLessThan(60_000);
    // Past the follow-up time it is still followed: a success is watched, not timed out.
    await database.db.query(
      "update follow_ups set started_at = now() - interval '8 days' where request_id = $1",
      [returned],
    );
    expect(await follows.stopOverdue(7 * DAY_MS)).not.toContain(returned);
    expect(await follows.recordChange(returned, change('completed', 'returned', 'failure'))).toBe(
      true,
    );
    const ended = (await requests.get(returned))?.follow;
    expect(ended?.stoppedReason).toBe('final_status');
    expect(ended?.history.map(({ status, outcome }) => ({ status, outcome }))).toEqual([
      { status: 'pending', outcome: undefined },
      { status: 'completed', outcome: 'success' },
      { status: 'returned', outcome: 'failure' },
    ]);
    expect(await notices(returned)).toEqual([
      'submitted',
      'provider_status:2',
      'provider_status:3',
    ]);

    const kept = await submitted({ status: 201, providerId: 'po_2', providerStatus: 'completed' });
    // Successful from the write's answer: watched from the first look, without a notice.
    expect(await follows.startWatching(kept, 'completed', 60 * DAY_MS)).toBe(true);
    expect(await follows.startWatching(kept, 'completed', 60 * DAY_MS)).toBe(false);
    expect((await requests.get(kept))?.follow?.history.at(-1)?.outcome).toBe('success');
    expect(await follows.stopWatched()).not.toContain(kept);
    await database.db.query(
      "update follow_ups set watch_until = now() - interval '1 second' where request_id = $1",
      [kept],
    );
    expect(await follows.stopWatched()).toEqual([kept]);
    expect((await requests.get(kept))?.follow?.stoppedReason).toBe('return_window');
    expect(await notices(kept)).toEqual(['submitted']);
  });

  it('two replicas claiming at once share no follow-up, and a claim is settled by its holder only', async () => {
    const fresh = await freshDatabase(engine);
    try {
      const store = new RequestStore(fresh.db, testCipher);
      for (let i = 0; i < 6; i++) {
        const { id } = await store.create(newRequest());
        await store.approve(id, 'U0BOB', 'test', checks());
        await store.finishExecution(id, 'submitted', { providerId: `po_${i}` });
      }
      const [a, b] = [new FollowStore(fresh.db), new FollowStore(fresh.db)];
      // Interval 0: every follow-up is due at once.
      const [claimedA, claimedB] = await Promise.all([
        a.claimDue('A', 60_000, 0, 100),
        b.claimDue('B', 60_000, 0, 100),
      ]);
      const ids = [...claimedA, ...claimedB].map((claimed) => claimed.requestId);
      expect(ids).toHaveLength(6);
      expect(new Set(ids).size).toBe(6);
      expect(claimedA.every((claimed) => claimed.listOperation === 'listPayouts')).toBe(true);
      expect(await a.claimDue('A', 60_000, 0, 100)).toEqual([]);

      const looks = ids.map((requestId) => ({ requestId, listed: true }));
      await b.recordLooks('B', looks, 60_000);
      const [{ held }] = (await fresh.db.query<{ held: unknown }>(
        'select count(*) as held from follow_ups where claimed_by is not null',
      )) as [{ held: unknown }];
      expect(Number(held)).toBe(claimedA.length);
    } finally {
      await fresh.drop();
    }
  });

  it('a record once listed and then missing is told once; one never listed is not', async () => {
    const listed = await submitted();
    const neverListed = await submitted();
    await follows.claimDue('A', 60_000, 0, 1000);
    await follows.recordLooks('A', [{ requestId: listed, listed: true }], 0);
    expect(await follows.recordMissing([listed, neverListed])).toEqual([listed]);
    expect(await follows.recordMissing([listed, neverListed])).toEqual([]);
    expect(await notices(listed)).toEqual(['submitted', 'provider_missing']);
    expect(await notices(neverListed)).toEqual(['submitted']);
    expect((await requests.get(listed))?.follow?.disappearedAt).toEqual(expect.any(String));
  });

  it('keeps why a look learnt nothing as its data, until a look learns something', async () => {
    const id = await submitted();
    await follows.claimDue('A', 60_000, 0, 1000);
    const error: FollowLookError = {
      code: 'partly_read',
      list: 'listPayouts',
      unfinished: { code: 'page_unread', page: 2, error: { code: 'payments.timeout' } },
    };
    await follows.recordLooks('A', [{ requestId: id, listed: false, error }], 0);
    expect((await requests.get(id))?.follow?.lastError).toEqual(error);
    await follows.claimDue('A', 60_000, 0, 1000);
    await follows.recordLooks('A', [{ requestId: id, listed: true }], 0);
    expect((await requests.get(id))?.follow?.lastError).toBeUndefined();
  });

  it('following stops at the time limit, told once', async () => {
    const id = await submitted();
    await database.db.query(
      "update follow_ups set started_at = now() - interval '8 days' where request_id = $1",
      [id],
    );
    const sevenDays = 7 * 24 * 3_600_000;
    expect(await follows.stopOverdue(sevenDays)).toEqual([id]);
    expect(await follows.stopOverdue(sevenDays)).toEqual([]);
    expect(await notices(id)).toEqual(['submitted', 'follow_stopped']);
    expect((await requests.get(id))?.follow?.stoppedReason).toBe('time_limit');
    expect(await follows.recordChange(id, change('pending', 'failed', 'failure'))).toBe(false);
  });

  it('a last status that turns out final stops following without another notice', async () => {
    const id = await submitted({ providerId: 'po_9', providerStatus: 'completed' });
    expect(await follows.stopAtFinal(id, 'completed')).toBe(true);
    expect(await follows.stopAtFinal(id, 'completed')).toBe(false);
    const follow = (await requests.get(id))?.follow;
    expect(follow?.stoppedReason).toBe('final_status');
    expect(follow?.history.at(-1)?.final).toBe(true);
    expect(await notices(id)).toEqual(['submitted']);
  });
});
