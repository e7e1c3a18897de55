import type { PaymentRequest, RequestLabels } from '../../domain/approval.ts';
import type { ApprovalChain } from '../../domain/approval-chain.ts';
import type { SupportingDocument } from '../../domain/document.ts';
import type { WriteOperationId } from '../../domain/operations.ts';
import type { Queryable } from '../database.ts';
import type { AnswerTarget } from '../outbox-store.ts';
import { INSERT_AUDIT } from './audit.ts';
import { IN_REQUESTER_WINDOW, IN_WINDOW } from './payees.ts';
import { supersede } from './questions.ts';
import {
  REQUEST_ROW_COLUMNS,
  REQUEST_TABLE_COLUMNS,
  type RequestDb,
  type RequestRow,
  toRequest,
} from './rows.ts';

export interface NewRequest {
  operationId: WriteOperationId;
  path: Record<string, string>;
  body: string | undefined;
  fingerprint: string;
  holdKey: string;
  /** The payment's key (`Signer.paymentKey`), if it pays a destination an amount. */
  paymentKey?: string | undefined;
  /** The keyed tags of the destination paid and of the name it is paid under, if any. */
  payee?: { tag: string; nameTag: string | undefined } | undefined;
  requesterId: string;
  requiredApprovals: number;
  /**
   * Its seal once its number is known (`Signer.requestSeal`): the store holds no key, so it is
   * given the way to seal, not the key.
   */
  sealOf: (id: number) => string;
  expiresAt: Date;
  requesterChannelId: string | undefined;
  labels?: RequestLabels | undefined;
  /** Why the money moves, scrubbed; part of its seal (`sealOf`). */
  purpose?: string | undefined;
  /** The steps its policy rule named; part of its seal (`sealOf`). */
  chain?: ApprovalChain | undefined;
  /** Its supporting document as read; part of its seal, and its hash in the audit chain. */
  document?: SupportingDocument | undefined;
  /** Where the requester's confirmation goes (the outbox delivers it). */
  answerTo?: AnswerTarget | undefined;
  /**
   * The earlier requests to its payee that its policy window counted (`requestsToPayee` since
   * `since`): it is stored only if they are still exactly those, else `WindowChangedError`.
   */
  window?: { since: Date; counted: number[] } | undefined;
  /**
   * The requester's earlier requests to any payee its requester limit counted
   * (`requestsOfRequester` since `since`): stored only if still exactly those, else
   * `WindowChangedError`.
   */
  limit?: { since: Date; counted: number[] } | undefined;
  /**
   * The requester's pending request it replaces, edited and resubmitted: superseded in the same
   * transaction, or `NotSupersededError` and nothing stored.
   */
  supersedes?: number | undefined;
}

/**
 * Not stored: a request to the same payee was made (or left the window) while this one was
 * prepared, so the approvals it needs must be counted again.
 */
export class WindowChangedError extends Error {
  override name = 'WindowChangedError';
}

/**
 * A new request (pending, no approvals yet) with its `requested` audit row, its card and the
 * requester's confirmation, in one statement; returned as `loadRequest` reads it.
 */
const CREATE_REQUEST = `
  with created as (
    insert into payment_requests
      (operation_id, path_params, body, fingerprint, requester_id, required_approvals, expires_at, requester_channel_id, labels, hold_key, payee_tag, payee_name_tag, id, seal, payment_key, purpose, document, approval_chain)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $12, $13, $14, $15, $16, $17, $18, $19, $20)
    returning ${REQUEST_TABLE_COLUMNS}
  ), created_audit as (
    ${INSERT_AUDIT}
    select id, $5, 'requested', null, 'pending', $4, $10 from created
  ), card as (
    insert into slack_outbox (request_id, kind, give_up_at) select id, 'card', expires_at from created
  ), confirmation as (
    -- The response_url of a command lives 30 minutes; an ephemeral later than that helps nobody.
    insert into slack_outbox (request_id, kind, target, give_up_at)
    select id, 'confirmation', $11::jsonb, now() + interval '30 minutes' from created
     where $11::jsonb is not null
  )
  select ${REQUEST_ROW_COLUMNS}, '[]'::json as approval_list
    from created r`;

/**
 * The request and its audit row in one statement, nothing half-written (its number is taken
 * just before, to seal it with). With a window, under a lock per requester and payee, so that
 * two parts of one payment sent at the same moment cannot each be counted without the other
 * (one of them sees the other and fails).
 */
export async function createRequest(
  store: RequestDb,
  { request }: { request: NewRequest },
): Promise<PaymentRequest> {
  const { window, payee, supersedes, limit } = request;
  if (
    (window === undefined || payee === undefined) &&
    supersedes === undefined &&
    limit === undefined
  ) {
    return insertRequest(store.db, store, request);
  }
  return store.db.transaction(async (tx) => {
    // The requester's lock before the payee's, in every transaction: none waits on another.
    if (limit !== undefined) {
      await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `payops.limit:${request.requesterId}`,
      ]);
      const rows = await tx.query<{ id: unknown }>(`select id from ${IN_REQUESTER_WINDOW}`, [
        request.requesterId,
        limit.since.toISOString(),
      ]);
      if (!sameIds(rows, limit.counted)) {
        throw new WindowChangedError(
          'the requests counted by its requester limit changed while it was prepared',
        );
      }
    }
    if (window !== undefined && payee !== undefined) {
      await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `payops.window:${request.requesterId}:${payee.tag}`,
      ]);
      const rows = await tx.query<{ id: unknown }>(`select id from ${IN_WINDOW}`, [
        request.requesterId,
        payee.tag,
        window.since.toISOString(),
      ]);
      if (!sameIds(rows, window.counted)) {
        throw new WindowChangedError(
          'the requests counted by its policy window changed while it was prepared',
        );
      }
    }
    const created = await insertRequest(tx, store, request);
    // After the window's check, which counted the old request as it was while prepared.
    if (supersedes !== undefined) {
      await supersede(tx, {
        oldId: supersedes,
        newId: created.id,
        requesterId: request.requesterId,
      });
    }
    return created;
  });
}

/** Whether the rows read are exactly the requests counted, in any order. */
function sameIds(rows: ReadonlyArray<{ id: unknown }>, counted: readonly number[]): boolean {
  const current = rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  return current.join() === [...counted].sort((a, b) => a - b).join();
}

/** The number the next request takes: taken first, so that the request is stored sealed. */
const NEXT_REQUEST_ID = `select nextval(pg_get_serial_sequence('payment_requests', 'id')) as id`;

async function insertRequest(
  db: Queryable,
  { cipher }: Pick<RequestDb, 'cipher'>,
  request: NewRequest,
): Promise<PaymentRequest> {
  const [next] = await db.query<{ id: unknown }>(NEXT_REQUEST_ID);
  const id = Number(next?.id);
  const [row] = await db.query<RequestRow>(CREATE_REQUEST, [
    request.operationId,
    JSON.stringify(request.path),
    request.body === undefined ? null : cipher.seal(request.body),
    request.fingerprint,
    request.requesterId,
    request.requiredApprovals,
    request.expiresAt.toISOString(),
    request.requesterChannelId ?? null,
    request.labels ? JSON.stringify(request.labels) : null,
    // The purpose in the audit chain too: what the request was for, kept with who asked it.
    JSON.stringify({
      operationId: request.operationId,
      requiredApprovals: request.requiredApprovals,
      ...(request.purpose !== undefined && { purpose: request.purpose }),
      ...(request.chain !== undefined && { chain: request.chain }),
      // The document's hash in the chain: what was attached can be shown unchanged later.
      ...(request.document !== undefined && { document: auditedDocument(request.document) }),
    }),
    request.answerTo ? JSON.stringify(request.answerTo) : null,
    request.holdKey,
    request.payee?.tag ?? null,
    request.payee?.nameTag ?? null,
    id,
    request.sealOf(id),
    request.paymentKey ?? null,
    request.purpose ?? null,
    request.document ? JSON.stringify(request.document) : null,
    request.chain ? JSON.stringify(request.chain) : null,
  ]);
  if (!row) throw new Error('the new request was not returned by its insert');
  return toRequest(row, cipher);
}

/** A document as the audit chain keeps it: what identifies it, not Slack's link to it. */
function auditedDocument({ fileId, name, size, sha256 }: SupportingDocument) {
  return { fileId, name, size, sha256 };
}
