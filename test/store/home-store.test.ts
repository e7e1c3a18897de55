import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HomeStore } from '../../src/store/home-store.ts';
import { remindDue } from '../../src/store/reminder-store.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { newRequest, testCipher } from '../helpers/requests.ts';

const HOUR = 3_600_000;

describe.each(engines())('reminders and Home tabs in the store (%s)', (engine) => {
  let database: TestDatabase;
  let requests: RequestStore;
  let homes: HomeStore;

  beforeAll(async () => {
    database = await freshDatabase(engine);
    requests = new RequestStore(database.db, testCipher);
    homes = new HomeStore(database.db);
  });
  afterAll(() => database.drop());
  beforeEach(async () => {
    await database.db.exec(`delete from home_viewers; delete from home_changes;
      update payment_requests set status = 'cancelled' where status = 'pending';`);
  });

  async function reminders(requestId: number): Promise<string[]> {
    const rows = await database.db.query<{ event: string }>(
      "select event from slack_outbox where request_id = $1 and kind = 'notice' order by id",
      [requestId],
    );
    return rows.map((row) => row.event);
  }

  it('reminds once after the delay, whatever the number of replicas, and once in the last hour', async () => {
    const request = await requests.create(
      newRequest({ expiresAt: new Date(Date.now() + 24 * HOUR) }),
    );
    expect(await remindDue(database.db, new Date(Date.now() + HOUR), 2 * HOUR)).toBe(0);
    const later = new Date(Date.now() + 3 * HOUR);
    const counts = await Promise.all(
      Array.from({ length: 5 }, () => remindDue(database.db, later, 2 * HOUR)),
    );
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(await remindDue(database.db, new Date(Date.now() + 10 * HOUR), 2 * HOUR)).toBe(0);
    const lastHour = new Date(Date.now() + 23.5 * HOUR);
    expect(await remindDue(database.db, lastHour, 2 * HOUR)).toBe(1);
    expect(await remindDue(database.db, lastHour, 2 * HOUR)).toBe(0);
    expect(await reminders(request.id)).toEqual(['reminder', 'expiring']);
  });

  it('sends one reminder, about the expiry, when both fall due together; none once decided or expired', async () => {
    const soon = await requests.create(
      newRequest({ expiresAt: new Date(Date.now() + 2.5 * HOUR) }),
    );
    const decided = await requests.create(
      newRequest({ expiresAt: new Date(Date.now() + 24 * HOUR) }),
    );
    await requests.cancel(decided.id, decided.requesterId);
    const at = new Date(Date.now() + 2.1 * HOUR);
    expect(await remindDue(database.db, at, 2 * HOUR)).toBe(1);
    expect(await remindDue(database.db, new Date(Date.now() + 2.4 * HOUR), 2 * HOUR)).toBe(0);
    expect(await reminders(soon.id)).toEqual(['expiring']);
    expect(await reminders(decided.id)).toEqual(['cancelled']);
    expect(await remindDue(database.db, new Date(Date.now() + 30 * HOUR), 2 * HOUR)).toBe(0);
  });

  it('marks stale the Homes a change concerns, and one process draws each', async () => {
    for (const user of ['U0REQ', 'U0APPROVER', 'U0OTHER']) {
      await homes.opened(user, user === 'U0APPROVER');
      expect(await homes.claimStale(10, 0, 60_000)).toEqual([user]);
      await homes.published(user, user === 'U0APPROVER');
    }
    await requests.create(newRequest({ requesterId: 'U0REQ' }));
    expect(await homes.absorbChanges(100)).toBe(1);
    const claims = await Promise.all([
      homes.claimStale(10, 0, 60_000),
      homes.claimStale(10, 0, 60_000),
    ]);
    expect(claims.flat().sort()).toEqual(['U0APPROVER', 'U0REQ']);
    // Drawn within the interval: a new change waits for it.
    await homes.published('U0REQ', false);
    await requests.create(newRequest({ requesterId: 'U0REQ' }));
    await homes.absorbChanges(100);
    expect(await homes.claimStale(10, 60_000, 60_000)).toEqual([]);
    expect(await homes.claimStale(10, 0, 60_000)).toContain('U0REQ');
  });

  it('marks every Home stale when payments are frozen, and appends nothing while nobody looks', async () => {
    await requests.create(newRequest());
    const [{ count }] = (await database.db.query('select count(*) as count from home_changes')) as [
      { count: unknown },
    ];
    expect(Number(count)).toBe(0);
    await homes.opened('U0OTHER', false);
    await homes.claimStale(10, 0, 60_000);
    await homes.published('U0OTHER', false);
    await requests.setFreeze(true, 'U0BOB', 'drill');
    await requests.setFreeze(false, 'U0BOB', undefined);
    await homes.absorbChanges(100);
    expect(await homes.claimStale(10, 0, 60_000)).toEqual(['U0OTHER']);
  });

  it('draws those who may approve first, then the longest waiting; opening a Home again jumps no queue', async () => {
    // Drawn in this order: U0EARLY's Home is the oldest drawing.
    for (const [user, isApprover] of [
      ['U0EARLY', false],
      ['U0LATE', false],
      ['U0APPROVER', true],
    ] as const) {
      await homes.opened(user, isApprover);
      expect(await homes.claimStale(10, 0, 60_000)).toEqual([user]);
      await homes.published(user, isApprover);
    }
    // Opened again within the interval: it waits like any other Home.
    await homes.opened('U0LATE', false);
    expect(await homes.claimStale(10, 60_000, 60_000)).toEqual([]);

    // The kill switch changes every Home; two people open theirs for the first time meanwhile.
    await requests.setFreeze(true, 'U0BOB', 'drill');
    await requests.setFreeze(false, 'U0BOB', undefined);
    await homes.absorbChanges(100);
    await homes.opened('U0NEW', false);
    await homes.opened('U0NEWAPPROVER', true);
    const drawn: string[] = [];
    for (let turn = 0; turn < 5; turn++) drawn.push(...(await homes.claimStale(1, 0, 60_000)));
    expect(drawn).toEqual(['U0NEWAPPROVER', 'U0APPROVER', 'U0NEW', 'U0EARLY', 'U0LATE']);
  });
});
