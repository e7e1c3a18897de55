import { fieldsOf, type PaymentRequest, type Reconciliation } from '../domain/approval.ts';
import { compareDecimal, isDecimalString } from '../domain/decimal.ts';
import { OPERATIONS, type OperationSpec } from '../domain/operations.ts';
import type { PaymentsClient } from '../payments/client.ts';
import { PaymentsApiError } from '../payments/errors.ts';
import { findList, isRecord, recordIdentity, scalarText } from '../payments/response-shape.ts';

/**
 * After a write whose outcome is unknown, reads the list where its effect would show and
 * looks for it. Only reads: whatever it finds, nothing is sent again. A new attempt needs a
 * new request and a new approval.
 */

/** Created records may carry a clock a little behind ours. */
const CLOCK_SKEW_MS = 5 * 60_000;

export async function reconcile(
  client: PaymentsClient,
  request: PaymentRequest,
  now = new Date(),
): Promise<Reconciliation> {
  const spec: OperationSpec = OPERATIONS[request.operationId];
  const checkedAt = now.toISOString();
  if (!spec.reconcileWith) {
    return { checkedAt, result: 'check_failed', detail: 'no list shows this operation' };
  }
  let items: unknown[];
  try {
    const query = spec.reconcileWith === 'listTransfers' ? { limit: 100 } : {};
    const response = await client.call(spec.reconcileWith, { query });
    items = findList(response.body)?.items ?? [];
  } catch (error) {
    if (!(error instanceof PaymentsApiError)) throw error;
    return {
      checkedAt,
      result: 'check_failed',
      detail: `could not read ${OPERATIONS[spec.reconcileWith].path}: ${error.userMessage()}`,
    };
  }
  const match = items.find((item) => matches(item, request));
  if (!match) {
    return {
      checkedAt,
      result: 'not_found',
      detail: `no matching record among ${items.length} in ${OPERATIONS[spec.reconcileWith].path} yet; it may still appear — check again before any new request`,
    };
  }
  const identity = recordIdentity(match);
  return {
    checkedAt,
    result: 'found',
    providerId: identity.id,
    providerStatus: identity.status,
    detail: `found ${identity.id ?? 'a matching record'} in ${OPERATIONS[spec.reconcileWith].path}: it was executed`,
  };
}

/**
 * A record matches when every field of the request that the record also shows has the same
 * value, at least one such field exists, and (when it has a date) it is not older than the
 * request. An operation on an existing record (path id) matches that record.
 */
function matches(item: unknown, request: PaymentRequest): boolean {
  if (!isRecord(item)) return false;
  const pathIds = Object.values(request.path);
  if (pathIds.length > 0) return pathIds.includes(recordIdentity(item).id ?? '');
  const createdAt = Date.parse(recordIdentity(item).createdAt ?? '');
  if (!Number.isNaN(createdAt) && createdAt < Date.parse(request.createdAt) - CLOCK_SKEW_MS)
    return false;
  const shared = Object.entries(fieldsOf(request)).filter(([field]) => comparable(item[field]));
  return (
    shared.length > 0 && shared.every(([field, value]) => sameValue(item[field] as string, value))
  );
}

/** A value the provider shows in full: masked ones (`••••6789`, `****6789`) prove nothing. */
function comparable(value: unknown): boolean {
  const text = scalarText(value);
  return text !== undefined && !/[•*]/.test(text);
}

/** Equal as text, or as amounts (`25.5` and `25.50` are the same amount). */
function sameValue(shown: unknown, requested: string): boolean {
  const text = scalarText(shown) as string;
  if (text === requested) return true;
  return (
    isDecimalString(text) && isDecimalString(requested) && compareDecimal(text, requested) === 0
  );
}
