import type { PaymentRequest } from '../../domain/approval.ts';
import type { Queryable } from '../database.ts';
import { iso } from '../database.ts';
import { enqueueCardUpdate } from '../outbox-store.ts';
import { audit } from './audit.ts';
import { REQUEST_COLUMNS, type RequestDb, type RequestRow, toRequest } from './rows.ts';

/** The kill switch: while frozen, no request is claimed and no claimed one is sent. */

export interface FreezeState {
  frozen: boolean;
  reason: string | undefined;
  changedBy: string | undefined;
  changedAt: string | undefined;
}

/** The kill switch's row (`freeze_state f`), as `FreezeRow` reads it. */
const FREEZE_COLUMNS = `f.frozen as freeze_frozen, f.reason as freeze_reason,
  f.changed_by as freeze_changed_by, f.changed_at as freeze_changed_at`;

/**
 * A request and the kill switch in one round trip, with the request's version, which an
 * approval checks its write against.
 */
const SELECT_REQUEST_AND_FREEZE = `
  select ${REQUEST_COLUMNS}, ${FREEZE_COLUMNS}, r.version
  from payment_requests r cross join freeze_state f
  where f.id = 1 and r.id = $1`;

interface FreezeRow {
  freeze_frozen: boolean;
  freeze_reason: string | null;
  freeze_changed_by: string | null;
  freeze_changed_at: Date | string | null;
}

export async function readFreeze(db: Queryable): Promise<FreezeState> {
  const [row] = await db.query<FreezeRow>(
    `select ${FREEZE_COLUMNS} from freeze_state f where f.id = 1`,
  );
  return row
    ? toFreeze(row)
    : { frozen: false, reason: undefined, changedBy: undefined, changedAt: undefined };
}

export function setFreeze(
  { db }: RequestDb,
  { frozen, actor, reason }: { frozen: boolean; actor: string; reason: string | undefined },
): Promise<FreezeState> {
  return db.transaction(async (tx) => {
    await tx.query(
      'update freeze_state set frozen = $1, reason = $2, changed_by = $3, changed_at = now() where id = 1',
      [frozen, reason ?? null, actor],
    );
    // Every pending card shows the freeze while it lasts, and stops when it ends.
    await tx.query(enqueueCardUpdate("payment_requests where status = 'pending'"));
    await audit(tx, {
      requestId: undefined,
      actor,
      event: frozen ? 'frozen' : 'unfrozen',
      detail: reason ? { reason } : undefined,
    });
    return readFreeze(tx);
  });
}

/** The request `id` and the freeze as they are now, and the version of the request read. */
export async function loadWithFreeze(
  { db, cipher }: RequestDb,
  { id }: { id: number },
): Promise<{ request: PaymentRequest; freeze: FreezeState; version: string } | undefined> {
  const [row] = await db.query<RequestRow & FreezeRow & { version: unknown }>(
    SELECT_REQUEST_AND_FREEZE,
    [id],
  );
  if (!row) return undefined;
  return { request: toRequest(row, cipher), freeze: toFreeze(row), version: String(row.version) };
}

function toFreeze(row: FreezeRow): FreezeState {
  return {
    frozen: row.freeze_frozen,
    reason: row.freeze_reason ?? undefined,
    changedBy: row.freeze_changed_by ?? undefined,
    changedAt: row.freeze_changed_at ? iso(row.freeze_changed_at) : undefined,
  };
}
