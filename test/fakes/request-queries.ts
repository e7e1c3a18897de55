import type { DeliveryStatus } from '../../src/app/outbox-port.ts';
import { RequestQueries } from '../../src/app/request-queries.ts';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import type { AuditEntry, RequestStore } from '../../src/store/request-store.ts';
import type { FakeRequestStore } from './request-store.ts';

/** The store's lists an approver's commands read. */
type Lists = Pick<RequestStore, 'get' | 'listPending' | 'history' | 'auditLog'>;

/**
 * The lists approvers look at, in memory: the fake store's requests, and an audit log that holds
 * what the test records (`record`). The Home's lists are not kept: no command reads them.
 */
export class FakeRequestLists implements Lists {
  readonly audit: AuditEntry[] = [];
  /** What the outbox did with each request's messages (`detail` shows them). */
  readonly deliveries = new Map<number, DeliveryStatus[]>();
  readonly #store: FakeRequestStore;

  constructor(store: FakeRequestStore) {
    this.#store = store;
  }

  /** An audit event of `requestId`, numbered in order. */
  record(requestId: number | undefined, actor: string, event: string, toStatus?: string): void {
    this.audit.push({
      id: this.audit.length + 1,
      at: new Date(Date.UTC(2026, 2, 1, 10, this.audit.length)).toISOString(),
      requestId,
      actor,
      event,
      fromStatus: undefined,
      toStatus,
      fingerprint: undefined,
      detail: undefined,
    });
  }

  get(id: number): Promise<PaymentRequest | undefined> {
    return this.#store.get(id);
  }

  async listPending(limit: number): Promise<{ requests: PaymentRequest[]; total: number }> {
    const pending = [...this.#store.requests.values()].filter((r) => r.status === 'pending');
    return { requests: pending.slice(0, limit), total: pending.length };
  }

  async history(id: number): Promise<AuditEntry[]> {
    return this.audit.filter((entry) => entry.requestId === id);
  }

  async *auditLog(pageSize = 50_000): AsyncGenerator<AuditEntry[]> {
    for (let from = 0; from < this.audit.length; from += pageSize) {
      yield this.audit.slice(from, from + pageSize);
    }
  }

  /**
   * The real queries over these lists. RequestQueries takes the concrete store though it only
   * reads it: these lists stand in for it (a port of the store's lists would make the cast go).
   */
  queries(): RequestQueries {
    return new RequestQueries({
      store: this as unknown as RequestStore,
      outbox: { ofRequest: async (id) => this.deliveries.get(id) ?? [] },
    });
  }
}
