import { type FollowStatuses, statusOutcome } from '../domain/follow.ts';
import type { FollowLookError } from '../domain/list-findings.ts';
import type { OperationId } from '../domain/operations.ts';
import type { Logger } from '../logger.ts';
import { PaymentsApiError } from '../payments/errors.ts';
import { recordIdentity } from '../payments/response-shape.ts';
import type { ClaimedFollowUp, FollowLook, FollowStorePort } from './follow-port.ts';
import type { PaymentsPort } from './payments-port.ts';
import { type ListRead, readWriteList } from './reconcile.ts';
import { doubtOf, listedIds, type MatchedRequest, matchRecords } from './record-matching.ts';
import type { RequestLookup } from './request-store-port.ts';

/**
 * Follows submitted writes to their final state by reading (the provider sends no webhooks):
 * one read of a list serves every request followed there. Each change of a record's status is
 * told in its request's thread and on its card. Following stops at a failure status, or after
 * the follow-up time with no success; after a success it goes on, at the same pace, for the
 * return window, since a bank may still return the money. Only reads: nothing is ever sent to
 * the provider again.
 */

export interface FollowerDeps {
  store: FollowStorePort;
  /**
   * The followed request, to find its record when its provider id is not known, and the ids
   * other requests' records are known by, never taken for it.
   */
  requests: RequestLookup;
  client: PaymentsPort;
  keyScopes: readonly string[];
  /** Lower case: a failure stops following; a success starts the watch for a return. */
  statuses: FollowStatuses;
  followForMs: number;
  /** After a success, how long it is still followed for a return or reversal. */
  returnWindowMs: number;
  intervalMs: number;
  /** Names this process on its claims. */
  instanceId: string;
  logger: Logger;
  /** Called when something was told: its Slack messages wait in the outbox. */
  onChange?: () => void;
}

/** What one pass did: lists read, and changes this process told. */
export interface FollowPass {
  reads: number;
  changes: number;
}

/** A claim outlives the longest read (its retries included); past it, another process may look. */
const CLAIM_LEASE_MS = 5 * 60_000;
/** Follow-ups looked at in one pass at most; more wait for the next pass. */
const PASS_LIMIT = 1_000;

/** Where a followed request's record is in a list read, if anywhere. */
export type RecordInList =
  | { kind: 'found'; record: unknown }
  | { kind: 'absent' }
  /** Listed perhaps, but nothing shows which record is its. */
  | { kind: 'unsure'; why: FollowLookError };

export class Follower {
  readonly #deps: FollowerDeps;

  constructor(deps: FollowerDeps) {
    this.#deps = deps;
  }

  /** One pass: stops what has been followed long enough, then reads each list that has a look due. */
  async followDue(): Promise<FollowPass> {
    const { store, instanceId, intervalMs, statuses, returnWindowMs } = this.#deps;
    const overdue = [
      ...(await store.stopOverdue(this.#deps.followForMs)),
      ...(await store.stopWatched()),
    ];
    const claimed = await store.claimDue(instanceId, CLAIM_LEASE_MS, intervalMs, PASS_LIMIT);
    const byList = new Map<OperationId, ClaimedFollowUp[]>();
    for (const followUp of claimed) {
      // Settled from the start (the write's answer said so), or by newer status lists.
      const outcome = followUp.status && statusOutcome(followUp.status, statuses);
      if (followUp.status && outcome === 'failure') {
        await store.stopAtFinal(followUp.requestId, followUp.status);
        continue;
      }
      if (followUp.status && outcome === 'success' && followUp.watchUntil === undefined) {
        await store.startWatching(followUp.requestId, followUp.status, returnWindowMs);
      }
      byList.set(followUp.listOperation, [...(byList.get(followUp.listOperation) ?? []), followUp]);
    }
    const changes = await Promise.all(
      [...byList].map(([list, followUps]) => this.#followList(list, followUps)),
    );
    const changed = changes.reduce((sum, count) => sum + count, 0);
    if (overdue.length + changed > 0) this.#deps.onChange?.();
    return { reads: byList.size, changes: changed };
  }

  /** One read of `list` for all of `followUps`; resolves with how many changes this process told. */
  async #followList(list: OperationId, followUps: ClaimedFollowUp[]): Promise<number> {
    const { store, instanceId, intervalMs, logger } = this.#deps;
    let read: ListRead;
    try {
      // A fresh look when the key may ask for one (sync=true needs resources:write); a
      // newest-first list is read back to the oldest submission followed here.
      read = await readWriteList(this.#deps.client, list, {
        since: Math.min(...followUps.map((followUp) => Date.parse(followUp.startedAt))),
        sync: this.#deps.keyScopes.includes('resources:write'),
      });
    } catch (error) {
      // A failed read never stops following: the next look is due as usual.
      logger.warn({ err: error, list }, 'a follow-up read failed; looking again next time');
      const failed: FollowLookError = {
        code: 'read_failed',
        list,
        ...(error instanceof PaymentsApiError && { error: error.facts() }),
      };
      await store.recordLooks(
        instanceId,
        followUps.map(({ requestId }) => ({ requestId, listed: false, error: failed })),
        intervalMs,
      );
      return 0;
    }
    const looks: FollowLook[] = [];
    let changes = 0;
    for (const followUp of followUps) {
      try {
        const look = await this.#lookFor(followUp, read, list);
        looks.push(look.look);
        if (look.told) changes++;
      } catch (error) {
        logger.error({ err: error, requestId: followUp.requestId }, 'a follow-up failed');
        looks.push({
          requestId: followUp.requestId,
          listed: false,
          error: { code: 'look_failed' },
        });
      }
    }
    const missing = looks.filter((look) => !look.listed && !look.error);
    const told = await store.recordMissing(missing.map((look) => look.requestId));
    for (const requestId of told) logger.warn({ requestId, list }, 'a followed record is missing');
    await store.recordLooks(instanceId, looks, intervalMs);
    return changes + told.length;
  }

  /** What the list shows of one followed request, recording a change of its status. */
  async #lookFor(
    followUp: ClaimedFollowUp,
    read: ListRead,
    list: OperationId,
  ): Promise<{ look: FollowLook; told: boolean }> {
    const { requestId } = followUp;
    const found = await this.#find(followUp, read, list);
    if (found.kind === 'unsure') {
      return { look: { requestId, listed: false, error: found.why }, told: false };
    }
    if (found.kind === 'absent') {
      // Not in the part of a list payops read is not gone: only a whole list tells that.
      const { unfinished } = read;
      const error: FollowLookError | undefined = unfinished && {
        code: 'partly_read',
        list,
        unfinished,
      };
      return { look: { requestId, listed: false, ...(error && { error }) }, told: false };
    }
    const { id, status } = recordIdentity(found.record);
    const look = { requestId, listed: true, providerId: id };
    if (status === undefined) return { look, told: false };
    if (status === followUp.status) return { look, told: false };
    const outcome = statusOutcome(status, this.#deps.statuses);
    const told = await this.#deps.store.recordChange(requestId, {
      from: followUp.status,
      to: status,
      outcome,
      providerId: id,
      returnWindowMs: this.#deps.returnWindowMs,
    });
    if (told) {
      this.#deps.logger[outcome === 'failure' ? 'warn' : 'info'](
        { requestId, from: followUp.status, to: status, outcome },
        'provider status changed',
      );
    }
    return { look, told };
  }

  /** Its record: by the provider's id when known, else as reconciliation matches it. */
  async #find(followUp: ClaimedFollowUp, read: ListRead, list: OperationId): Promise<RecordInList> {
    if (followUp.providerId !== undefined) {
      const records = read.records.filter(
        (item) => recordIdentity(item).id === followUp.providerId,
      );
      const [record] = records;
      // Two records under one id: neither is taken for it.
      if (records.length > 1) return severalCouldBe(records.length, list);
      return record === undefined ? { kind: 'absent' } : { kind: 'found', record };
    }
    const request = await this.#deps.requests.get(followUp.requestId);
    if (!request) return { kind: 'absent' };
    const taken = await this.#deps.requests.providerIdsTaken(request.id, listedIds(read.records));
    return recordIn(read, request, taken, list);
  }
}

/**
 * A request's record in a list read, matched as reconciliation matches it and under the same
 * guards (`matchRecords`): never another request's record (`attributedElsewhere`), nor one that
 * may be older than its call or one of several, nor one in a list read only in part. Only a
 * `found` record's id is learnt, and kept.
 */
export function recordIn(
  read: ListRead,
  request: MatchedRequest,
  attributedElsewhere: ReadonlySet<string>,
  list: OperationId,
): RecordInList {
  const matched = matchRecords(request, read, attributedElsewhere);
  switch (matched.kind) {
    case 'found':
      return { kind: 'found', record: matched.match.record };
    case 'none':
      return { kind: 'absent' };
    case 'unfinished':
      // Nothing matched in the part read: absent from it, which the look says.
      if (matched.candidates.length === 0) return { kind: 'absent' };
      break;
    case 'ambiguous':
      if (matched.candidates.length > 1) return severalCouldBe(matched.candidates.length, list);
      break;
  }
  const extent = { list, records: read.records.length, pages: read.pages };
  return { kind: 'unsure', why: { code: 'not_taken', read: extent, doubt: doubtOf(matched) } };
}

function severalCouldBe(count: number, list: OperationId): RecordInList {
  return { kind: 'unsure', why: { code: 'several', list, count } };
}
