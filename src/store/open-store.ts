import type { Logger } from '../logger.ts';
import { auditSessionSettings } from './audit-chain.ts';
import { applySessionSettings, type Database } from './database.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';

/**
 * PostgreSQL when DATABASE_URL is set; embedded PGlite otherwise (`memory://` keeps nothing).
 * Every session carries the audit chain's key (`auditKey`).
 */
export async function openStore(
  store: { databaseUrl: string | undefined; dataDir: string; mustExist: boolean },
  auditKey: Buffer,
  logger: Logger,
): Promise<Database> {
  const session = auditSessionSettings(auditKey);
  if (store.databaseUrl) return openPostgres(store.databaseUrl, { session });
  const { dataDir, mustExist } = store;
  const db = await openPglite(dataDir === 'memory://' ? undefined : dataDir, {
    logger,
    mustExist,
  });
  await applySessionSettings(db, session);
  return db;
}
