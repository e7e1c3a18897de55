import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxStore } from '../../src/store/outbox-store.ts';
import { POLICY_LOADED, PolicyStore } from '../../src/store/policy-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';

const ANNOUNCE = {
  event: 'policy_changed',
  body: (previous: { version: string }) => ({ from: previous.version }),
};

describe.each(engines())('the policy recorded in the audit log, on %s', (engine) => {
  let database: TestDatabase;
  let policies: PolicyStore;
  let outbox: OutboxStore;

  beforeAll(async () => {
    database = await freshDatabase(engine);
    policies = new PolicyStore(database.db);
    outbox = new OutboxStore(database.db);
  });
  afterAll(() => database.drop());

  const recorded = () =>
    database.db.query<{ request_id: unknown; actor: string; detail: unknown }>(
      `select request_id, actor, detail from audit_log where event = '${POLICY_LOADED}' order by id`,
    );
  const announcements = async () =>
    (await outbox.due(100)).filter((delivery) => delivery.kind === 'announcement');

  it('records the first policy of a store without announcing it', async () => {
    const first = await policies.record({ version: 'v1', canonical: { rules: [] } }, ANNOUNCE);
    expect(first).toEqual({ kind: 'first' });
    expect(await recorded()).toEqual([
      {
        request_id: null,
        actor: 'payops',
        detail: { version: 'v1', policy: { rules: [] } },
      },
    ]);
    expect(await announcements()).toEqual([]);
  });

  it('writes nothing when the policy is the last one recorded', async () => {
    expect(await policies.record({ version: 'v1', canonical: { rules: [] } }, ANNOUNCE)).toEqual({
      kind: 'same',
    });
    expect(await recorded()).toHaveLength(1);
    expect(await announcements()).toEqual([]);
  });

  it('records a change and enqueues one announcement, built from the policy before', async () => {
    const changed = await policies.record({ version: 'v2', canonical: { rules: [1] } }, ANNOUNCE);
    expect(changed).toEqual({
      kind: 'changed',
      previous: { version: 'v1', canonical: { rules: [] } },
    });
    expect((await recorded()).at(-1)?.detail).toEqual({
      version: 'v2',
      policy: { rules: [1] },
      previous_version: 'v1',
    });
    const [announcement, ...more] = await announcements();
    expect(more).toEqual([]);
    expect(announcement).toMatchObject({
      requestId: undefined,
      event: 'policy_changed',
      body: { from: 'v1' },
      maybePosted: false,
    });

    // Delivered like any other delivery, though it belongs to no request.
    const [claimed] = await outbox.claim([announcement?.id as number], 'me', 60_000);
    expect(claimed).toMatchObject({ kind: 'announcement', requestId: undefined });
    expect(await outbox.delivered(announcement?.id as number, 'me', undefined)).toBe(true);
    expect(await announcements()).toEqual([]);
  });

  it('two replicas starting together under a new policy record and announce it once', async () => {
    const both = await Promise.all(
      [1, 2].map(() => policies.record({ version: 'v3', canonical: { rules: [3] } }, ANNOUNCE)),
    );
    expect(both.map((result) => result.kind).sort()).toEqual(['changed', 'same']);
    expect((await recorded()).map((row) => (row.detail as { version: string }).version)).toEqual([
      'v1',
      'v2',
      'v3',
    ]);
    expect(await announcements()).toHaveLength(1);
  });

  it('an announcement with a request, or a card without one, is refused by the store', async () => {
    await expect(
      database.db.query(
        "insert into slack_outbox (kind, give_up_at) values ('card', now() + interval '1 hour')",
      ),
    ).rejects.toThrow(/slack_outbox_announcement_alone/);
  });
});
