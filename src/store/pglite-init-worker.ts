import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/**
 * Creates a fresh PGlite folder (initdb) and closes it, in a short-lived worker thread: initdb's
 * wasm memory, which a process otherwise keeps, goes back to the OS when this thread ends.
 */
const { pgdata, config } = workerData as { pgdata: string; config: string };
const db = await PGlite.create(pgdata, { postgresqlconf: config });
await db.close();
parentPort?.postMessage('initialised');
