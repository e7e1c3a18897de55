import { canTransition, type RequestStatus } from '../../domain/approval.ts';
import type { Queryable } from '../database.ts';
import { iso } from '../database.ts';

/** An audit row's columns as every statement that writes one names them. */
export const INSERT_AUDIT =
  'insert into audit_log (request_id, actor, event, from_status, to_status, fingerprint, detail)';

const AUDIT_COLUMNS =
  'id, at, request_id, actor, event, from_status, to_status, fingerprint, detail';

export interface AuditEntry {
  id: number;
  at: string;
  requestId: number | undefined;
  actor: string;
  event: string;
  fromStatus: string | undefined;
  toStatus: string | undefined;
  fingerprint: string | undefined;
  detail: Record<string, unknown> | undefined;
}

/** An audit row to write: `requestId` undefined for a change of no one request (a freeze). */
export interface NewAuditEntry {
  requestId: number | undefined;
  actor: string;
  event: string;
  fromStatus?: string | undefined;
  toStatus?: string | undefined;
  fingerprint?: string | undefined;
  detail?: Record<string, unknown> | undefined;
}

/** Written in the change's own transaction; a change of status is checked first. */
export async function audit(db: Queryable, entry: NewAuditEntry): Promise<void> {
  const { requestId, fromStatus, toStatus } = entry;
  if (fromStatus && toStatus && fromStatus !== toStatus) {
    assertTransition(requestId, fromStatus as RequestStatus, toStatus as RequestStatus);
  }
  await db.query(
    `${INSERT_AUDIT}
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      requestId ?? null,
      entry.actor,
      entry.event,
      fromStatus ?? null,
      toStatus ?? null,
      entry.fingerprint ?? null,
      entry.detail ? JSON.stringify(entry.detail) : null,
    ],
  );
}

/**
 * Every status change is checked here before its SQL runs: one outside the state machine
 * aborts its transaction.
 */
export function assertTransition(
  requestId: number | undefined,
  from: RequestStatus,
  to: RequestStatus,
): void {
  if (!canTransition(from, to)) {
    throw new Error(
      `request ${requestId}: ${from} → ${to} is not a transition of the state machine`,
    );
  }
}

export async function requestHistory(
  db: Queryable,
  { requestId }: { requestId: number },
): Promise<AuditEntry[]> {
  const rows = await db.query<AuditRow>(
    `select ${AUDIT_COLUMNS} from audit_log where request_id = $1 order by id`,
    [requestId],
  );
  return rows.map(toAuditEntry);
}

/**
 * The whole audit log, oldest first, a page of at most `pageSize` entries at a time (keyset:
 * each page one bounded query, however long the log), ending with the newest.
 */
export async function* auditLog(
  db: Queryable,
  { pageSize }: { pageSize: number },
): AsyncGenerator<AuditEntry[]> {
  let after = 0;
  for (;;) {
    const rows = await db.query<AuditRow>(
      `select ${AUDIT_COLUMNS} from audit_log where id > $1 order by id limit $2`,
      [after, pageSize],
    );
    if (rows.length === 0) return;
    const page = rows.map(toAuditEntry);
    yield page;
    after = (page.at(-1) as AuditEntry).id;
    if (rows.length < pageSize) return;
  }
}

interface AuditRow {
  id: unknown;
  at: Date | string;
  request_id: unknown;
  actor: string;
  event: string;
  from_status: string | null;
  to_status: string | null;
  fingerprint: string | null;
  detail: Record<string, unknown> | null;
}

function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    at: iso(row.at),
    requestId: row.request_id === null ? undefined : Number(row.request_id),
    actor: row.actor,
    event: row.event,
    fromStatus: row.from_status ?? undefined,
    toStatus: row.to_status ?? undefined,
    fingerprint: row.fingerprint ?? undefined,
    detail: row.detail ?? undefined,
  };
}
