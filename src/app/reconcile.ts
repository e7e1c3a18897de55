import type { PaymentRequest, Reconciliation } from '../domain/approval.ts';
import type { ListExtent, ListUnfinished } from '../domain/list-findings.ts';
import { OPERATIONS, type OperationId, type OperationSpec } from '../domain/operations.ts';
import { PaymentsApiError } from '../payments/errors.ts';
import { findList, nextPageOf } from '../payments/response-shape.ts';
import type { PaymentsPort } from './payments-port.ts';
import {
  type AttributedElsewhere,
  CLOCK_SKEW_MS,
  createdTime,
  doubtOf,
  listedIds,
  listedRecord,
  matchRecords,
} from './record-matching.ts';

/**
 * After a write whose outcome is unknown, reads the list where its effect would show and
 * looks for it (`matchRecords`). Only reads: whatever it finds, nothing is sent again. A new
 * attempt needs a new request and a new approval.
 */

/**
 * Pages read at most. With the spec's page size of 50 that is 500 records, far more than are
 * created in the minutes between a write and its check, while one check costs at most ten
 * reads of the provider, which promises no rate limit. A newest-first list stops sooner.
 */
export const MAX_RECONCILE_PAGES = 10;
/** The spec's example `limit` for transfers: the one value known to be accepted. */
const TRANSFERS_PAGE_SIZE = 50;

export interface ListRead {
  records: unknown[];
  pages: number;
  /** Why the list was not read to its end, when it was not. */
  unfinished: ListUnfinished | undefined;
}

/**
 * Records kept of one list read at most: ten full pages of the spec's example size. Past them
 * the read stops unfinished (a check failed, never "not found"), so a provider listing years of
 * records in one reply costs a bounded amount of memory.
 */
export const MAX_RECORDS_READ = 5_000;

/**
 * One read of each list, shared by every reconciliation of a sweep: each list is read once, back
 * to the earliest of their approvals, and one list at a time, so a sweep with many unknown
 * outcomes holds at most one list's records per list and reads no more than one at once.
 */
export class SharedListReads {
  readonly #client: PaymentsPort;
  readonly #sync: boolean | undefined;
  readonly #since = new Map<OperationId, number>();
  readonly #reads = new Map<OperationId, Promise<ListRead>>();
  #last: Promise<unknown> = Promise.resolve();

  constructor(
    client: PaymentsPort,
    requests: readonly PaymentRequest[],
    options: { sync?: boolean | undefined } = {},
  ) {
    this.#client = client;
    this.#sync = options.sync;
    for (const request of requests) {
      const list = OPERATIONS[request.operationId].reconcileWith;
      if (!list) continue;
      const since = Date.parse(approvedAtOf(request));
      this.#since.set(list, Math.min(since, this.#since.get(list) ?? since));
    }
  }

  /** The list read once for all; rejects as `readWriteList` does. */
  read(list: OperationId, since: number): Promise<ListRead> {
    const started = this.#reads.get(list);
    if (started) return started;
    const read = this.#last.then(() =>
      readWriteList(this.#client, list, {
        since: Math.min(since, this.#since.get(list) ?? since),
        sync: this.#sync,
      }),
    );
    this.#last = read.catch(() => undefined);
    this.#reads.set(list, read);
    return read;
  }
}

function approvedAtOf(request: PaymentRequest): string {
  return request.approvals.at(-1)?.at ?? request.createdAt;
}

/**
 * `reads` shares one read of each list among the reconciliations of a sweep; without it, this
 * request's list is read for it alone.
 */
export async function reconcile(
  client: PaymentsPort,
  request: PaymentRequest,
  options: {
    now?: Date;
    sync?: boolean;
    reads?: SharedListReads;
    /** Which listed ids are other requests' records: never this one's. */
    attributedElsewhere: AttributedElsewhere;
  },
): Promise<Reconciliation> {
  const now = options.now ?? new Date();
  const spec: OperationSpec = OPERATIONS[request.operationId];
  const checkedAt = now.toISOString();
  if (!spec.reconcileWith) {
    return { checkedAt, result: 'check_failed', finding: { code: 'no_list' } };
  }
  const list = spec.reconcileWith;
  const approvedAt = approvedAtOf(request);
  const reads = options.reads ?? new SharedListReads(client, [request], { sync: options.sync });
  let read: ListRead;
  try {
    read = await reads.read(list, Date.parse(approvedAt));
  } catch (error) {
    if (!(error instanceof PaymentsApiError)) throw error;
    return {
      checkedAt,
      result: 'check_failed',
      finding: { code: 'read_failed', list, error: error.facts() },
    };
  }
  const taken = await options.attributedElsewhere(request.id, listedIds(read.records));
  const matched = matchRecords(request, read, taken);
  const extent: ListExtent = { list, records: read.records.length, pages: read.pages };
  switch (matched.kind) {
    case 'ambiguous':
    case 'unfinished':
      return {
        checkedAt,
        result: matched.kind === 'ambiguous' ? 'ambiguous' : 'check_failed',
        finding: { code: 'not_taken', read: extent, doubt: doubtOf(matched) },
      };
    case 'none':
      return { checkedAt, result: 'not_found', finding: { code: 'not_found', read: extent } };
    case 'found': {
      const { match } = matched;
      return {
        checkedAt,
        result: 'found',
        providerId: match.id,
        providerStatus: match.status,
        finding: { code: 'found', list, record: listedRecord(match), partial: match.partial },
      };
    }
  }
}

/**
 * The list where a write's effect shows, page after page as its replies say, until its end,
 * `MAX_RECONCILE_PAGES`, or a newest-first list reaching records older than `since` (ms; 0 for
 * none). `sync` asks for a fresh look where the spec offers it. A failing first page throws
 * (`PaymentsApiError`); a later one leaves the read unfinished.
 */
export async function readWriteList(
  client: PaymentsPort,
  operationId: OperationId,
  options: { since: number; sync?: boolean | undefined },
): Promise<ListRead> {
  const { since: approvedAt, sync } = options;
  const listPath = OPERATIONS[operationId].path;
  const query = {
    ...(operationId === 'listTransfers' ? { limit: TRANSFERS_PAGE_SIZE } : {}),
    // Only on the lists the spec offers it for (not payouts).
    ...(sync && OPERATIONS[operationId].query.some((param) => param.name === 'sync')
      ? { sync: true }
      : {}),
  };
  const read: ListRead = { records: [], pages: 0, unfinished: undefined };
  // The first page is asked for with no paging parameters.
  const asked = new Set<string>([JSON.stringify({})]);
  let page: Record<string, string> | undefined;
  for (;;) {
    let body: unknown;
    try {
      body = (await client.call(operationId, { query, ...(page ? { page } : {}) })).body;
    } catch (error) {
      if (read.pages === 0 || !(error instanceof PaymentsApiError)) throw error;
      read.unfinished = { code: 'page_unread', page: read.pages + 1, error: error.facts() };
      return read;
    }
    read.pages += 1;
    const list = findList(body);
    if (list === undefined) {
      read.unfinished = { code: 'no_list', page: read.pages };
      return read;
    }
    const { items, total } = list;
    const room = MAX_RECORDS_READ - read.records.length;
    read.records.push(...items.slice(0, room));
    if (items.length > room) {
      read.unfinished = { code: 'too_many_records', max: MAX_RECORDS_READ };
      return read;
    }
    const next = nextPageOf(body, items, listPath);
    if (next.kind === 'end' || items.length === 0) {
      // A reply may leave out how to ask for more: what it says of its size still counts.
      if (total !== undefined && total > read.records.length) {
        read.unfinished = { code: 'count_mismatch', total, seen: read.records.length };
      } else if (next.kind === 'end' && !next.stated && items.length === query.limit) {
        read.unfinished = { code: 'full_page', page: read.pages, records: items.length };
      }
      return read;
    }
    if (newestFirstPast(read.records, approvedAt)) return read;
    if (next.kind === 'unfollowable') {
      read.unfinished = { code: 'unfollowable', next: next.why };
      return read;
    }
    const key = JSON.stringify(next.params);
    if (asked.has(key)) {
      read.unfinished = { code: 'page_repeated' };
      return read;
    }
    if (read.pages >= MAX_RECONCILE_PAGES) {
      read.unfinished = { code: 'too_many_pages', max: MAX_RECONCILE_PAGES };
      return read;
    }
    asked.add(key);
    page = next.params;
  }
}

/**
 * Every record so far dated, newest first (seen to fall at least once, never to rise), and the
 * last one older than the approval: no later page can hold the request's effect.
 */
function newestFirstPast(records: readonly unknown[], approvedAt: number): boolean {
  const times = records.map(createdTime);
  if (times.some((time) => time === undefined)) return false;
  const dated = times as number[];
  const steps = dated.slice(1).map((time, index) => (dated[index] as number) - time);
  const newestFirst = steps.every((step) => step >= 0) && steps.some((step) => step > 0);
  return newestFirst && (dated.at(-1) as number) < approvedAt - CLOCK_SKEW_MS;
}
