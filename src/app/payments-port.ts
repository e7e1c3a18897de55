import type { OperationId } from '../domain/operations.ts';
import type { ApiResponse, CallInput } from '../payments/client.ts';

/**
 * The Payments API as the use cases see it (src/payments/client.ts implements it): one call of
 * an operation of the catalogue. A write is sent once and never retried; a failure rejects with
 * a `PaymentsApiError` (src/payments/errors.ts), which says whether a write may have executed.
 */

export type { ApiResponse, CallInput } from '../payments/client.ts';

export interface PaymentsPort {
  call(operationId: OperationId, input?: CallInput): Promise<ApiResponse>;
}
