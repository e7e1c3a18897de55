import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { DataDirLocked, lockDataDir } from '../../src/store/folder-lock.ts';
import { NoStore, openPglite, STORE_MARKER, StoreMissing } from '../../src/store/pglite.ts';
import { TEMPLATES, templateName } from '../../src/store/pglite-template.ts';
import { migrationVersions } from '../helpers/db.ts';

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'payops-create-'));
}

/** A logger whose lines are kept, parsed. */
function collectingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger({
    level: 'info',
    secrets: [],
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

describe('a fresh embedded store folder', () => {
  it('is created and migrated before it is opened here, at the current schema, saying so loudly with its path', async () => {
    const dir = freshDir();
    const { logger, lines } = collectingLogger();
    const db = await openPglite(dir, { logger });
    try {
      const versions = await db.query<{ version: string }>(
        'select version from schema_migrations order by version',
      );
      expect(versions.map((row) => row.version)).toEqual(migrationVersions());
      expect(existsSync(join(dir, 'pgdata', 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(dir, STORE_MARKER))).toBe(true);
    } finally {
      await db.close();
    }
    expect(existsSync(join(dir, 'payops.lock'))).toBe(false);
    const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg);
    expect(warnings).toEqual([expect.stringContaining(`Creating a NEW empty store in ${dir}`)]);
  }, 60_000);

  it('is created anew after a creation cut short, whose leftovers are removed', async () => {
    const dir = freshDir();
    // What a creation killed half-way leaves: a folder under its working name.
    mkdirSync(join(dir, 'pgdata.creating'));
    writeFileSync(join(dir, 'pgdata.creating', 'half-written'), 'x');
    const db = await openPglite(dir);
    try {
      expect(await db.query('select version from schema_migrations')).toHaveLength(
        migrationVersions().length,
      );
      expect(existsSync(join(dir, 'pgdata.creating'))).toBe(false);
    } finally {
      await db.close();
    }
  }, 60_000);

  it("starts from the store template made for these migrations, which kept the migrations' times", async () => {
    const opened = new Date();
    const db = await openPglite(freshDir());
    try {
      const times = await db.query<{ applied_at: Date }>(
        'select applied_at from schema_migrations',
      );
      expect(times).toHaveLength(migrationVersions().length);
      expect(times.filter((row) => row.applied_at >= opened)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('without a template for these migrations, is made with initdb and every migration, and the log says so', async () => {
    // A template for other migrations is there, under its own name: it is not used.
    const templates = freshDir();
    copyFileSync(join(TEMPLATES, templateName()), join(templates, 'store-0123456789abcdef.tar.gz'));
    const { logger, lines } = collectingLogger();
    const db = await openPglite(freshDir(), { logger, templates });
    try {
      const versions = await db.query<{ version: string }>(
        'select version from schema_migrations order by version',
      );
      expect(versions.map((row) => row.version)).toEqual(migrationVersions());
    } finally {
      await db.close();
    }
    expect(lines.filter((line) => line.level === 30).map((line) => line.msg)).toEqual([
      `No store template for these migrations in ${templates} (npm run build makes it): the new store is made with initdb and every migration, which takes seconds`,
    ]);
  }, 120_000);

  it('that cannot be created fails with the folder named, and releases its lock', async () => {
    const dir = freshDir();
    // A file where the data folder should be: initdb cannot make it.
    writeFileSync(join(dir, 'pgdata'), 'not a folder');
    // With the child's own reason after the folder: it ran, and said why.
    await expect(openPglite(dir)).rejects.toThrow(
      new RegExp(`could not create the embedded store in ${join(dir, 'pgdata')}: \\S`),
    );
    expect(existsSync(join(dir, 'payops.lock'))).toBe(false);
  }, 60_000);
});

describe('an embedded store folder that held a store', () => {
  it('is opened without a word, and refuses to start once its store is gone, saying where to look', async () => {
    const dir = freshDir();
    await (await openPglite(dir)).close();
    // A store made before the marker existed gets one at its next start.
    rmSync(join(dir, STORE_MARKER));
    const { logger, lines } = collectingLogger();
    await (await openPglite(dir, { logger })).close();
    expect(lines).toEqual([]);
    expect(existsSync(join(dir, STORE_MARKER))).toBe(true);

    renameSync(join(dir, 'pgdata'), join(dir, 'elsewhere'));
    const refused = openPglite(dir, { logger });
    await expect(refused).rejects.toThrow(StoreMissing);
    await expect(refused).rejects.toThrow(`its store ${join(dir, 'pgdata')} is missing`);
    expect(existsSync(join(dir, 'pgdata'))).toBe(false);
    expect(existsSync(join(dir, 'payops.lock'))).toBe(false);

    // An empty pgdata (a volume mounted there and gone, say) is no store either.
    rmSync(join(dir, STORE_MARKER));
    mkdirSync(join(dir, 'pgdata'));
    await expect(openPglite(dir)).rejects.toThrow(
      `${join(dir, 'pgdata')} exists but holds no store`,
    );
    expect(existsSync(join(dir, 'pgdata', 'PG_VERSION'))).toBe(false);
  }, 90_000);
});

describe('an empty folder where a store must exist', () => {
  it('refuses to start, and creates nothing', async () => {
    const dir = freshDir();
    await expect(openPglite(dir, { mustExist: true })).rejects.toThrow(
      new RegExp(`^There is no store in ${dir}, and PAYOPS_STORE_MUST_EXIST is true`),
    );
    expect(existsSync(join(dir, 'pgdata'))).toBe(false);
    expect(existsSync(join(dir, 'pgdata.creating'))).toBe(false);
    // Not even the lock's files.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('that is not there is not created', async () => {
    const missing = join(freshDir(), 'not', 'mounted');
    await expect(openPglite(missing, { mustExist: true })).rejects.toThrow(NoStore);
    expect(existsSync(join(missing, '..'))).toBe(false);
  });
});

describe("the embedded store's folder", () => {
  it("is its owner's alone once opened, whatever it was made with: no file others may read", async () => {
    const dir = freshDir();
    chmodSync(dir, 0o755);
    const db = await openPglite(dir);
    try {
      await db.exec('create table sealed (secret text); insert into sealed values ($$x$$)');
    } finally {
      await db.close();
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) =>
      join(dir, name),
    );
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((path) => (statSync(path).mode & 0o077) !== 0)).toEqual([]);
  }, 60_000);
});

describe('the embedded store and its folder lock', () => {
  it('is not opened while another process holds the folder', async () => {
    const dir = freshDir();
    const lock = await lockDataDir(dir);
    try {
      await expect(openPglite(dir)).rejects.toThrow(DataDirLocked);
    } finally {
      lock.release();
    }
  });
});

describe('statements queued on the embedded store', () => {
  it('leave the event loop a turn while they run, not only once the last is done', async () => {
    const db = await openPglite(undefined);
    try {
      await db.exec('create table t (id int primary key)');
      await db.exec('insert into t select generate_series(1, 500)');
      let finished = 0;
      const reads = Array.from({ length: 500 }, (_, index) =>
        db.query('select id from t where id = $1', [index + 1]).then(() => finished++),
      );
      // I/O callbacks and timers run in turns of the event loop, like this one.
      const finishedAtFirstTurn = await new Promise<number>((resolve) =>
        setImmediate(() => resolve(finished)),
      );
      await Promise.all(reads);
      expect(finishedAtFirstTurn).toBeLessThan(500);
    } finally {
      await db.close();
    }
  });

  it('are all done before the store closes, however many were queued', async () => {
    const db = await openPglite(undefined);
    await db.exec('create table t (id int primary key)');
    const inserts = Array.from({ length: 200 }, (_, index) =>
      db.query('insert into t (id) values ($1)', [index + 1]),
    );
    const closed = db.close();
    const outcomes = await Promise.allSettled(inserts);
    await closed;
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(200);
  });
});

describe('statements on the embedded store', () => {
  it('report a failing statement with PostgreSQL’s words and keep answering after it', async () => {
    const db = await openPglite(undefined);
    try {
      await expect(db.query('selec 1', [])).rejects.toThrow(/syntax error/);
      await expect(db.query('selec 1', [])).rejects.toThrow(/syntax error/);
      const divide = 'select 10 / $1::int as q';
      await expect(db.query(divide, [0])).rejects.toThrow(/division by zero/);
      expect(await db.query(divide, [5])).toEqual([{ q: 2 }]);
    } finally {
      await db.close();
    }
    await expect(db.query('select 1', [])).rejects.toThrow('PGlite is closed');
  });
});
