import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPglite } from '../../src/store/pglite.ts';

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'payops-create-'));
}

describe('a fresh embedded store folder', () => {
  it('is created and migrated before it is opened here, at the current schema', async () => {
    const dir = freshDir();
    const db = await openPglite(dir);
    try {
      const versions = await db.query<{ version: string }>(
        'select version from schema_migrations order by version',
      );
      expect(versions.map((row) => row.version)).toEqual(['0001', '0002', '0003']);
      expect(existsSync(join(dir, 'pgdata', 'PG_VERSION'))).toBe(true);
    } finally {
      await db.close();
    }
    expect(existsSync(join(dir, 'payops.lock'))).toBe(false);
  }, 60_000);

  it('that cannot be created fails with the folder named, and releases its lock', async () => {
    const dir = freshDir();
    // A file where the data folder should be: initdb cannot make it.
    writeFileSync(join(dir, 'pgdata'), 'not a folder');
    await expect(openPglite(dir)).rejects.toThrow(
      `could not create the embedded store in ${join(dir, 'pgdata')}`,
    );
    expect(existsSync(join(dir, 'payops.lock'))).toBe(false);
  }, 60_000);
});
