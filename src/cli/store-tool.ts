import { ConfigError, loadStoreToolConfig, type StoreToolConfig, secretsOf } from '../config.ts';
import { registerSecrets, withoutSecrets } from '../domain/scrub.ts';
import { Signer } from '../domain/signer.ts';
import { createLogger } from '../logger.ts';
import type { Database } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { openStore } from '../store/open-store.ts';
import { NoStore } from '../store/pglite.ts';

/** Exit code of a store tool that could not do its work: the store, not what it holds. */
export const COULD_NOT_RUN = 3;

/**
 * Runs `work` on the configured store (PAYOPS_DATA_DIR or DATABASE_URL, and the keys), migrated,
 * and resolves with its exit code: 2 when the configuration is invalid, COULD_NOT_RUN when the
 * store could not be opened or the work failed. An embedded store must not be in use by a
 * running payops (its folder is locked). A tool never creates a store: where there is none (a
 * mistyped PAYOPS_DATA_DIR or DATABASE_URL), it writes nothing and exits COULD_NOT_RUN.
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
    db = await openStore({ ...config.store, mustExist: true }, signer.auditKey, logger);
    // An embedded store that exists was migrated when it was made: this is a database's case.
    if (!(await holdsSchema(db))) {
      console.error(
        `payops ${command}: ${noStore('the database DATABASE_URL names', 'DATABASE_URL')}`,
      );
      return COULD_NOT_RUN;
    }
    await migrate(db);
    return await work(db, config);
  } catch (error) {
    if (error instanceof NoStore) {
      console.error(`payops ${command}: ${noStore(error.folder, 'PAYOPS_DATA_DIR')}`);
      return COULD_NOT_RUN;
    }
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`payops ${command}: could not finish: ${withoutSecrets(reason)}`);
    return COULD_NOT_RUN;
  } finally {
    await db?.close();
  }
}

function noStore(where: string, variable: string): string {
  return `there is no payops store in ${where}: check ${variable}. Nothing was written (a store tool never creates a store).`;
}

/** Whether payops's tables are there: an empty database is no store, and is left empty. */
async function holdsSchema(db: Database): Promise<boolean> {
  const [bookkept] = await db.query<{ table: string | null }>(
    "select to_regclass('schema_migrations')::text as table",
  );
  return Boolean(bookkept?.table);
}
