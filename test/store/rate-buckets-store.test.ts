import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres.ts';
import { RateBucketsStore } from '../../src/store/rate-buckets-store.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';

describe.each(engines())('Slack rate buckets on %s', (engine) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await freshDatabase(engine);
  });
  afterAll(() => database.drop());

  it('gives a full bucket’s tokens, then says how long until the next', async () => {
    const buckets = new RateBucketsStore(database.db);
    const bucket = { key: 'full', capacity: 3, perSecond: 1 };
    const started = performance.now();
    expect([
      await buckets.take([bucket]),
      await buckets.take([bucket]),
      await buckets.take([bucket]),
    ]).toEqual([0, 0, 0]);
    const wait = await buckets.take([bucket]);
    // The bucket refills while the takes run: on a loaded machine they may take over 100 ms.
    const elapsed = performance.now() - started;
    expect(wait).toBeGreaterThan(Math.min(900, 1_000 - elapsed - 10));
    expect(wait).toBeLessThanOrEqual(1_000);
  });

  it('takes from every bucket of a call or from none', async () => {
    const buckets = new RateBucketsStore(database.db);
    const channel = { key: 'channel', capacity: 1, perSecond: 0.001 };
    const workspace = { key: 'workspace', capacity: 5, perSecond: 0.001 };
    expect(await buckets.take([channel, workspace])).toBe(0);
    expect(await buckets.take([channel, workspace])).toBeGreaterThan(0);
    // The refused take left the workspace's tokens alone: four remain.
    for (let i = 0; i < 4; i++) expect(await buckets.take([workspace])).toBe(0);
    expect(await buckets.take([workspace])).toBeGreaterThan(0);
  });

  it('honours a block (Retry-After) whatever the tokens', async () => {
    const buckets = new RateBucketsStore(database.db);
    const bucket = { key: 'blocked', capacity: 10, perSecond: 10 };
    expect(await buckets.take([bucket])).toBe(0);
    await buckets.block(['blocked'], 2_000);
    const wait = await buckets.take([bucket]);
    expect(wait).toBeGreaterThan(1_500);
    expect(wait).toBeLessThanOrEqual(2_000);
  });
});

// Two connection pools, as two replicas have: PostgreSQL only (PGlite is one process's).
describe.each(engines().filter((engine) => engine === 'postgres'))(
  'Slack rate buckets shared on %s',
  (engine) => {
    let database: TestDatabase;

    beforeAll(async () => {
      database = await freshDatabase(engine);
    });
    afterAll(() => database.drop());

    it.runIf(engine === 'postgres')(
      'shared by two processes’ pools: together they get the capacity, no more',
      async () => {
        const other = await openPostgres(database.url as string);
        try {
          const mine = new RateBucketsStore(database.db);
          const theirs = new RateBucketsStore(other);
          const bucket = { key: 'shared', capacity: 20, perSecond: 0.001 };
          const takes = await Promise.all(
            Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? mine : theirs).take([bucket])),
          );
          expect(takes.filter((wait) => wait === 0)).toHaveLength(20);
        } finally {
          await other.close();
        }
      },
    );
  },
);
