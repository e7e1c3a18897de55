import { fieldsOf, type PaymentRequest, type Reconciliation } from '../domain/approval.ts';
import { compareDecimal, isDecimalString } from '../domain/decimal.ts';
import { OPERATIONS, type OperationId, type OperationSpec } from '../domain/operations.ts';
import type { PaymentsClient } from '../payments/client.ts';
import { PaymentsApiError } from '../payments/errors.ts';
import { findList, isRecord, recordIdentity, scalarText } from '../payments/response-shape.ts';

/**
 * After a write whose outcome is unknown, reads the list where its effect would show and
 * looks for it. Only reads: whatever it finds, nothing is sent again. A new attempt needs a
 * new request and a new approval.
 */

/** Created records may carry a clock a little behind ours. */
const CLOCK_SKEW_MS = 60_000;

export async function reconcile(
  client: PaymentsClient,
  request: PaymentRequest,
  options: { now?: Date; sync?: boolean } = {},
): Promise<Reconciliation> {
  const now = options.now ?? new Date();
  const spec: OperationSpec = OPERATIONS[request.operationId];
  const checkedAt = now.toISOString();
  if (!spec.reconcileWith) {
    return { checkedAt, result: 'check_failed', detail: 'no list shows this operation' };
  }
  let items: unknown[];
  try {
    items = await readWriteList(client, spec.reconcileWith, options);
  } catch (error) {
    if (!(error instanceof PaymentsApiError)) throw error;
    return {
      checkedAt,
      result: 'check_failed',
      detail: `could not read ${OPERATIONS[spec.reconcileWith].path}: ${error.userMessage()}`,
    };
  }
  const matches = recordsShowing(items, request);
  const where = OPERATIONS[spec.reconcileWith].path;
  if (matches.length === 0) {
    return {
      checkedAt,
      result: 'not_found',
      detail: `no record among ${items.length} in ${where} shows it yet; it may still appear — payops checks again`,
    };
  }
  const ids = matches.map((item) => recordIdentity(item).id ?? '?');
  if (matches.length > 1) {
    return {
      checkedAt,
      result: 'ambiguous',
      detail: `${matches.length} records in ${where} could be it (${ids.slice(0, 5).join(', ')}); check at the provider`,
    };
  }
  const identity = recordIdentity(matches[0]);
  return {
    checkedAt,
    result: 'found',
    providerId: identity.id,
    providerStatus: identity.status,
    detail: `${identity.id ?? 'a record'} in ${where} shows it: it was executed`,
  };
}

/**
 * The records of the list where a write's effect shows (its `reconcileWith`), as the provider
 * lists them now; `sync` asks it to synchronise first. Throws the client's `PaymentsApiError`.
 */
export async function readWriteList(
  client: PaymentsClient,
  list: OperationId,
  options: { sync?: boolean } = {},
): Promise<unknown[]> {
  const query = {
    ...(list === 'listTransfers' ? { limit: 100 } : {}),
    ...(options.sync ? { sync: true } : {}),
  };
  const response = await client.call(list, { query });
  return findList(response.body)?.items ?? [];
}

/** The records among `items` that show this request's effect: one is it, several are ambiguous. */
export function recordsShowing(items: readonly unknown[], request: PaymentRequest): unknown[] {
  const spec: OperationSpec = OPERATIONS[request.operationId];
  return items.filter((item) => showsEffectOf(item, request, spec));
}

/** Words a provider may use for a record switched off, and on. */
const INACTIVE = /^(inactive|deactivated|disabled|closed)$/i;
const ACTIVE = /^(active|enabled|reactivated|open)$/i;
const CREATED_KEYS = ['created_at', 'createdAt', 'created', 'timestamp'];

/**
 * Whether a record shows this request's effect. On an existing record (path id): that record,
 * in the state the request asked for. A new record: dated after the approval, and showing
 * every field of the request, equal wherever the provider shows it in full.
 */
function showsEffectOf(item: unknown, request: PaymentRequest, spec: OperationSpec): boolean {
  if (!isRecord(item)) return false;
  const fields = Object.entries(fieldsOf(request));
  const pathIds = Object.values(request.path);
  if (pathIds.length > 0) {
    if (!pathIds.includes(recordIdentity(item).id ?? '')) return false;
    const status = scalarText(recordIdentity(item).status) ?? '';
    if (spec.path.endsWith('/deactivate')) return INACTIVE.test(status);
    if (spec.path.endsWith('/reactivate')) return ACTIVE.test(status);
    return fields.length > 0 && fields.every(([field, value]) => shownEqual(item[field], value));
  }
  const created = CREATED_KEYS.map((key) => Date.parse(scalarText(item[key]) ?? '')).find(
    (time) => !Number.isNaN(time),
  );
  const approvedAt = Date.parse(request.approvals.at(-1)?.at ?? request.createdAt);
  if (created === undefined || created < approvedAt - CLOCK_SKEW_MS) return false;
  return (
    fields.every(([field, value]) => shownEqual(item[field], value) || masked(item[field])) &&
    fields.some(([field, value]) => shownEqual(item[field], value))
  );
}

/** Shown in full and equal: as text, or as amounts (`25.5` and `25.50` are the same amount). */
function shownEqual(shown: unknown, requested: string): boolean {
  const text = scalarText(shown);
  if (text === undefined || masked(shown)) return false;
  if (text === requested) return true;
  return (
    isDecimalString(text) && isDecimalString(requested) && compareDecimal(text, requested) === 0
  );
}

/** Masked by the provider (`••••6789`, `****6789`): present, but proves nothing. */
function masked(value: unknown): boolean {
  const text = scalarText(value);
  return text !== undefined && /[•*]/.test(text);
}
