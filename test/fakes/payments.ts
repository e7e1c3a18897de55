import type { ApiResponse, CallInput, PaymentsPort } from '../../src/app/payments-port.ts';
import type { OperationId } from '../../src/domain/operations.ts';

/** What the fake provider answers a call with: a body, or an error it throws. */
export type FakeAnswer = (input: CallInput, call: number) => unknown;

/**
 * The Payments API in memory: each operation answers as the test says (a `PaymentsApiError`
 * thrown by an answer is the provider failing), and every call is kept, in order.
 */
export class FakePayments implements PaymentsPort {
  readonly calls: Array<{ operationId: OperationId; input: CallInput }> = [];
  readonly #answers = new Map<OperationId, FakeAnswer>();

  /** From now on `operationId` answers with `answer` (given the input and its call count, from 1). */
  answer(operationId: OperationId, answer: FakeAnswer): this {
    this.#answers.set(operationId, answer);
    return this;
  }

  /** How many times `operationId` was called. */
  count(operationId: OperationId): number {
    return this.calls.filter((call) => call.operationId === operationId).length;
  }

  async call(operationId: OperationId, input: CallInput = {}): Promise<ApiResponse> {
    this.calls.push({ operationId, input });
    const answer = this.#answers.get(operationId);
    if (!answer) throw new Error(`the fake provider has no answer for ${operationId}`);
    const body = answer(input, this.count(operationId));
    return { operationId, status: 200, requestId: undefined, body, durationMs: 1, attempts: 1 };
  }
}
