import type {
  ClaimedFollowUp,
  FollowLook,
  FollowStorePort,
  StatusChange,
} from '../../src/app/follow-port.ts';
import { type FollowStop, MISSING_EVENT, STOPPED_EVENT } from '../../src/domain/follow.ts';
import type { FollowLookError } from '../../src/domain/list-findings.ts';
import type { OperationId } from '../../src/domain/operations.ts';
import { RecordedDeliveries } from './slack-deliveries.ts';

/** What the store's outbox does when only the card changes: it is drawn again. */
export const CARD_REDRAWN = 'card_redrawn';
/** A status change, told in the thread and on the card. */
export const PROVIDER_STATUS = 'provider_status';

/** One followed write, as the fake keeps it. */
export interface FakeFollowUp {
  requestId: number;
  listOperation: OperationId;
  providerId: string | undefined;
  status: string | undefined;
  startedAt: number;
  watchUntil: number | undefined;
  stopped: FollowStop | undefined;
  claim: { by: string; until: number } | undefined;
  nextLookAt: number;
  listedBefore: boolean;
  missingTold: boolean;
  lastError: FollowLookError | undefined;
}

/**
 * Follow-ups in memory, under the rules the SQL store keeps: a claim is exclusive until its
 * lease ends, a change is recorded only from the status it was seen at and only while
 * followed, a record missing is told once, and each change tells Slack (`deliveries`).
 */
export class FakeFollowStore implements FollowStorePort {
  readonly followUps = new Map<number, FakeFollowUp>();
  readonly deliveries: RecordedDeliveries;
  readonly #now: () => number;

  constructor(options: { now?: () => number; deliveries?: RecordedDeliveries } = {}) {
    this.#now = options.now ?? Date.now;
    this.deliveries = options.deliveries ?? new RecordedDeliveries();
  }

  /** Starts following `requestId` in `listOperation`, due for a look now. */
  follow(
    requestId: number,
    listOperation: OperationId,
    known: { providerId?: string; status?: string; startedAt?: number } = {},
  ): FakeFollowUp {
    const followUp: FakeFollowUp = {
      requestId,
      listOperation,
      providerId: known.providerId,
      status: known.status,
      startedAt: known.startedAt ?? this.#now(),
      watchUntil: undefined,
      stopped: undefined,
      claim: undefined,
      nextLookAt: this.#now(),
      listedBefore: false,
      missingTold: false,
      lastError: undefined,
    };
    this.followUps.set(requestId, followUp);
    return followUp;
  }

  async claimDue(
    claimedBy: string,
    leaseMs: number,
    _intervalMs: number,
    limit: number,
  ): Promise<ClaimedFollowUp[]> {
    const now = this.#now();
    const free = [...this.followUps.values()].filter(
      (followUp) =>
        followUp.stopped === undefined &&
        (followUp.claim === undefined || followUp.claim.until <= now),
    );
    const dueLists = new Set(
      free.filter((followUp) => followUp.nextLookAt <= now).map((f) => f.listOperation),
    );
    return free
      .filter((followUp) => dueLists.has(followUp.listOperation))
      .slice(0, limit)
      .map((followUp) => {
        followUp.claim = { by: claimedBy, until: now + leaseMs };
        return {
          requestId: followUp.requestId,
          listOperation: followUp.listOperation,
          providerId: followUp.providerId,
          status: followUp.status,
          startedAt: new Date(followUp.startedAt).toISOString(),
          watchUntil:
            followUp.watchUntil === undefined
              ? undefined
              : new Date(followUp.watchUntil).toISOString(),
        };
      });
  }

  async recordChange(requestId: number, change: StatusChange): Promise<boolean> {
    const followUp = this.followUps.get(requestId);
    if (!followUp || followUp.stopped !== undefined || followUp.status !== change.from) {
      return false;
    }
    followUp.status = change.to;
    followUp.providerId ??= change.providerId;
    if (change.outcome === 'success') {
      followUp.watchUntil ??= this.#now() + change.returnWindowMs;
    }
    if (change.outcome === 'failure') followUp.stopped = 'final_status';
    this.deliveries.tell(requestId, PROVIDER_STATUS, {
      from: change.from,
      to: change.to,
      outcome: change.outcome,
    });
    return true;
  }

  async recordMissing(requestIds: readonly number[]): Promise<number[]> {
    const told: number[] = [];
    for (const requestId of requestIds) {
      const followUp = this.followUps.get(requestId);
      if (!followUp?.listedBefore || followUp.missingTold || followUp.stopped) continue;
      followUp.missingTold = true;
      this.deliveries.tell(requestId, MISSING_EVENT);
      told.push(requestId);
    }
    return told;
  }

  async stopAtFinal(requestId: number, status: string): Promise<boolean> {
    return this.#stop(requestId, 'final_status', (followUp) => followUp.status === status);
  }

  async startWatching(requestId: number, status: string, returnWindowMs: number): Promise<boolean> {
    const followUp = this.followUps.get(requestId);
    if (!followUp || followUp.stopped || followUp.status !== status || followUp.watchUntil) {
      return false;
    }
    followUp.watchUntil = this.#now() + returnWindowMs;
    this.deliveries.tell(requestId, CARD_REDRAWN);
    return true;
  }

  async stopWatched(): Promise<number[]> {
    const now = this.#now();
    return this.#stopAll(
      'return_window',
      (followUp) => followUp.watchUntil !== undefined && followUp.watchUntil <= now,
    );
  }

  async recordLooks(
    claimedBy: string,
    looks: readonly FollowLook[],
    intervalMs: number,
  ): Promise<void> {
    const now = this.#now();
    for (const look of looks) {
      const followUp = this.followUps.get(look.requestId);
      if (followUp?.claim?.by !== claimedBy) continue;
      followUp.claim = undefined;
      followUp.nextLookAt = now + intervalMs;
      followUp.lastError = look.error;
      if (look.listed) followUp.listedBefore = true;
      followUp.providerId ??= look.providerId;
    }
  }

  async stopOverdue(followForMs: number): Promise<number[]> {
    const now = this.#now();
    return this.#stopAll(
      'time_limit',
      (followUp) => followUp.watchUntil === undefined && followUp.startedAt + followForMs <= now,
    );
  }

  #stop(requestId: number, why: FollowStop, when: (followUp: FakeFollowUp) => boolean): boolean {
    const followUp = this.followUps.get(requestId);
    if (!followUp || followUp.stopped !== undefined || !when(followUp)) return false;
    followUp.stopped = why;
    // A time limit is told in the thread; the other ends show on the card.
    this.deliveries.tell(requestId, why === 'time_limit' ? STOPPED_EVENT : CARD_REDRAWN, { why });
    return true;
  }

  #stopAll(why: FollowStop, when: (followUp: FakeFollowUp) => boolean): number[] {
    return [...this.followUps.keys()].filter((requestId) => this.#stop(requestId, why, when));
  }
}
