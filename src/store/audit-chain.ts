import { createHmac } from 'node:crypto';
import type { Database, Queryable, SessionSettings } from './database.ts';

/**
 * The audit log's hash chain (migration 0008): each row sealed with an HMAC-SHA256 over its
 * content and the seal of the row before it, by a trigger, with a key the database does not keep.
 */

const HMAC_BLOCK_BYTES = 64;

/**
 * The chain key as the trigger takes it: HMAC's inner and outer padded keys, so PostgreSQL's
 * own `sha256` computes exactly `createHmac('sha256', auditKey)` and needs no extension.
 */
export function auditSessionSettings(auditKey: Buffer): SessionSettings {
  if (auditKey.length > HMAC_BLOCK_BYTES) throw new RangeError('the audit key is too long');
  const padded = Buffer.alloc(HMAC_BLOCK_BYTES);
  auditKey.copy(padded);
  const xor = (byte: number) => Buffer.from(padded.map((value) => value ^ byte)).toString('hex');
  return { 'payops.audit_ikey': xor(0x36), 'payops.audit_okey': xor(0x5c) };
}

export interface AuditVerification {
  ok: boolean;
  /** Rows read. */
  rows: number;
  /** The chain's last position and seal as the database's head says: record it to compare later. */
  head: { seq: number; hash: string };
  /** What is wrong, each naming the row (first `MAX_PROBLEMS`). */
  problems: string[];
}

const PAGE_ROWS = 5_000;
const MAX_PROBLEMS = 50;

interface ChainRow {
  id: unknown;
  chain_seq: unknown;
  prev_hash: string | null;
  row_hash: string | null;
  message: string;
}

/**
 * Reads the whole log in chain order, a page at a time, and checks every seal and link: an
 * edited row, a deleted one (a gap, or a link to the wrong row), one inserted outside the chain
 * (no position, or one below 1 or past the head) or without payops's key, and a cut tail (the
 * head ahead of the last row) are each named. It reads one snapshot: rows payops adds meanwhile
 * are neither missing nor past the head.
 */
export async function verifyAuditChain(db: Database, auditKey: Buffer): Promise<AuditVerification> {
  return db.transaction(async (tx) => {
    await tx.query('set transaction isolation level repeatable read, read only');
    return verifySnapshot(tx, auditKey);
  });
}

async function verifySnapshot(db: Queryable, auditKey: Buffer): Promise<AuditVerification> {
  const problems: string[] = [];
  const report = (problem: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(problem);
    else if (problems.length === MAX_PROBLEMS) problems.push('… and more');
  };
  const seal = (message: string) => createHmac('sha256', auditKey).update(message).digest('hex');

  const [head] = await db.query<{ seq: unknown; hash: string }>(
    'select seq, hash from audit_chain_head where id = 1',
  );
  const headSeq = Number(head?.seq ?? 0);

  // The chain's positions run from 1 to the head: the walk below starts past 0.
  const outside = await db.query<{ id: unknown; chain_seq: unknown }>(
    'select id, chain_seq from audit_log where chain_seq is null or chain_seq < 1 order by id limit $1',
    [MAX_PROBLEMS],
  );
  for (const row of outside) {
    report(
      row.chain_seq === null
        ? `row id ${row.id} is outside the chain: inserted with its trigger disabled`
        : `row id ${row.id} is outside the chain: its chain position ${row.chain_seq} is below 1, where the chain starts`,
    );
  }

  let rows = outside.length;
  let previous: { id: number; seq: number; hash: string } = { id: 0, seq: 0, hash: '' };
  for (;;) {
    const page = await db.query<ChainRow>(
      `select a.id, a.chain_seq, a.prev_hash, a.row_hash, audit_log_message(a) as message
         from audit_log a where a.chain_seq > $1 order by a.chain_seq limit $2`,
      [previous.seq, PAGE_ROWS],
    );
    for (const row of page) {
      const id = Number(row.id);
      const seq = Number(row.chain_seq);
      rows++;
      const after = previous.id ? `after row id ${previous.id}` : 'at the start of the log';
      if (seq !== previous.seq + 1) {
        const missing = seq - previous.seq - 1;
        report(
          `${missing} row${missing === 1 ? '' : 's'} deleted ${after}, before row id ${id} (chain positions ${previous.seq + 1}–${seq - 1})`,
        );
      } else if (row.prev_hash !== previous.hash) {
        report(
          `row id ${id} does not follow row id ${previous.id}: a row between them was replaced`,
        );
      }
      if (seq > headSeq) {
        report(
          `row id ${id} (chain position ${seq}) is past the chain's head (position ${headSeq})`,
        );
      }
      if (row.row_hash !== seal(row.message)) {
        report(`row id ${id} (chain position ${seq}) was changed, or written without payops's key`);
      }
      previous = { id, seq, hash: row.row_hash ?? '' };
    }
    if (page.length < PAGE_ROWS) break;
  }

  if (headSeq > previous.seq) {
    report(
      `the last ${headSeq - previous.seq} row(s) were deleted, after row id ${previous.id || 'none'} (the chain had reached position ${headSeq})`,
    );
  } else if (headSeq < previous.seq || (head?.hash ?? '') !== previous.hash) {
    report(`the chain's head (position ${headSeq}) does not match its last row id ${previous.id}`);
  }
  return {
    ok: problems.length === 0,
    rows,
    head: { seq: headSeq, hash: head?.hash ?? '' },
    problems,
  };
}
