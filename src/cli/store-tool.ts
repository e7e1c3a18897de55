import { ConfigError, loadStoreToolConfig, type StoreToolConfig, secretsOf } from '../config.ts';
import { registerSecrets, withoutSecrets } from '../domain/scrub.ts';
import { Signer } from '../domain/signer.ts';
import { createLogger } from '../logger.ts';
import type { Database } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { openStore } from '../store/open-store.ts';

/** Exit code of a store tool that could not do its work: the store, not what it holds. */
export const COULD_NOT_RUN = 3;

/**
 * Runs `work` on the configured store (PAYOPS_DATA_DIR or DATABASE_URL, and the keys), migrated,
 * and resolves with its exit code: 2 when the configuration is invalid, COULD_NOT_RUN when the
 * store could not be opened or the work failed. An embedded store must not be in use by a
 * running payops (its folder is locked).
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
  const secrets = secretsOf(config);
  registerSecrets(secrets);
  const logger = createLogger({ level: config.logLevel, secrets });
  const signer = new Signer(config.signingKey);
  let db: Database | undefined;
  try {
    db = await openStore(config.store, signer.auditKey, logger, {
      onLost() {
        console.error(`payops ${command}: another process took the store over; stopped.`);
        process.exit(COULD_NOT_RUN);
      },
    });
    await migrate(db);
    return await work(db, config);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`payops ${command}: could not finish: ${withoutSecrets(reason)}`);
    return COULD_NOT_RUN;
  } finally {
    await db?.close();
  }
}
