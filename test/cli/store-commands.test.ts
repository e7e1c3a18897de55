import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEnv, loadStoreToolConfig } from '../../src/config.ts';
import { Signer } from '../../src/domain/signer.ts';
import { createLogger } from '../../src/logger.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openStore } from '../../src/store/open-store.ts';
import { PayloadCipher } from '../../src/store/payload-cipher.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { engines, freshDatabase } from '../helpers/db.ts';
import { checks, newRequest } from '../helpers/requests.ts';

/** `payops audit verify` and `payops rotate-key`, run as an operator would, on a stopped store. */

const run = promisify(execFile);
let dataDir: string;
let env: Record<string, string>;

async function payops(...args: string[]) {
  const result = await run(process.execPath, ['--import', 'tsx', 'src/cli/payops.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: result.code, output: result.stdout + result.stderr };
}

/** The store as payops opens it, for `work`, then closed (its folder unlocked). */
async function onStore<T>(
  work: (store: RequestStore, db: Awaited<ReturnType<typeof openStore>>) => Promise<T>,
) {
  const config = loadStoreToolConfig(env);
  const signer = new Signer(config.signingKey);
  const db = await openStore(
    config.store,
    signer.auditKey,
    createLogger({ level: 'silent', secrets: [] }),
  );
  try {
    await migrate(db);
    return await work(new RequestStore(db, new PayloadCipher(config.encryption)), db);
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payops-store-commands-'));
  env = { PAYOPS_DATA_DIR: dataDir, ...generateKeyEnv() };
  await onStore(async (store) => {
    for (let index = 0; index < 2; index++) {
      const request = await store.create(newRequest());
      await store.approve(request.id, 'U0BOB', 'test', checks());
    }
  });
}, 60_000);
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('payops audit verify', () => {
  it('says an intact log is intact, with its head', { timeout: 60_000 }, async () => {
    const { code, output } = await payops('audit', 'verify');
    expect(output).toMatch(/audit log intact: 6 rows.*head: position 6, seal [0-9a-f]{64}/);
    expect(code).toBe(0);
  });

  it('names a row edited behind its back, and exits 1', { timeout: 60_000 }, async () => {
    const edited = await onStore(async (_store, db) => {
      const [row] = await db.query<{ id: unknown }>(
        'select id from audit_log order by id offset 2 limit 1',
      );
      await db.exec('alter table audit_log disable trigger audit_log_no_update');
      await db.query(`update audit_log set actor = 'U0MALLORY' where id = $1`, [row?.id]);
      await db.exec('alter table audit_log enable trigger audit_log_no_update');
      return Number(row?.id);
    });
    const { code, output } = await payops('audit', 'verify');
    expect(output).toContain(`row id ${edited} (chain position 3) was changed`);
    expect(code).toBe(1);
  });

  it('with its store in use, says it could not read it, without a stack trace, and exits 3', {
    timeout: 60_000,
  }, async () => {
    const { code, output } = await onStore(() => payops('audit', 'verify'));
    expect(output).toMatch(
      /^payops audit verify: could not finish: .*is in use by another payops process/m,
    );
    expect(output).not.toMatch(/\n\s+at /);
    expect(code).toBe(3);
  });

  it('refuses a LOG_LEVEL it does not know as the bot does (exit 2)', {
    timeout: 60_000,
  }, async () => {
    const saved = env;
    env = { ...env, LOG_LEVEL: 'loud' };
    try {
      const { code, output } = await payops('audit', 'verify');
      expect(output).toContain('LOG_LEVEL must be one of');
      expect(code).toBe(2);
    } finally {
      env = saved;
    }
  });

  it('refuses without its keys, naming what is missing', { timeout: 60_000 }, async () => {
    const saved = env;
    env = { PAYOPS_DATA_DIR: dataDir };
    try {
      const { code, output } = await payops('audit', 'verify');
      expect(output).toMatch(/PAYOPS_SIGNING_KEY/);
      expect(code).toBe(2);
    } finally {
      env = saved;
    }
  });
});

describe('payops rotate-key', () => {
  it('moves every payload to the new key; the old one may then go', {
    timeout: 60_000,
  }, async () => {
    const oldKey = env.PAYOPS_ENCRYPTION_KEY as string;
    const newKey = `k2:${generateKeyEnv().PAYOPS_ENCRYPTION_KEY.split(':')[1]}`;
    env = { ...env, PAYOPS_ENCRYPTION_KEY: newKey, PAYOPS_ENCRYPTION_OLD_KEYS: oldKey };
    const { code, output } = await payops('rotate-key');
    expect(output).toContain('re-encrypted 2 stored payload(s) with key k2');
    expect(code).toBe(0);
    env = { ...env, PAYOPS_ENCRYPTION_OLD_KEYS: '' };
    const bodies = await onStore(async (store) => [
      (await store.get(1))?.body,
      (await store.get(2))?.body,
    ]);
    expect(bodies.every((body) => body?.includes('"wallet_id"'))).toBe(true);
  });
});

describe('a store tool where there is no store', () => {
  /** `payops <args>` with `override` on the store's variables: its exit code and output. */
  async function withoutStore(override: Record<string, string>, ...args: string[]) {
    const saved = env;
    env = { ...env, ...override };
    try {
      return await payops(...args);
    } finally {
      env = saved;
    }
  }

  it.each(['audit verify', 'rotate-key'])(
    'payops %s with a mistyped PAYOPS_DATA_DIR creates nothing, and exits 3',
    { timeout: 60_000 },
    async (command) => {
      const mistyped = join(dataDir, 'dta', 'store');
      const { code, output } = await withoutStore(
        { PAYOPS_DATA_DIR: mistyped },
        ...command.split(' '),
      );
      expect(output).toContain(
        `there is no payops store in ${mistyped}: check PAYOPS_DATA_DIR. Nothing was written`,
      );
      expect(output).not.toMatch(/intact|re-encrypted/);
      expect(code).toBe(3);
      expect(existsSync(join(dataDir, 'dta'))).toBe(false);
    },
  );

  it('writes nothing in an empty folder either: no lock, no store', {
    timeout: 60_000,
  }, async () => {
    const empty = await mkdtemp(join(tmpdir(), 'payops-no-store-'));
    try {
      const { code } = await withoutStore({ PAYOPS_DATA_DIR: empty }, 'audit', 'verify');
      expect(code).toBe(3);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it.runIf(engines().includes('postgres'))(
    'leaves an empty database empty, and exits 3',
    { timeout: 60_000 },
    async () => {
      const database = await freshDatabase('postgres', { migrated: false });
      try {
        const { code, output } = await withoutStore(
          { DATABASE_URL: database.url as string },
          'audit',
          'verify',
        );
        expect(output).toContain('there is no payops store in the database DATABASE_URL names');
        expect(code).toBe(3);
        const tables = await database.db.query(
          "select 1 from information_schema.tables where table_schema = 'public'",
        );
        expect(tables).toEqual([]);
      } finally {
        await database.drop();
      }
    },
  );
});

describe("the embedded store's files", () => {
  it("are its owner's alone: the folder 0700, every file in it 0600", () => {
    const open = (path: string): string[] =>
      readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
        const inside = join(path, entry.name);
        return entry.isDirectory() ? [inside, ...open(inside)] : [inside];
      });
    const everything = [dataDir, ...open(dataDir)];
    expect(everything.length).toBeGreaterThan(100);
    const shared = everything.filter((path) => (statSync(path).mode & 0o077) !== 0);
    expect(shared).toEqual([]);
  });
});
