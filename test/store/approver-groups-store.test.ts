import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApproverGroupsStore } from '../../src/store/approver-groups-store.ts';
import { OutboxStore } from '../../src/store/outbox-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';

describe.each(engines())('the approver groups store on %s', (engine) => {
  let database: TestDatabase;
  let groups: ApproverGroupsStore;

  beforeAll(async () => {
    database = await freshDatabase(engine);
    groups = new ApproverGroupsStore(database.db);
  });
  afterAll(() => database.drop());

  const at = (seconds: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, seconds));

  /** The audit rows of `group`'s changes, oldest first. */
  async function auditRows(group: string) {
    const rows = await database.db.query<{ request_id: unknown; actor: string; detail: unknown }>(
      `select request_id, actor, detail from audit_log
        where event = 'approver_group_changed' and detail->>'group' = $1 order by id`,
      [group],
    );
    return rows.map((row) => ({
      ...row,
      detail: typeof row.detail === 'string' ? JSON.parse(row.detail) : row.detail,
    }));
  }

  /** The announcements of `group`'s changes waiting in the outbox, oldest first. */
  async function announcements(group: string) {
    const due = await new OutboxStore(database.db).due(500);
    return due
      .filter((d) => d.kind === 'announcement' && d.event === 'approver_group_changed')
      .filter((d) => (d.body as { group?: unknown } | undefined)?.group === group)
      .map((d) => ({ requestId: d.requestId, body: d.body }));
  }

  async function recorded(group: string): Promise<string[] | undefined> {
    const [row] = await database.db.query<{ members: string[] }>(
      'select members from approver_groups where group_id = $1',
      [group],
    );
    return row?.members;
  }

  it('records a group’s first read without an audit row or an announcement', async () => {
    const read = { groupId: 'S0FIRST', members: ['U0BOB', 'U0ALICE', 'U0BOB'], readAt: at(0) };
    expect(await groups.record(read)).toEqual({ kind: 'first_seen' });
    expect(await recorded('S0FIRST')).toEqual(['U0ALICE', 'U0BOB']);
    expect(await groups.record({ ...read, readAt: at(1) })).toEqual({ kind: 'unchanged' });
    expect(await auditRows('S0FIRST')).toEqual([]);
    expect(await announcements('S0FIRST')).toEqual([]);
  });

  it('a change is recorded with one audit row and one announcement of who was added and removed; read again, nothing more', async () => {
    await groups.record({ groupId: 'S0TEAM', members: ['U0ALICE', 'U0BOB'], readAt: at(0) });
    const read = { groupId: 'S0TEAM', members: ['U0CAROL', 'U0BOB', 'U0DAVE'], readAt: at(5) };
    const change = { group: 'S0TEAM', added: ['U0CAROL', 'U0DAVE'], removed: ['U0ALICE'] };
    expect(await groups.record(read)).toEqual({ kind: 'changed', change });
    expect(await groups.record({ ...read, readAt: at(6) })).toEqual({ kind: 'unchanged' });
    expect(await recorded('S0TEAM')).toEqual(['U0BOB', 'U0CAROL', 'U0DAVE']);
    expect(await auditRows('S0TEAM')).toEqual([
      { request_id: null, actor: 'payops', detail: change },
    ]);
    expect(await announcements('S0TEAM')).toEqual([{ requestId: undefined, body: change }]);
  });

  it('a read begun before the one recorded is an old answer, not a change back', async () => {
    await groups.record({ groupId: 'S0LATE', members: ['U0ALICE'], readAt: at(0) });
    await groups.record({ groupId: 'S0LATE', members: ['U0ALICE', 'U0BOB'], readAt: at(10) });
    expect(await groups.record({ groupId: 'S0LATE', members: ['U0ALICE'], readAt: at(9) })).toEqual(
      { kind: 'outdated' },
    );
    expect(await recorded('S0LATE')).toEqual(['U0ALICE', 'U0BOB']);
    expect((await auditRows('S0LATE')).map((row) => row.detail)).toEqual([
      { group: 'S0LATE', added: ['U0BOB'], removed: [] },
    ]);
  });

  it('replicas learning the same change at once record and announce it once', async () => {
    const [a, b] = [new ApproverGroupsStore(database.db), new ApproverGroupsStore(database.db)];
    await a.record({ groupId: 'S0RACE', members: ['U0ALICE', 'U0BOB'], readAt: at(0) });
    const outcomes = await Promise.all(
      [a, b, a, b].map((store, i) =>
        store.record({ groupId: 'S0RACE', members: ['U0ALICE'], readAt: at(20 + i) }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.kind === 'changed')).toHaveLength(1);
    expect(await auditRows('S0RACE')).toHaveLength(1);
    expect(await announcements('S0RACE')).toEqual([
      { requestId: undefined, body: { group: 'S0RACE', added: [], removed: ['U0BOB'] } },
    ]);
  });

  it('replicas seeing a group for the first time at once record it once, announcing nothing', async () => {
    const [a, b] = [new ApproverGroupsStore(database.db), new ApproverGroupsStore(database.db)];
    const outcomes = await Promise.all([
      a.record({ groupId: 'S0NEW', members: ['U0ALICE'], readAt: at(0) }),
      b.record({ groupId: 'S0NEW', members: ['U0ALICE'], readAt: at(0) }),
    ]);
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['first_seen', 'unchanged']);
    expect(await auditRows('S0NEW')).toEqual([]);
  });
});
