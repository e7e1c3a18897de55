import type {
  PaymentRequest,
  ProviderOutcome,
  Question,
  Reconciliation,
  RequestLabels,
  RequestStatus,
} from '../../domain/approval.ts';
import type { ApprovalChain } from '../../domain/approval-chain.ts';
import type { SupportingDocument } from '../../domain/document.ts';
import type { WriteOperationId } from '../../domain/operations.ts';
import { type Database, iso, type Queryable } from '../database.ts';
import { FOLLOW_STATE, type FollowStateRow, toProviderFollow } from '../follow-store.ts';
import type { PayloadCipher } from '../payload-cipher.ts';

/**
 * A payment request's row and how it reads as a `PaymentRequest`: the one mapping every
 * statement of the request store returns requests through.
 */

/** What a request statement runs on: the database, and the cipher that seals and opens bodies. */
export interface RequestDb {
  db: Database;
  cipher: PayloadCipher;
}

/**
 * Columns are named, never `*`: a prepared statement whose result type changed (a replica
 * migrated a table) fails, and one naming its columns does not.
 */
export const REQUEST_TABLE_COLUMNS = `id, operation_id, path_params, body, fingerprint, hold_key, payment_key, requester_id, document,
  approval_chain, status, required_approvals, created_at, expires_at, updated_at, sent_at, channel_id, message_ts,
  decided_by, reason, outcome, reconciliation, labels, seal, purpose,
  question`;

/** The same columns of a row named `r`. */
export const REQUEST_ROW_COLUMNS = REQUEST_TABLE_COLUMNS.replace(/(\w+)/g, 'r.$1');

/** A request `r` with its approvals and its follow-up: what `toRequest` reads. */
export const REQUEST_COLUMNS = `${REQUEST_ROW_COLUMNS}, coalesce(
    (select json_agg(json_build_object('userId', a.approver_id, 'at', a.approved_at, 'seal', a.seal, 'step', a.step) order by a.approved_at)
       from approvals a where a.request_id = r.id), '[]'::json) as approval_list,
  ${FOLLOW_STATE} as follow_state`;

export const SELECT_REQUEST = `select ${REQUEST_COLUMNS} from payment_requests r`;

export interface RequestRow {
  id: unknown;
  operation_id: string;
  path_params: Record<string, string>;
  body: string | null;
  fingerprint: string;
  hold_key: string;
  payment_key: string | null;
  requester_id: string;
  status: RequestStatus;
  required_approvals: number;
  created_at: Date | string;
  expires_at: Date | string;
  updated_at: Date | string;
  sent_at: Date | string | null;
  channel_id: string | null;
  message_ts: string | null;
  decided_by: string | null;
  reason: string | null;
  outcome: ProviderOutcome | null;
  reconciliation: Reconciliation | null;
  document: SupportingDocument | null;
  labels: RequestLabels | null;
  seal: string | null;
  purpose: string | null;
  question: Question | null;
  approval_chain: ApprovalChain | string | null;
  approval_list: StoredApproval[] | string;
  follow_state?: FollowStateRow | string | null;
}

/** An approval as `approval_list` holds it. */
interface StoredApproval {
  userId: string;
  at: string;
  seal: string | null;
  step?: number | null;
}

export function toRequest(row: RequestRow, cipher: PayloadCipher): PaymentRequest {
  const approvals =
    typeof row.approval_list === 'string' ? JSON.parse(row.approval_list) : row.approval_list;
  return {
    id: Number(row.id),
    operationId: row.operation_id as WriteOperationId,
    path: row.path_params ?? {},
    body: openBody(row.body, cipher),
    fingerprint: row.fingerprint,
    holdKey: row.hold_key,
    paymentKey: row.payment_key ?? undefined,
    requesterId: row.requester_id,
    status: row.status,
    requiredApprovals: row.required_approvals,
    seal: row.seal ?? undefined,
    approvals: (approvals as StoredApproval[]).map((approval) => ({
      userId: approval.userId,
      at: iso(approval.at),
      seal: approval.seal ?? undefined,
      ...(typeof approval.step === 'number' && { step: approval.step }),
    })),
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    channelId: row.channel_id ?? undefined,
    messageTs: row.message_ts ?? undefined,
    decidedBy: row.decided_by ?? undefined,
    reason: row.reason ?? undefined,
    outcome: row.outcome ?? undefined,
    sentAt: row.sent_at ? iso(row.sent_at) : undefined,
    reconciliation: row.reconciliation ?? undefined,
    document: row.document ?? undefined,
    labels: row.labels ?? undefined,
    purpose: row.purpose ?? undefined,
    ...(row.approval_chain && {
      chain:
        typeof row.approval_chain === 'string'
          ? (JSON.parse(row.approval_chain) as ApprovalChain)
          : row.approval_chain,
    }),
    question: row.question ?? undefined,
    follow: toProviderFollow(row.follow_state),
    updatedAt: iso(row.updated_at),
  };
}

export function openBody(body: string | null, cipher: PayloadCipher): string | undefined {
  return body === null ? undefined : cipher.open(body);
}

/** The request `id` as it is now (in `db`'s transaction, if it is one). */
export async function loadRequest(
  db: Queryable,
  { cipher, id }: { cipher: PayloadCipher; id: number },
): Promise<PaymentRequest | undefined> {
  const [row] = await db.query<RequestRow>(`${SELECT_REQUEST} where r.id = $1`, [id]);
  return row ? toRequest(row, cipher) : undefined;
}
