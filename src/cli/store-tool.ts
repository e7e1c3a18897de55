import { ConfigError, loadStoreToolConfig, type StoreToolConfig } from '../config.ts';
import { Signer } from '../domain/signer.ts';
import { createLogger } from '../logger.ts';
import type { Database } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { openStore } from '../store/open-store.ts';

/**
 * Runs `work` on the configured store (PAYOPS_DATA_DIR or DATABASE_URL, and the keys), migrated,
 * and resolves with its exit code: 2 when the configuration is invalid. An embedded store must
 * not be in use by a running payops (its folder is locked).
 */
export async function withStore(
  command: string,
  work: (db: Database, config: StoreToolConfig) => Promise<number>,
): Promise<number> {
  let config: StoreToolConfig;
  try {
    config = loadStoreToolConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`payops ${command}: ${error.message}`);
    return 2;
  }
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', secrets: [] });
  const signer = new Signer(config.signingKey);
  const db = await openStore(config.store, signer.auditKey, logger, {
    onLost() {
      console.error(`payops ${command}: another process took the store over; stopped.`);
      process.exit(1);
    },
  });
  try {
    await migrate(db);
    return await work(db, config);
  } finally {
    await db.close();
  }
}
