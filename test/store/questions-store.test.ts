import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isReminderEvent } from '../../src/domain/reminders.ts';
import { remindDue } from '../../src/store/reminder-store.ts';
import { NotSupersededError, RequestStore } from '../../src/store/request-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { checks, newRequest, testCipher } from '../helpers/requests.ts';

describe.each(engines())('questions and resubmits in the request store on %s', (engine) => {
  let database: TestDatabase;
  let store: RequestStore;

  beforeAll(async () => {
    database = await freshDatabase(engine);
    store = new RequestStore(database.db, testCipher);
  });
  afterAll(() => database.drop());

  const events = async (id: number) => (await store.history(id)).map((entry) => entry.event);
  const outbox = (id: number) =>
    database.db.query<{ kind: string; event: string | null; body: unknown }>(
      'select kind, event, body from slack_outbox where request_id = $1 order by id',
      [id],
    );

  it('a question is recorded on a pending request with its audit row, a redraw and a notice holding it', async () => {
    const { id } = await store.create(newRequest());
    const asked = await store.ask(id, 'U0BOB', 'Which invoice?');
    expect(asked?.status).toBe('pending');
    expect(asked?.question).toMatchObject({ by: 'U0BOB', text: 'Which invoice?' });
    expect((await store.get(id))?.question?.text).toBe('Which invoice?');
    expect(await events(id)).toEqual(['requested', 'question_asked']);
    const notice = (await outbox(id)).find((row) => row.event === 'question');
    expect(notice?.kind).toBe('notice');
    expect(notice?.body).toEqual({ by: 'U0BOB', text: 'Which invoice?' });
    expect((await outbox(id)).some((row) => row.kind === 'card_update')).toBe(true);
  });

  it('no reminder nudges approvers about a request waiting on its requester; one does once an approval came after the question', async () => {
    const { id: asked } = await store.create(newRequest({ requiredApprovals: 2 }));
    const { id: plain } = await store.create(newRequest());
    await store.ask(asked, 'U0BOB', 'Which invoice?');
    const remindersOf = async (id: number) =>
      (await outbox(id)).filter((row) => isReminderEvent(row.event ?? undefined));
    const reminded = async () => (await remindersOf(asked)).length;
    await remindDue(database.db, new Date(Date.now() + 1_000), 0);
    expect(await reminded()).toBe(0);
    expect(await remindersOf(plain)).toHaveLength(1);
    // An approval after the question: the request waits on its approvers again.
    expect((await store.approve(asked, 'U0CAROL', 'unit', checks())).kind).toBe('recorded');
    await remindDue(database.db, new Date(Date.now() + 1_000), 0);
    expect(await reminded()).toBe(1);
  });

  it('a question about a request no longer pending changes nothing', async () => {
    const { id } = await store.create(newRequest());
    await store.reject(id, 'U0CAROL', 'no');
    expect(await store.ask(id, 'U0BOB', 'Why?')).toBeUndefined();
    expect(await events(id)).toEqual(['requested', 'rejected']);
  });

  it('a resubmit supersedes the old request in its transaction, and the store counts no approval of it', async () => {
    const old = await store.create(newRequest());
    const replacing = await store.create(newRequest({ supersedes: old.id }));
    expect((await store.get(old.id))?.status).toBe('superseded');
    expect((await store.get(old.id))?.labels?.supersededBy).toBe(replacing.id);
    expect(await events(old.id)).toEqual(['requested', 'superseded']);
    const [link] = await database.db.query<{ supersedes: unknown }>(
      'select supersedes from payment_requests where id = $1',
      [replacing.id],
    );
    expect(Number(link?.supersedes)).toBe(old.id);
    // Even past the workflow's rules, its conditional statements find it no longer pending.
    await expect(store.approve(old.id, 'U0BOB', 'unit', checks())).rejects.toThrow(
      /nothing was counted/,
    );
    expect((await store.get(old.id))?.approvals).toEqual([]);
    expect((await store.get(old.id))?.status).toBe('superseded');
  });

  it("nothing is stored when the old request is not the requester's, or no longer pending", async () => {
    const old = await store.create(newRequest());
    const [before] = await database.db.query<{ n: unknown }>(
      'select count(*) as n from payment_requests',
    );
    await expect(
      store.create(newRequest({ supersedes: old.id, requesterId: 'U0DAVE' })),
    ).rejects.toBeInstanceOf(NotSupersededError);
    await store.cancel(old.id, 'U0ALICE');
    await expect(store.create(newRequest({ supersedes: old.id }))).rejects.toBeInstanceOf(
      NotSupersededError,
    );
    const [after] = await database.db.query<{ n: unknown }>(
      'select count(*) as n from payment_requests',
    );
    expect(Number(after?.n)).toBe(Number(before?.n));
  });
});
