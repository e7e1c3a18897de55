import { mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import type { ObservedKind } from '../../src/rehearsal/observer.ts';

/**
 * What payops showed the world during a test run, kept for the suite's leak scan
 * (test/e2e/leak-scan.test.ts): when PAYOPS_LEAK_SCAN_DIR names a folder, the rehearsals'
 * observer (installed by test/setup/leak-trail.ts) appends there every Slack call,
 * response_url post, uploaded file and answer the bot sent, and every log line; payops
 * processes' output is added by test/helpers/bot-process.ts. Unset, nothing is kept.
 */
export const LEAK_SCAN_DIR_VARIABLE = 'PAYOPS_LEAK_SCAN_DIR';

export type TrailKind = ObservedKind;

/**
 * One file per kind and per process (or worker thread), left open to the end; written
 * synchronously, so nothing is lost when a test worker exits.
 */
const open = new Map<string, number>();

/**
 * Appends one record of `kind` when the leak scan is on: text as it is, bytes as UTF-8, anything
 * else as JSON (only then encoded, so an unscanned run pays nothing).
 */
export function keepForLeakScan(kind: TrailKind, record: unknown): void {
  const dir = process.env[LEAK_SCAN_DIR_VARIABLE];
  if (!dir) return;
  const path = join(dir, `${kind}.${process.pid}-${threadId}.txt`);
  let fd = open.get(path);
  if (fd === undefined) {
    mkdirSync(dir, { recursive: true });
    fd = openSync(path, 'a');
    open.set(path, fd);
  }
  const text =
    typeof record === 'string'
      ? record
      : Buffer.isBuffer(record)
        ? record.toString('utf8')
        : JSON.stringify(record);
  writeSync(fd, `${text}\n`);
}

/** Whether the leak scan is on for this process. */
export function leakScanOn(): boolean {
  return Boolean(process.env[LEAK_SCAN_DIR_VARIABLE]);
}
