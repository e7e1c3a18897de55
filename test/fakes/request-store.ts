import { randomUUID } from 'node:crypto';
import type {
  ApprovalChecks,
  CountApprovalResult,
  FenceResult,
  FreezeState,
  NewRequest,
  RequestStorePort,
} from '../../src/app/request-store-port.ts';
import type {
  PaymentRequest,
  ProviderOutcome,
  Reconciliation,
  RequestStatus,
  UnsettledTwin,
} from '../../src/domain/approval.ts';
import { NotSupersededError } from '../../src/store/request-store.ts';
import { RecordedDeliveries } from './slack-deliveries.ts';

/** Statuses an unsettled write of the same payment holds another at. */
const UNSETTLED: ReadonlySet<RequestStatus> = new Set(['executing', 'unknown']);

/**
 * Payment requests in memory, under the store's rules for the workflow: every change leaves a
 * status it checks (two clicks: one change), the approval completing the count claims the
 * request for one caller alone (a token only it holds, honoured within the lease, never while
 * frozen or once sent), a write of the same payment unsettled holds it, and each change tells
 * Slack (`deliveries`). Payee history is what the test says it is (`payees`).
 */
export class FakeRequestStore implements RequestStorePort {
  readonly requests = new Map<number, PaymentRequest>();
  readonly deliveries: RecordedDeliveries;
  /** What `payeeHistory` and `requestsToPayee` answer. */
  payees: {
    paidBefore: boolean;
    nameElsewhere: string[];
    earlier: Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>;
  } = { paidBefore: false, nameElsewhere: [], earlier: [] };
  /** Provider ids known as each request's record. */
  readonly providerIds = new Map<number, string>();
  readonly #claims = new Map<number, { token: string; at: number; sent: boolean }>();
  readonly #now: () => number;
  #freeze: FreezeState = {
    frozen: false,
    reason: undefined,
    changedBy: undefined,
    changedAt: undefined,
  };

  constructor(options: { now?: () => number; deliveries?: RecordedDeliveries } = {}) {
    this.#now = options.now ?? Date.now;
    this.deliveries = options.deliveries ?? new RecordedDeliveries();
  }

  async create(request: NewRequest): Promise<PaymentRequest> {
    const id = this.requests.size + 1;
    const old =
      request.supersedes === undefined ? undefined : this.requests.get(request.supersedes);
    if (old && (old.status !== 'pending' || old.requesterId !== request.requesterId)) {
      throw new NotSupersededError(`request ${old.id} could not be superseded`);
    }
    const now = this.#iso();
    const stored: PaymentRequest = {
      id,
      operationId: request.operationId,
      path: request.path,
      body: request.body,
      fingerprint: request.fingerprint,
      holdKey: request.holdKey,
      paymentKey: request.paymentKey,
      requesterId: request.requesterId,
      status: 'pending',
      requiredApprovals: request.requiredApprovals,
      seal: request.sealOf(id),
      approvals: [],
      createdAt: now,
      expiresAt: request.expiresAt.toISOString(),
      channelId: undefined,
      messageTs: undefined,
      decidedBy: undefined,
      reason: undefined,
      outcome: undefined,
      reconciliation: undefined,
      labels: request.labels,
      purpose: request.purpose,
      updatedAt: now,
    };
    this.requests.set(id, stored);
    this.deliveries.tell(id, 'created');
    if (old)
      this.#change(old.id, { status: 'superseded', decidedBy: old.requesterId }, 'superseded');
    return stored;
  }

  async get(id: number): Promise<PaymentRequest | undefined> {
    return this.requests.get(id);
  }

  async providerIdsTaken(requestId: number, ids: readonly string[]): Promise<Set<string>> {
    const others = [...this.providerIds].filter(([id]) => id !== requestId).map(([, pid]) => pid);
    return new Set(ids.filter((id) => others.includes(id)));
  }

  async unsettledTwin(holdKey: string, paymentKey?: string): Promise<UnsettledTwin | undefined> {
    const twin = [...this.requests.values()].find(
      (request) =>
        UNSETTLED.has(request.status) &&
        (request.holdKey === holdKey ||
          (paymentKey !== undefined && request.paymentKey === paymentKey)),
    );
    return twin && { id: twin.id, status: twin.status as UnsettledTwin['status'] };
  }

  async payeeHistory(): Promise<{ paidBefore: boolean; nameElsewhere: string[] }> {
    return { paidBefore: this.payees.paidBefore, nameElsewhere: this.payees.nameElsewhere };
  }

  async requestsToPayee(): Promise<
    Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>
  > {
    return this.payees.earlier;
  }

  async requestsOfRequester(): Promise<
    Array<Pick<PaymentRequest, 'id' | 'operationId' | 'body' | 'createdAt'>>
  > {
    return this.payees.earlier;
  }

  async approve(
    id: number,
    approverId: string,
    _claimedBy: string,
    checks: ApprovalChecks,
  ): Promise<CountApprovalResult> {
    const request = this.requests.get(id);
    if (!request) return { kind: 'not_found' };
    const refusal = checks.refusal(request, approverId);
    if (refusal) return { kind: 'refused', ...refusal, request };
    const completes = (counted: number) =>
      !checks.sealHolds(request) || counted + 1 >= request.requiredApprovals;
    let counted = request.approvals.length;
    if (completes(counted)) {
      const earlier = await checks.stillCounted(request);
      if ('refusal' in earlier) return { kind: 'refused', ...earlier.refusal, request };
      counted = earlier.counted;
    }
    const approval = {
      userId: approverId,
      at: this.#iso(),
      seal: checks.seal(request, approverId),
    };
    if (!completes(counted)) {
      const recorded = this.#change(
        id,
        { approvals: [...request.approvals, approval] },
        'approved',
      );
      return { kind: 'recorded', request: recorded };
    }
    if (this.#freeze.frozen) return { kind: 'frozen', freeze: this.#freeze, request };
    const twin = await this.unsettledTwin(request.holdKey, request.paymentKey);
    if (twin && twin.id !== id) return { kind: 'held', twin, request };
    const claimToken = randomUUID();
    this.#claims.set(id, { token: claimToken, at: this.#now(), sent: false });
    const claimed = this.#change(
      id,
      { approvals: [...request.approvals, approval], status: 'executing' },
      'approved',
    );
    return { kind: 'claimed', request: claimed, claimToken };
  }

  async reject(id: number, actor: string, reason: string): Promise<PaymentRequest | undefined> {
    return this.#decide(id, { status: 'rejected', decidedBy: actor, reason });
  }

  async ask(id: number, actor: string, question: string): Promise<PaymentRequest | undefined> {
    if (this.requests.get(id)?.status !== 'pending') return undefined;
    return this.#change(
      id,
      { question: { by: actor, at: this.#iso(), text: question } },
      'question',
    );
  }

  async cancel(id: number, actor: string): Promise<PaymentRequest | undefined> {
    if (this.requests.get(id)?.requesterId !== actor) return undefined;
    return this.#decide(id, { status: 'cancelled', decidedBy: actor });
  }

  async markSending(id: number, claimToken: string, leaseMs: number): Promise<FenceResult> {
    const claim = this.#claims.get(id);
    const held =
      this.requests.get(id)?.status === 'executing' &&
      claim?.token === claimToken &&
      !claim.sent &&
      claim.at + leaseMs > this.#now();
    if (!held) return { kind: 'refused', stop: { code: 'claim_lost' } };
    if (this.#freeze.frozen) {
      return { kind: 'refused', stop: { code: 'frozen', freezeReason: this.#freeze.reason } };
    }
    claim.sent = true;
    this.#change(id, { sentAt: this.#iso() });
    return { kind: 'send' };
  }

  async finishExecution(
    id: number,
    to: 'submitted' | 'failed' | 'unknown',
    outcome: ProviderOutcome,
  ): Promise<PaymentRequest | undefined> {
    if (this.requests.get(id)?.status !== 'executing') return undefined;
    if (outcome.providerId !== undefined) this.providerIds.set(id, outcome.providerId);
    return this.#change(id, { status: to, outcome }, to);
  }

  async recordReconciliation(
    id: number,
    reconciliation: Reconciliation,
    checkedFrom?: { reconciliation: Reconciliation | undefined },
  ): Promise<PaymentRequest | undefined> {
    const request = this.requests.get(id);
    if (request?.status !== 'unknown') return undefined;
    if (checkedFrom && checkedFrom.reconciliation !== request.reconciliation) return undefined;
    if (reconciliation.result === 'found' && reconciliation.providerId !== undefined) {
      this.providerIds.set(id, reconciliation.providerId);
    }
    return this.#change(id, { reconciliation }, 'reconciled');
  }

  async expireDue(now: Date): Promise<PaymentRequest[]> {
    return [...this.requests.values()]
      .filter((request) => request.status === 'pending' && Date.parse(request.expiresAt) <= +now)
      .map((request) => this.#change(request.id, { status: 'expired' }, 'expired'));
  }

  async recoverStale(leaseMs: number): Promise<PaymentRequest[]> {
    const now = this.#now();
    return [...this.#claims]
      .filter(
        ([id, claim]) => this.requests.get(id)?.status === 'executing' && claim.at + leaseMs <= now,
      )
      .map(([id]) => this.#change(id, { status: 'unknown' }, 'unknown'));
  }

  async listUnresolved(recheckAfterMs: number, forMs: number): Promise<PaymentRequest[]> {
    const now = this.#now();
    return [...this.requests.values()].filter((request) => {
      if (request.status !== 'unknown' || request.reconciliation?.result === 'found') return false;
      const checkedAt = request.reconciliation && Date.parse(request.reconciliation.checkedAt);
      const due = checkedAt === undefined || checkedAt + recheckAfterMs <= now;
      return due && Date.parse(request.updatedAt) + forMs > now;
    });
  }

  async freezeState(): Promise<FreezeState> {
    return this.#freeze;
  }

  async setFreeze(
    frozen: boolean,
    actor: string,
    reason: string | undefined,
  ): Promise<FreezeState> {
    this.#freeze = { frozen, reason, changedBy: actor, changedAt: this.#iso() };
    return this.#freeze;
  }

  #decide(id: number, change: Partial<PaymentRequest>): PaymentRequest | undefined {
    if (this.requests.get(id)?.status !== 'pending') return undefined;
    return this.#change(id, change, change.status);
  }

  /** `id` changed as `change` says; `told` names what Slack is told of it, if anything. */
  #change(id: number, change: Partial<PaymentRequest>, told?: string): PaymentRequest {
    const request = this.requests.get(id);
    if (!request) throw new Error(`no request #${id}`);
    const changed = { ...request, ...change, updatedAt: this.#iso() };
    this.requests.set(id, changed);
    if (told) this.deliveries.tell(id, told);
    return changed;
  }

  #iso(): string {
    return new Date(this.#now()).toISOString();
  }
}
