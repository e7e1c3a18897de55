import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isReminderEvent } from '../../src/domain/reminders.ts';
import { type Delivery, OutboxStore } from '../../src/store/outbox-store.ts';
import { remindDue } from '../../src/store/reminder-store.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { newRequest, testCipher } from '../helpers/requests.ts';

describe.each(engines())('the Slack outbox store on %s', (engine) => {
  let database: TestDatabase;
  let requests: RequestStore;
  let outbox: OutboxStore;

  beforeAll(async () => {
    database = await freshDatabase(engine);
    requests = new RequestStore(database.db, testCipher);
    outbox = new OutboxStore(database.db);
  });
  afterAll(() => database.drop());

  /** A request whose card is posted (or found in the channel), as the dispatcher records it. */
  async function posted(found = false): Promise<number> {
    const { id } = await requests.create(newRequest());
    const card = (await outbox.due(500)).find((d) => d.requestId === id && d.kind === 'card');
    await outbox.claim([card?.id as number], 'me', 60_000);
    await outbox.delivered(card?.id as number, 'me', {
      channelId: 'C1',
      ts: `1.${id}`,
      found,
    });
    return id;
  }

  async function redrawsOf(id: number) {
    return (await outbox.ofRequest(id)).filter((d) => d.kind === 'card_update');
  }

  it("reminders come after every other delivery, never hold back a notice, and a decided request's cost no call", async () => {
    const decided = await posted();
    const waiting = await posted();
    // Reminders queued for every pending request, then one of them is cancelled.
    await remindDue(database.db, new Date(Date.now() + 1_000), 0);
    await requests.cancel(decided, 'U0ALICE');
    const due = (await outbox.due(500)).filter((d) =>
      [decided, waiting].includes(d.requestId ?? 0),
    );
    const reminder = (d: Delivery) => d.kind === 'notice' && isReminderEvent(d.event);
    const firstReminder = due.findIndex(reminder);
    expect(firstReminder).toBeGreaterThan(0);
    expect(due.slice(firstReminder).every(reminder)).toBe(true);
    // The cancellation's notice is due though its request's reminder, queued before it, waits.
    expect(due.slice(0, firstReminder)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ requestId: decided, kind: 'notice', event: 'cancelled' }),
        expect.objectContaining({ requestId: decided, kind: 'card_update' }),
      ]),
    );
    expect(due.filter(reminder).map((d) => [d.requestId, d.moot])).toEqual([
      [decided, true],
      [waiting, false],
    ]);
  });

  it('a redraw sent back to wait while a newer one waits is superseded by it, not an error', async () => {
    const id = await posted();
    await requests.setFreeze(true, 'U1', 'drill');
    const [first] = await redrawsOf(id);
    await outbox.claim([first?.id as number], 'me', 60_000);
    // The card changes again while the first redraw is in flight: a second one waits.
    await requests.setFreeze(false, 'U1', undefined);
    await outbox.retryLater(first?.id as number, 'me', 1_000, 'Slack answered HTTP 500', false);
    expect((await redrawsOf(id)).map((d) => d.state)).toEqual(['superseded', 'waiting']);
  });

  it('a dead sender’s redraw, taken back while a newer one waits, is superseded too', async () => {
    const id = await posted();
    await requests.setFreeze(true, 'U1', 'drill');
    const [first] = await redrawsOf(id);
    await outbox.claim([first?.id as number], 'dead', 1);
    await requests.setFreeze(false, 'U1', undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await outbox.housekeeping();
    expect((await redrawsOf(id)).map((d) => d.state)).toEqual(['superseded', 'waiting']);
  });

  it('what waits on a card that failed fails too, even if written after; so does what waited too long', async () => {
    const { id } = await requests.create(newRequest());
    const card = (await outbox.due(500)).find((d) => d.requestId === id && d.kind === 'card');
    await outbox.claim([card?.id as number], 'me', 60_000);
    await outbox.failed(card?.id as number, 'me', 'not_in_channel');
    // Written after the card failed: a freeze's redraw.
    await requests.setFreeze(true, 'U1', 'drill');
    await requests.setFreeze(false, 'U1', undefined);
    await outbox.housekeeping();
    const states = (await outbox.ofRequest(id)).map((d) => `${d.kind}:${d.state}`);
    expect(states).toContain('card_update:failed');
    expect(states).not.toContain('card_update:waiting');
    // The requester is still told why.
    expect(states).toContain('confirmation:waiting');

    const stale = await requests.create(newRequest({ expiresAt: new Date(Date.now() - 1_000) }));
    await outbox.housekeeping();
    const card2 = (await outbox.ofRequest(stale.id)).find((d) => d.kind === 'card');
    expect(card2?.state).toBe('failed');
    expect(card2?.lastError).toContain('no longer meaningful');
  });

  it('a card found in the channel (its answer lost) is redrawn as the request is now', async () => {
    const id = await posted(true);
    expect((await redrawsOf(id)).map((d) => d.state)).toEqual(['waiting']);
  });
});
