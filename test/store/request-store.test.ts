import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import { outcomeWords } from '../../src/slack/text/outcomes.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openPostgres } from '../../src/store/postgres.ts';
import { RequestStore, WindowChangedError } from '../../src/store/request-store.ts';
import {
  engines,
  freshDatabase,
  migrationVersions,
  someoneWaitsOnALock,
  type TestDatabase,
} from '../helpers/db.ts';
import { told } from '../helpers/refusals.ts';
import { checks, newRequest, payoutBody, testCipher } from '../helpers/requests.ts';

const noRule = () => undefined;
/** What payops stores of a write it stopped, in words (src/slack/text/outcomes.ts). */
const words = outcomeWords('/pay');

describe.each(engines())('request store on %s', (engine) => {
  let database: TestDatabase;
  let store: RequestStore;

  beforeAll(async () => {
    database = await freshDatabase(engine);
    store = new RequestStore(database.db, testCipher);
  });
  afterAll(() => database.drop());

  it('migrations are recorded and applying them again does nothing', async () => {
    expect(await migrate(database.db)).toEqual([]);
  });

  it('replicas migrating a new database at the same time do not collide', async () => {
    const fresh = await freshDatabase(engine, { migrated: false });
    try {
      const results = await Promise.all(Array.from({ length: 6 }, () => migrate(fresh.db)));
      // Each migration applied once, by one of them.
      expect(
        results
          .flat()
          .map((file) => file.slice(0, 4))
          .sort(),
      ).toEqual(migrationVersions());
    } finally {
      await fresh.drop();
    }
  });

  it('keeps working after another replica adds a column (statements are prepared once per connection)', async () => {
    const fresh = await freshDatabase(engine);
    try {
      const replica = new RequestStore(fresh.db, testCipher);
      const { id } = await replica.create(newRequest());
      expect((await replica.get(id))?.status).toBe('pending');
      await fresh.db.exec('alter table payment_requests add column added_later text');
      await fresh.db.exec('alter table audit_log add column added_later text');
      expect((await replica.get(id))?.status).toBe('pending');
      expect(
        (
          await replica.approve(
            id,
            'U0BOB',
            'test',
            checks(() => undefined),
          )
        ).kind,
      ).toBe('claimed');
      expect((await replica.history(id)).map((entry) => entry.event)).toEqual([
        'requested',
        'approved',
        'claimed',
      ]);
    } finally {
      await fresh.drop();
    }
  });

  it('stores a request only while its policy window counts what it counted: of two made at once, one sees the other', async () => {
    const payee = { tag: 'window-payee', nameTag: undefined };
    const window = { since: new Date(Date.now() - 3_600_000), counted: [] };
    const made = await Promise.allSettled(
      [1, 2].map(() => store.create(newRequest({ payee, window }))),
    );
    const stored = made.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const refused = made.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(stored).toHaveLength(1);
    expect(refused).toEqual([expect.any(WindowChangedError)]);

    const counted = stored.map((request) => request.id);
    const again = await store.create(newRequest({ payee, window: { ...window, counted } }));
    const inWindow = await store.requestsToPayee('U0ALICE', payee.tag, window.since);
    expect(inWindow.map((request) => request.id)).toEqual([...counted, again.id]);
  });

  it('creates a pending request that keeps the exact body and its fingerprint', async () => {
    const body = payoutBody();
    const request = await store.create(newRequest({ body }));
    expect(request).toMatchObject({
      status: 'pending',
      body,
      requesterId: 'U0ALICE',
      approvals: [],
    });
    expect(request.id).toBeGreaterThan(0);
    expect(await store.get(request.id)).toEqual(request);
    const history = await store.history(request.id);
    expect(history.map((entry) => entry.event)).toEqual(['requested']);
    expect(history[0]).toMatchObject({
      requestId: request.id,
      actor: 'U0ALICE',
      fromStatus: undefined,
      toStatus: 'pending',
      fingerprint: request.fingerprint,
      detail: { operationId: 'createPayout', requiredApprovals: 1 },
    });
  });

  it('claims a request once its last approval arrives, and only then', async () => {
    const request = await store.create(newRequest({ requiredApprovals: 2 }));
    const first = await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    expect(first.kind).toBe('recorded');
    const second = await store.approve(request.id, 'U0CAROL', 'test', checks(noRule));
    expect(second.kind).toBe('claimed');
    if (second.kind === 'claimed') expect(second.request.status).toBe('executing');
    const third = await store.approve(
      request.id,
      'U0DAVE',
      'test',
      checks((r) =>
        r.status === 'pending' ? undefined : { code: 'not_pending', status: r.status },
      ),
    );
    expect(third.kind).toBe('refused');
  });

  it('many concurrent last approvals claim exactly once', async () => {
    const request = await store.create(newRequest());
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        store.approve(
          request.id,
          `U0APPROVER${index}`,
          'test',
          checks((r) =>
            r.status === 'pending' ? undefined : { code: 'not_pending', status: r.status },
          ),
        ),
      ),
    );
    expect(results.filter((result) => result.kind === 'claimed')).toHaveLength(1);
    expect((await store.get(request.id))?.approvals).toHaveLength(1);
  });

  it('one person approving twice counts once (primary key), even racing', async () => {
    const request = await store.create(newRequest({ requiredApprovals: 2 }));
    const rule = (r: { approvals: Array<{ userId: string }> }, approver: string) =>
      r.approvals.some((a) => a.userId === approver)
        ? ({ code: 'already_approved' } as const)
        : undefined;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.approve(request.id, 'U0BOB', 'test', checks(rule))),
    );
    expect(results.filter((result) => result.kind === 'recorded')).toHaveLength(1);
    expect((await store.get(request.id))?.approvals.map((a) => a.userId)).toEqual(['U0BOB']);
  });

  it('different approvers racing on a 2-approval request: one counted, one claims, the rest see it claimed', async () => {
    const request = await store.create(newRequest({ requiredApprovals: 2 }));
    const pendingOnly = (r: PaymentRequest) =>
      r.status === 'pending' ? undefined : ({ code: 'not_pending', status: r.status } as const);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        store.approve(request.id, `U0APPROVER${index}`, 'test', checks(pendingOnly)),
      ),
    );
    const kinds = results.map((result) => result.kind).sort();
    expect(kinds).toEqual(['claimed', 'recorded', ...Array(8).fill('refused')]);
    const stored = await store.get(request.id);
    expect(stored?.status).toBe('executing');
    expect(stored?.approvals).toHaveLength(2);
    const claimed = results.find((result) => result.kind === 'claimed');
    expect(claimed?.request.approvals).toEqual(stored?.approvals);
  });

  it('a freeze refuses the approval that would execute, and leaves the request pending', async () => {
    const request = await store.create(newRequest());
    await store.setFreeze(true, 'U0BOB', 'incident 42');
    const frozen = await store.approve(request.id, 'U0CAROL', 'test', checks(noRule));
    expect(frozen).toMatchObject({
      kind: 'frozen',
      freeze: { frozen: true, reason: 'incident 42' },
    });
    expect((await store.get(request.id))?.status).toBe('pending');
    expect((await store.get(request.id))?.approvals).toEqual([]);
    await store.setFreeze(false, 'U0BOB', undefined);
    expect((await store.approve(request.id, 'U0CAROL', 'test', checks(noRule))).kind).toBe(
      'claimed',
    );
  });

  it('finishes an execution once, recording the outcome', async () => {
    const request = await store.create(newRequest());
    await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    const done = await store.finishExecution(request.id, 'submitted', {
      status: 201,
      providerId: 'po_1',
    });
    expect(done?.status).toBe('submitted');
    expect(done?.outcome).toMatchObject({ providerId: 'po_1' });
    const again = await store.finishExecution(request.id, 'failed', {});
    expect(again?.status).toBe('submitted');
    expect(again?.outcome).toMatchObject({ providerId: 'po_1', late: { result: 'failed' } });
  });

  it('rejects with a reason, and cancels only for the requester, only while pending', async () => {
    const rejected = await store.create(newRequest({ requiredApprovals: 2 }));
    await store.approve(rejected.id, 'U0CAROL', 'test', checks(noRule));
    const afterReject = await store.reject(rejected.id, 'U0BOB', 'wrong amount');
    expect(afterReject).toMatchObject({
      status: 'rejected',
      decidedBy: 'U0BOB',
      reason: 'wrong amount',
      approvals: [{ userId: 'U0CAROL' }],
    });
    expect(await store.get(rejected.id)).toEqual(afterReject);
    expect(await store.reject(rejected.id, 'U0BOB', 'again')).toBeUndefined();
    const cancelled = await store.create(newRequest());
    expect(await store.cancel(cancelled.id, 'U0BOB')).toBeUndefined();
    expect((await store.cancel(cancelled.id, 'U0ALICE'))?.status).toBe('cancelled');
    const audited = async (id: number) =>
      (await store.history(id)).map((entry) => ({
        event: entry.event,
        actor: entry.actor,
        fromStatus: entry.fromStatus,
        toStatus: entry.toStatus,
        detail: entry.detail,
      }));
    expect((await audited(rejected.id)).at(-1)).toEqual({
      event: 'rejected',
      actor: 'U0BOB',
      fromStatus: 'pending',
      toStatus: 'rejected',
      detail: { reason: 'wrong amount' },
    });
    expect((await audited(cancelled.id)).slice(1)).toEqual([
      {
        event: 'cancelled',
        actor: 'U0ALICE',
        fromStatus: 'pending',
        toStatus: 'cancelled',
        detail: undefined,
      },
    ]);
  });

  /** Claimed, and let out through the fence: its one call may be on its way. */
  async function claimedAndSent(claimedBy: string) {
    const request = await store.create(newRequest());
    const claim = await store.approve(request.id, 'U0BOB', claimedBy, checks(noRule));
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    expect(await store.markSending(request.id, claim.claimToken, 60_000)).toEqual({
      kind: 'send',
    });
    return request;
  }

  it('the fence waits for a freeze being written, and then lets nothing out', async () => {
    const request = await store.create(newRequest());
    const claim = await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    let fenced: ReturnType<RequestStore['markSending']> | undefined;
    await database.db.transaction(async (tx) => {
      await tx.query("update freeze_state set frozen = true, reason = 'drill' where id = 1");
      // On PostgreSQL another connection; on PGlite it runs after this transaction.
      fenced = store.markSending(request.id, claim.claimToken, 60_000);
      await someoneWaitsOnALock(database);
    });
    try {
      expect(await fenced).toEqual({
        kind: 'refused',
        stop: { code: 'frozen', freezeReason: 'drill' },
      });
    } finally {
      await store.setFreeze(false, 'U0CAROL', undefined);
    }
  });

  it('expires due requests and recovers stale executions: unknown if let out, failed if never', async () => {
    const due = await store.create(newRequest({ expiresAt: new Date(Date.now() - 1_000) }));
    const expired = await store.expireDue(new Date());
    expect(expired.map((request) => request.id)).toContain(due.id);
    expect((await store.get(due.id))?.status).toBe('expired');

    const stale = await claimedAndSent('dead-process');
    const neverSent = await store.create(newRequest());
    await store.approve(neverSent.id, 'U0BOB', 'dead-process', checks(noRule));
    expect(await store.recoverStale(60_000)).toEqual([]);
    const recovered = await store.recoverStale(0);
    expect(recovered.map((request) => [request.id, request.status])).toEqual(
      expect.arrayContaining([
        [stale.id, 'unknown'],
        [neverSent.id, 'failed'],
      ]),
    );
    expect((await store.get(neverSent.id))?.outcome?.message).toMatch(/never sent/);
  });

  it('lets a claimed write out only to its claim, once, within the lease and unfrozen', async () => {
    const request = await store.create(newRequest());
    const claim = await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    const refused = { kind: 'refused', stop: { code: 'claim_lost' } };
    const lost = await store.markSending(request.id, 'another-claim', 60_000);
    expect(lost).toEqual(refused);
    if (lost.kind === 'refused') expect(words(lost.stop)).toMatch(/nothing was sent/);
    // A lease already over: the sweep may have called it unknown, so nothing may go out.
    expect(await store.markSending(request.id, claim.claimToken, 0)).toEqual(refused);
    await store.setFreeze(true, 'U0CAROL', 'incident');
    const frozen = await store.markSending(request.id, claim.claimToken, 60_000);
    expect(frozen).toEqual({ kind: 'refused', stop: { code: 'frozen', freezeReason: 'incident' } });
    if (frozen.kind === 'refused') expect(words(frozen.stop)).toMatch(/frozen \(incident\)/);
    await store.setFreeze(false, 'U0CAROL', undefined);
    expect(await store.markSending(request.id, claim.claimToken, 60_000)).toEqual({ kind: 'send' });
    expect(await store.markSending(request.id, claim.claimToken, 60_000)).toEqual(refused);
  });

  it('counts only the earlier approvals that still count at the claim', async () => {
    const request = await store.create(newRequest({ requiredApprovals: 2 }));
    await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    const removed = async () => ({ counted: 0 });
    expect((await store.approve(request.id, 'U0CAROL', 'test', checks(noRule, removed))).kind).toBe(
      'recorded',
    );
    expect((await store.get(request.id))?.status).toBe('pending');
    const unsure = async () => ({ refusal: { code: 'approvers_unconfirmed' } as const });
    expect(await store.approve(request.id, 'U0DAVE', 'test', checks(noRule, unsure))).toMatchObject(
      {
        kind: 'refused',
        code: 'approvers_unconfirmed',
      },
    );
    expect((await store.approve(request.id, 'U0DAVE', 'test', checks(noRule))).kind).toBe(
      'claimed',
    );
  });

  it('keeps an outcome that arrives after the lease ran out, without changing the status', async () => {
    const request = await claimedAndSent('slow-process');
    await store.recoverStale(0);
    const late = await store.finishExecution(request.id, 'submitted', {
      status: 201,
      providerId: 'po_late',
    });
    expect(late?.status).toBe('unknown');
    expect(late?.outcome).toMatchObject({ late: { providerId: 'po_late', result: 'submitted' } });
    expect((await store.history(request.id)).map((entry) => entry.event)).toContain('late_outcome');
  });

  it('lists unknown outcomes still to be looked for, until one is found', async () => {
    const request = await store.create(newRequest());
    await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    await store.finishExecution(request.id, 'unknown', { message: 'timeout' });
    const ids = async (recheckAfterMs: number) =>
      (await store.listUnresolved(recheckAfterMs, 3_600_000)).map((entry) => entry.id);
    expect(await ids(60_000)).toContain(request.id);
    const checked = { checkedAt: new Date().toISOString(), detail: '' };
    await store.recordReconciliation(request.id, { ...checked, result: 'not_found' });
    expect(await ids(60_000)).not.toContain(request.id);
    expect(await ids(0)).toContain(request.id);
    await store.recordReconciliation(request.id, {
      ...checked,
      result: 'found',
      providerId: 'po_9',
    });
    expect(await ids(0)).not.toContain(request.id);
  });

  it("records two replicas' checks of one unknown outcome once: the second read what the first replaced", async () => {
    const request = await store.create(newRequest());
    await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    await store.finishExecution(request.id, 'unknown', { message: 'timeout' });
    const [listed] = (await store.listUnresolved(0, 3_600_000)).filter(
      (entry) => entry.id === request.id,
    );
    if (!listed) throw new Error('the unknown outcome is not listed');
    const found = (providerId: string) => ({
      checkedAt: new Date().toISOString(),
      detail: '',
      result: 'found' as const,
      providerId,
    });
    const from = { reconciliation: listed.reconciliation };
    const recorded = await Promise.all([
      store.recordReconciliation(request.id, found('po_first'), from),
      store.recordReconciliation(request.id, found('po_second'), from),
    ]);
    expect(recorded.filter((entry) => entry !== undefined)).toHaveLength(1);
    const events = (await store.history(request.id)).map((entry) => entry.event);
    expect(events.filter((event) => event === 'reconciled')).toHaveLength(1);
  });

  it('an approval written after the expiry, by the database clock, is refused and counts nothing', async () => {
    // Still pending (no sweep yet), and the click's own rules saw it as valid: a slow click.
    const past = new Date(Date.now() - 1_000);
    const last = await store.create(newRequest({ expiresAt: past }));
    const first = await store.create(newRequest({ expiresAt: past, requiredApprovals: 2 }));
    for (const request of [last, first]) {
      expect(told(await store.approve(request.id, 'U0BOB', 'test', checks(noRule)))).toMatchObject({
        kind: 'refused',
        reason: 'This request has expired, so it can no longer be approved: ask for a new request.',
      });
      expect(await store.get(request.id)).toMatchObject({ status: 'pending', approvals: [] });
    }
  });

  it('an unknown outcome is looked for a week from when it was sent, however old the request', async () => {
    const request = await store.create(newRequest());
    const week = 7 * 24 * 3_600_000;
    await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    await store.finishExecution(request.id, 'unknown', { message: 'timeout' });
    // Requested eight days ago (a long expiry), sent just now.
    await database.db.query(
      "update payment_requests set created_at = now() - interval '8 days' where id = $1",
      [request.id],
    );
    const listed = (await store.listUnresolved(0, week)).map((entry) => entry.id);
    expect(listed).toContain(request.id);
  });

  it('holds approvals of the same write while a twin is being sent or its outcome is unsettled', async () => {
    const body = payoutBody();
    const first = await store.create(newRequest({ body }));
    const twin = await store.create(newRequest({ body }));
    const other = await store.create(newRequest());
    expect(await store.unsettledTwin(first.holdKey)).toBeUndefined();
    expect((await store.approve(first.id, 'U0BOB', 'test', checks(noRule))).kind).toBe('claimed');
    const heldBy = (status: string) => ({ kind: 'held', twin: { id: first.id, status } });

    expect(await store.unsettledTwin(first.holdKey)).toEqual({
      id: first.id,
      status: 'executing',
    });
    expect(await store.approve(twin.id, 'U0CAROL', 'test', checks(noRule))).toMatchObject(
      heldBy('executing'),
    );
    await store.finishExecution(first.id, 'unknown', { message: 'timeout' });
    expect(await store.approve(twin.id, 'U0CAROL', 'test', checks(noRule))).toMatchObject(
      heldBy('unknown'),
    );
    const checked = { checkedAt: new Date().toISOString(), detail: '' };
    // A read that found nothing settles nothing: the provider's lists may lag.
    for (const result of ['check_failed', 'ambiguous', 'not_found'] as const) {
      await store.recordReconciliation(first.id, { ...checked, result });
      expect(await store.approve(twin.id, 'U0CAROL', 'test', checks(noRule))).toMatchObject(
        heldBy('unknown'),
      );
    }
    // Another write is not held, and nothing was counted for the held one.
    expect((await store.approve(other.id, 'U0CAROL', 'test', checks(noRule))).kind).toBe('claimed');
    expect((await store.get(twin.id))?.approvals).toEqual([]);
    expect((await store.getWithFreeze(twin.id))?.request.status).toBe('pending');

    await store.recordReconciliation(first.id, {
      ...checked,
      result: 'not_found',
      resolvedBy: 'U0DAVE',
    });
    expect(await store.unsettledTwin(first.holdKey)).toBeUndefined();
    expect((await store.approve(twin.id, 'U0CAROL', 'test', checks(noRule))).kind).toBe('claimed');
  });

  it("keeps a person's word on an unknown outcome: no automatic check replaces it", async () => {
    const request = await store.create(newRequest());
    expect(
      await store.recordReconciliation(request.id, {
        checkedAt: new Date().toISOString(),
        result: 'not_found',
        detail: 'not unknown yet',
      }),
    ).toBeUndefined();
    await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    await store.finishExecution(request.id, 'unknown', { message: 'timeout' });
    const resolved = await store.recordReconciliation(request.id, {
      checkedAt: new Date().toISOString(),
      result: 'not_found',
      detail: 'no payout in the dashboard',
      resolvedBy: 'U0CAROL',
    });
    expect(resolved?.reconciliation).toMatchObject({ result: 'not_found', resolvedBy: 'U0CAROL' });
    const later = await store.recordReconciliation(request.id, {
      checkedAt: new Date().toISOString(),
      result: 'check_failed',
      detail: 'the list could not be read',
    });
    expect(later).toBeUndefined();
    expect((await store.get(request.id))?.reconciliation?.resolvedBy).toBe('U0CAROL');
    const unresolved = await store.listUnresolved(0, 3_600_000);
    expect(unresolved.map((entry) => entry.id)).not.toContain(request.id);
    const events = (await store.history(request.id)).map(
      (entry) => `${entry.event}:${entry.actor}`,
    );
    expect(events.at(-1)).toBe('resolved:U0CAROL');
  });

  it('keeps an append-only audit log', async () => {
    const request = await store.create(newRequest());
    await store.approve(request.id, 'U0BOB', 'test', checks(noRule));
    const events = (await store.history(request.id)).map(
      (entry) => `${entry.event}:${entry.actor}`,
    );
    expect(events).toEqual(['requested:U0ALICE', 'approved:U0BOB', 'claimed:payops']);
    await expect(database.db.query('update audit_log set actor = $1', ['mallory'])).rejects.toThrow(
      /append-only/,
    );
    await expect(database.db.query('delete from audit_log')).rejects.toThrow(/append-only/);
  });

  it('reads the whole audit log a page at a time, oldest first, the newest included', async () => {
    for (let index = 0; index < 5; index++) await store.create(newRequest());
    const [newest] = await database.db.query<{ id: unknown }>(
      'select max(id) as id from audit_log',
    );
    const pages: number[][] = [];
    for await (const page of store.auditLog(4)) pages.push(page.map((entry) => entry.id));
    const ids = pages.flat();
    expect(pages.every((page) => page.length <= 4)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.at(-1)).toBe(Number(newest?.id));
    const [count] = await database.db.query<{ n: unknown }>('select count(*) as n from audit_log');
    expect(ids).toHaveLength(Number(count?.n));
  });
});

describe.runIf(engines().includes('postgres'))('request store replicas on postgres', () => {
  let database: TestDatabase;
  let store: RequestStore;
  beforeAll(async () => {
    database = await freshDatabase('postgres');
    store = new RequestStore(database.db, testCipher);
  });
  afterAll(() => database.drop());

  it('two pending twins approved at once on two replicas: at most one is claimed', async () => {
    const other = await openPostgres(database.url as string);
    try {
      const replica = new RequestStore(other, testCipher);
      for (let round = 0; round < 15; round++) {
        const body = payoutBody();
        const [a, b] = await Promise.all([
          store.create(newRequest({ body })),
          store.create(newRequest({ body })),
        ]);
        const results = await Promise.all([
          store.approve(a.id, 'U0BOB', 'replica-a', checks(noRule)),
          replica.approve(b.id, 'U0CAROL', 'replica-b', checks(noRule)),
        ]);
        expect(results.filter((result) => result.kind === 'claimed')).toHaveLength(1);
        expect(results.filter((result) => result.kind === 'held')).toHaveLength(1);
      }
    } finally {
      await other.close();
    }
  });
});
