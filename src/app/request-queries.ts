import type { PaymentRequest } from '../domain/approval.ts';
import { alreadyCounted, openStep } from '../domain/approval-chain.ts';
import { scrubDetail } from '../domain/scrub.ts';
import type { AuditEntry, RequestStore } from '../store/request-store.ts';
import type { DeliveryStatus, OutboxPort } from './outbox-port.ts';

/**
 * What people look up about payment requests, as the store has them: the pending ones, one with
 * its history and Slack deliveries, the audit log as CSV files, and what a person's Home lists.
 * Looking decides nothing; who may look is checked by the caller at the moment it asks.
 */

/** One change in a request's audit history. */
export interface HistoryEntry {
  at: string;
  /** A Slack user id, or a name such as `system` for the sweeper and recovery. */
  actor: string;
  event: string;
  from?: string | undefined;
  to?: string | undefined;
}

export interface RequestDetail {
  request: PaymentRequest;
  history: HistoryEntry[];
  /** What the Slack outbox did with each of its messages. */
  deliveries: DeliveryStatus[];
}

/** One file of the audit log's export: events `firstId` to `lastId`, oldest first. */
export interface AuditFile {
  /** From 1. */
  part: number;
  firstId: number;
  lastId: number;
  events: number;
  csv: string;
}

/** The requests a person's Home lists. */
export interface HomeRequests {
  /** Those waiting for their approval, and how many in all; undefined for a non-approver. */
  queue: { requests: PaymentRequest[]; total: number } | undefined;
  /** Their latest requests, whatever their status. */
  own: PaymentRequest[];
  /** The latest decided requests they took part in. */
  decisions: PaymentRequest[];
}

/** Events per CSV file: about 15 MB, well under Slack's file limit and payops' memory. */
const AUDIT_EVENTS_PER_FILE = 50_000;
/** The queue a Home lists (cards beyond what a Home holds are counted, not drawn). */
const HOME_QUEUE = 12;
const HOME_OWN_REQUESTS = 10;
const HOME_DECISIONS = 5;

const CSV_COLUMNS = [
  'id',
  'at',
  'request',
  'actor',
  'event',
  'from',
  'to',
  'fingerprint',
  'detail',
];

export class RequestQueries {
  readonly #store: RequestStore;
  readonly #outbox: Pick<OutboxPort, 'ofRequest'>;
  readonly #stepMember: StepMember | undefined;

  constructor(deps: {
    store: RequestStore;
    outbox: Pick<OutboxPort, 'ofRequest'>;
    /** Whether a user is among a chain step's people; without it, every step takes anyone. */
    stepMember?: StepMember;
  }) {
    this.#store = deps.store;
    this.#outbox = deps.outbox;
    this.#stepMember = deps.stepMember;
  }

  /** The first `limit` pending requests, oldest first, and how many are pending in all. */
  pending(limit: number): Promise<{ requests: PaymentRequest[]; total: number }> {
    return this.#store.listPending(limit);
  }

  /** Request `id` with its audit history and its Slack deliveries; undefined if there is none. */
  async detail(id: number): Promise<RequestDetail | undefined> {
    const request = await this.#store.get(id);
    if (!request) return undefined;
    const [history, deliveries] = await Promise.all([this.#store.history(id), this.deliveries(id)]);
    return {
      request,
      history: history.map((entry) => ({
        at: entry.at,
        actor: entry.actor,
        event: entry.event,
        from: entry.fromStatus,
        to: entry.toStatus,
      })),
      deliveries,
    };
  }

  /** What the Slack outbox did with each message of request `id`. */
  deliveries(id: number): Promise<DeliveryStatus[]> {
    return this.#outbox.ofRequest(id);
  }

  /**
   * The whole audit log as CSV files of at most `eventsPerFile` events, oldest first, the last
   * ending with the newest: no log is too long to send whole.
   */
  async *auditFiles(eventsPerFile = AUDIT_EVENTS_PER_FILE): AsyncGenerator<AuditFile> {
    let part = 0;
    for await (const page of this.#store.auditLog(eventsPerFile)) {
      part++;
      yield {
        part,
        firstId: (page[0] as AuditEntry).id,
        lastId: (page.at(-1) as AuditEntry).id,
        events: page.length,
        csv: auditCsv(page),
      };
    }
  }

  /** What `userId`'s Home lists at `now`; its queue only for an approver. */
  async homeRequests(userId: string, approver: boolean, now: Date): Promise<HomeRequests> {
    const [queue, own, decisions] = await Promise.all([
      approver ? this.#store.pendingFor(userId, now, HOME_QUEUE) : undefined,
      this.#store.requestsOf(userId, HOME_OWN_REQUESTS),
      this.#store.decisionsOf(userId, HOME_DECISIONS),
    ]);
    return { queue: queue && (await this.#forOpenStep(queue, userId)), own, decisions };
  }

  /**
   * The queue without the requests whose chain waits on a step `userId` is not among the people
   * of, or already filled (src/domain/approval-chain.ts): they could not approve it now.
   */
  async #forOpenStep(
    queue: { requests: PaymentRequest[]; total: number },
    userId: string,
  ): Promise<{ requests: PaymentRequest[]; total: number }> {
    const member = this.#stepMember;
    const mayApprove = await Promise.all(
      queue.requests.map((request) => {
        const open = request.chain && openStep(request.chain, request.approvals);
        if (alreadyCounted(request.chain, request.approvals, userId, open)) return false;
        const step = open === undefined ? undefined : request.chain?.steps[open];
        return step && member ? member(step.approvers, userId) : true;
      }),
    );
    const requests = queue.requests.filter((_, index) => mayApprove[index]);
    return { requests, total: queue.total - (queue.requests.length - requests.length) };
  }
}

/** Whether `userId` is among `approvers` (user group and user ids); false when Slack cannot say. */
export type StepMember = (approvers: readonly string[], userId: string) => Promise<boolean>;

function auditCsv(entries: AuditEntry[]): string {
  const rows = entries.map((entry) => [
    String(entry.id),
    entry.at,
    entry.requestId === undefined ? '' : String(entry.requestId),
    entry.actor,
    entry.event,
    entry.fromStatus ?? '',
    entry.toStatus ?? '',
    entry.fingerprint ?? '',
    entry.detail ? JSON.stringify(scrubDetail(entry.detail)) : '',
  ]);
  return [CSV_COLUMNS, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n');
}

/** Quoted, and defused so a spreadsheet never runs a cell as a formula. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}
