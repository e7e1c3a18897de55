import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplayStore, ReplaysInMemory } from '../../src/store/replay-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';

describe.each(engines())('signed Slack requests already taken, on %s', (engine) => {
  let database: TestDatabase;
  const nowSec = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    database = await freshDatabase(engine);
  });
  afterAll(() => database.drop());

  it('takes a signature once, whichever replica sees it, even all at once', async () => {
    const replicas = [new ReplayStore(database.db), new ReplayStore(database.db)];
    const seen = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (replicas[index % 2] as ReplayStore).firstSeen('v0=same', nowSec()),
      ),
    );
    expect(seen.filter(Boolean)).toHaveLength(1);
    expect(await replicas[0]?.firstSeen('v0=other', nowSec())).toBe(true);
  });

  it('forgets signatures ten minutes past their timestamp, no sooner', async () => {
    const store = new ReplayStore(database.db);
    expect(await store.firstSeen('v0=old', nowSec() - 11 * 60)).toBe(true);
    expect(await store.firstSeen('v0=recent', nowSec() - 9 * 60)).toBe(true);
    // A new process prunes on its first request.
    const later = new ReplayStore(database.db);
    expect(await later.firstSeen('v0=recent', nowSec() - 9 * 60)).toBe(false);
    expect(await later.firstSeen('v0=old', nowSec() - 11 * 60)).toBe(true);
  });
});

describe('replays remembered in memory (the embedded store: one process)', () => {
  it('a signature is new once, then a replay, and forgotten only when old', async () => {
    const replays = new ReplaysInMemory();
    const now = Math.floor(Date.now() / 1000);
    expect(await replays.firstSeen('v0=abc', now)).toBe(true);
    expect(await replays.firstSeen('v0=abc', now)).toBe(false);
    expect(await replays.firstSeen('v0=def', now)).toBe(true);
  });
});
