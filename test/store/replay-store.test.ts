import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_REMEMBERED_SIGNATURES,
  ReplayMemoryFull,
  ReplayStore,
  ReplaysInMemory,
} from '../../src/store/replay-store.ts';
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

  it('holds at most its bound: what Bolt would refuse goes first, and it refuses rather than forget what could still be replayed', async () => {
    const now = Math.floor(Date.now() / 1000);
    const replays = new ReplaysInMemory(3);
    expect(await replays.firstSeen('v0=stale', now - 6 * 60)).toBe(true);
    expect(await replays.firstSeen('v0=a', now)).toBe(true);
    expect(await replays.firstSeen('v0=b', now - 4 * 60)).toBe(true);
    // Full: the signature past Slack's five minutes makes room.
    expect(await replays.firstSeen('v0=c', now)).toBe(true);
    await expect(replays.firstSeen('v0=d', now)).rejects.toThrow(ReplayMemoryFull);
    for (const kept of ['v0=a', 'v0=b', 'v0=c'])
      expect(await replays.firstSeen(kept, now)).toBe(false);
  });

  it(`holds no more than ${MAX_REMEMBERED_SIGNATURES} signatures by default`, async () => {
    const now = Math.floor(Date.now() / 1000);
    const replays = new ReplaysInMemory();
    for (let index = 0; index < MAX_REMEMBERED_SIGNATURES; index += 1) {
      expect(await replays.firstSeen(`v0=${index}`, now)).toBe(true);
    }
    await expect(replays.firstSeen('v0=one-more', now)).rejects.toThrow(ReplayMemoryFull);
  });
});
