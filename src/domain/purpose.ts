import { isWrite, OPERATION_IDS, OPERATIONS, type WriteOperationId } from './operations.ts';

/**
 * A write's purpose (`purpose="Invoice 2291"`): payops's own field, like a request's labels.
 * The requester states why the money moves; approvers read it on the card, and it is stored,
 * sealed with the request and written in the audit chain. It is never part of the body sent to
 * the provider, which stays exactly the catalogue's fields.
 */

/** The name it is typed under, and the request form's input. */
export const PURPOSE_FIELD = 'purpose';

/** One line on the card; a bank's remittance text is shorter still. */
export const MAX_PURPOSE_LENGTH = 200;

/** Where the writes that move money show: only those writes carry a purpose. */
const MONEY_LISTS: ReadonlySet<string> = new Set(['listTransfers', 'listPayouts']);

/** The writes that move money, payouts, transfers and routes: only they carry a purpose. */
export const PURPOSE_OPERATIONS: readonly WriteOperationId[] = OPERATION_IDS.filter(
  (id): id is WriteOperationId =>
    isWrite(id) && MONEY_LISTS.has(OPERATIONS[id].reconcileWith ?? ''),
);

/**
 * Where a purpose is required unless `PAYOPS_REQUIRE_PURPOSE` says otherwise: payouts and
 * transfers, the writes that send an amount now. Routes only configure where money will go.
 */
export const DEFAULT_PURPOSE_REQUIRED: readonly WriteOperationId[] = PURPOSE_OPERATIONS.filter(
  (id) => OPERATIONS[id].bodyFields.includes('amount'),
);

export function takesPurpose(operationId: WriteOperationId): boolean {
  return PURPOSE_OPERATIONS.includes(operationId);
}
