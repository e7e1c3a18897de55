import {
  CHANGE_EVENT_PREFIX,
  FOLLOWED_LISTS,
  type FollowStop,
  MISSING_EVENT,
  type ProviderFollow,
  type ProviderStatusSeen,
  STOPPED_EVENT,
  type StatusOutcome,
} from '../domain/follow.ts';
import type { FollowLookError } from '../domain/list-findings.ts';
import type { OperationId } from '../domain/operations.ts';
import { type Database, iso } from './database.ts';
import { enqueueCardUpdate, enqueueNotice } from './outbox-store.ts';

/**
 * Submitted writes followed at the provider (table `follow_ups`). What is learnt is written by
 * conditional updates that carry their audit row and Slack messages in the same statement: of
 * several replicas looking at once, only the one whose update wins tells a change.
 */

/** The writes followed and their lists, as SQL rows `(operation_id, list_operation)`. */
const FOLLOWED_VALUES = [...FOLLOWED_LISTS]
  .map(([operation, list]) => `('${operation}', '${list}')`)
  .join(', ');

/**
 * Starts following each request of `source` (a relation with `id` and `operation_id`) whose
 * write is followed, knowing its record by the SQL expressions `providerId` and `status` (either
 * may be null). Meant to run in the statement or transaction that makes it submitted or found.
 */
export function startFollowing(source: string, providerId: string, status: string): string {
  return `insert into follow_ups (request_id, list_operation, provider_id, last_status, history)
    select s.id, l.list_operation, ${providerId}, ${status},
           case when ${status} is null then '[]'::jsonb
                else jsonb_build_array(jsonb_build_object('status', ${status}, 'seenAt', now())) end
      from ${source} s
      join (values ${FOLLOWED_VALUES}) as l (operation_id, list_operation)
        on l.operation_id = s.operation_id
    on conflict (request_id) do nothing`;
}

/**
 * The follow-up of a request as `ProviderFollow` reads it, for a query over `payment_requests r`
 * (null when it is not followed).
 */
export const FOLLOW_STATE = `(select jsonb_build_object(
    'provider_id', f.provider_id, 'last_status', f.last_status, 'history', f.history,
    'started_at', f.started_at, 'watch_until', f.watch_until, 'last_checked_at', f.last_checked_at,
    'last_listed_at', f.last_listed_at, 'disappeared_at', f.disappeared_at,
    'last_error', f.last_error, 'stopped_reason', f.stopped_reason, 'stopped_at', f.stopped_at)
  from follow_ups f where f.request_id = r.id)`;

export interface FollowStateRow {
  provider_id: string | null;
  last_status: string | null;
  history: ProviderStatusSeen[];
  started_at: string;
  watch_until: string | null;
  last_checked_at: string | null;
  last_listed_at: string | null;
  disappeared_at: string | null;
  /** A `FollowLookError` as JSON text. */
  last_error: string | null;
  stopped_reason: FollowStop | null;
  stopped_at: string | null;
}

export function toProviderFollow(
  value: FollowStateRow | string | null | undefined,
): ProviderFollow | undefined {
  if (value === null || value === undefined) return undefined;
  const row: FollowStateRow = typeof value === 'string' ? JSON.parse(value) : value;
  return {
    providerId: row.provider_id ?? undefined,
    status: row.last_status ?? undefined,
    history: row.history.map((seen) => ({ ...seen, seenAt: iso(seen.seenAt) })),
    startedAt: iso(row.started_at),
    watchUntil: isoOrUndefined(row.watch_until),
    lastCheckedAt: isoOrUndefined(row.last_checked_at),
    lastListedAt: isoOrUndefined(row.last_listed_at),
    disappearedAt: isoOrUndefined(row.disappeared_at),
    lastError: row.last_error ? JSON.parse(row.last_error) : undefined,
    stoppedReason: row.stopped_reason ?? undefined,
    stoppedAt: isoOrUndefined(row.stopped_at),
  };
}

/** A followed request claimed for one look at its list. */
export interface ClaimedFollowUp {
  requestId: number;
  listOperation: OperationId;
  providerId: string | undefined;
  status: string | undefined;
  /** When following began (its write was submitted or found). */
  startedAt: string;
  /** Set once a success was seen: followed until then for a return. */
  watchUntil: string | undefined;
}

/** What one look at the list learnt of a claimed request. */
export interface FollowLook {
  requestId: number;
  /** The list showed its record. */
  listed: boolean;
  /** Its provider id, when a match told it. */
  providerId?: string | undefined;
  /** Why nothing was learnt. */
  error?: FollowLookError | undefined;
}

/** `$n` milliseconds as an interval. */
const ms = (n: number) => `make_interval(secs => $${n}::double precision / 1000)`;

/**
 * Claims every open follow-up of each list that has one due (null `next_check_at`: one interval
 * after its start), so one read serves them all; rows another process holds are skipped.
 * $1 claimer, $2 lease, $3 follow interval, $4 at most this many.
 */
const CLAIM_DUE = `
  with due_lists as (
    select distinct list_operation from follow_ups
     where stopped_reason is null
       and coalesce(next_check_at, started_at + ${ms(3)}) <= now()
       and (claimed_until is null or claimed_until < now())
  ), claimable as (
    select request_id from follow_ups
     where stopped_reason is null and list_operation in (select list_operation from due_lists)
       and (claimed_until is null or claimed_until < now())
     order by coalesce(last_checked_at, started_at), request_id
     limit $4
       for update skip locked
  )
  update follow_ups f set claimed_by = $1, claimed_until = now() + ${ms(2)}
    from claimable c where f.request_id = c.request_id
  returning f.request_id, f.list_operation, f.provider_id, f.last_status, f.started_at,
            f.watch_until`;

/**
 * For each request of `source` (with `id`): an audit row (`event`, `detail` a jsonb expression
 * over `source`), its card redrawn and a notice in its thread telling `notice` (a text
 * expression over `source`). CTEs to follow the one that writes `source`.
 */
function toldCtes(source: string, event: string, detail: string, notice: string): string {
  return `, audited as (
    insert into audit_log (request_id, actor, event, from_status, to_status, fingerprint, detail)
    select s.id, 'payops', '${event}', r.status, r.status, r.fingerprint, ${detail}
      from ${source} s join payment_requests r on r.id = s.id
  ), redraw as (
    ${enqueueCardUpdate(source)}
  ), told as (
    ${enqueueNotice(source, notice)}
  )`;
}

/**
 * $1's status seen to change from $2 (null: none known) to $3, whose outcome is $4 (null,
 * `success` or `failure`); $5 its provider id if learnt. A failure ends following; a success
 * starts the watch for a return, $6 ms from the first success seen. Written only if its last
 * status is still $2 and it is still followed.
 */
const RECORD_CHANGE = `
  with changed as (
    update follow_ups
       set last_status = $3,
           history = history || jsonb_build_array(
             jsonb_build_object('status', $3::text, 'seenAt', now())
               || case when $4::text is null then '{}'::jsonb
                       else jsonb_build_object('outcome', $4::text) end
               || case when $4::text = 'failure' then '{"final": true}'::jsonb else '{}'::jsonb end),
           provider_id = coalesce(provider_id, $5),
           unchanged_since = now(),
           watch_until = case when $4::text = 'success' then coalesce(watch_until, now() + ${ms(6)})
                              else watch_until end,
           stopped_reason = case when $4::text = 'failure' then 'final_status' else stopped_reason end,
           stopped_at = case when $4::text = 'failure' then now() else stopped_at end
     where request_id = $1 and last_status is not distinct from $2::text and stopped_reason is null
    returning request_id as id, jsonb_array_length(history) as seen
  )${toldCtes('changed', 'provider_status', "jsonb_build_object('from', $2::text, 'to', $3::text, 'final', $4::text is not distinct from 'failure') || case when $4::text is null then '{}'::jsonb else jsonb_build_object('outcome', $4::text) end", `'${CHANGE_EVENT_PREFIX}' || seen`)}
  select seen from changed`;

/** Requests of $1 listed before and missing now: told once, and still looked for. */
const RECORD_MISSING = `
  with missing as (
    update follow_ups set disappeared_at = now()
     where request_id = any($1::bigint[]) and last_listed_at is not null
       and disappeared_at is null and stopped_reason is null
    returning request_id as id, last_status
  )${toldCtes('missing', 'provider_record_missing', "jsonb_build_object('lastStatus', s.last_status)", `'${MISSING_EVENT}'`)}
  select id from missing`;

/**
 * A look at their list settled for the claimed requests $2 (in order with $3 listed, $4
 * provider ids, $5 errors): the next look is due in one interval $6, or 15 minutes for a record
 * unchanged for an hour. Only claims still held by $1.
 */
const RECORD_LOOKS = `
  update follow_ups f
     set last_checked_at = now(),
         last_listed_at = case when u.listed then now() else f.last_listed_at end,
         provider_id = coalesce(f.provider_id, u.provider_id),
         last_error = u.error,
         next_check_at = now() + case
           when f.unchanged_since <= now() - interval '1 hour'
             then greatest(interval '15 minutes', ${ms(6)})
           else ${ms(6)} end,
         claimed_by = null, claimed_until = null
    from unnest($2::bigint[], $3::boolean[], $4::text[], $5::text[])
      as u (id, listed, provider_id, error)
   where f.request_id = u.id and f.claimed_by = $1`;

/**
 * Following stopped for requests followed for longer than $1 ms with no success seen: each
 * thread says so, once.
 */
const STOP_OVERDUE = `
  with stopped as (
    update follow_ups
       set stopped_reason = 'time_limit', stopped_at = now(), claimed_by = null, claimed_until = null
     where stopped_reason is null and watch_until is null and started_at <= now() - ${ms(1)}
    returning request_id as id, last_status
  )${toldCtes('stopped', 'follow_stopped', "jsonb_build_object('reason', 'time_limit', 'lastStatus', s.last_status)", `'${STOPPED_EVENT}'`)}
  select id from stopped`;

/** `history` with `{key: value}` (jsonb) added to its last entry, if it has one. */
const onLastSeen = (key: string, value: string) => `case when jsonb_array_length(history) = 0
  then history else jsonb_set(history, array[(jsonb_array_length(history) - 1)::text, '${key}'], ${value}) end`;

/** An update of `follow_ups` (`set`, `where`) whose rows' cards are redrawn; selects their ids. */
const withCardsRedrawn = (set: string, where: string) => `
  with changed as (
    update follow_ups set ${set} where ${where}
    returning request_id as id
  ), redraw as (
    ${enqueueCardUpdate('changed')}
  )
  select id from changed`;

/** Ended now, its claim let go. */
const ENDED = 'stopped_at = now(), claimed_by = null, claimed_until = null';

/** $1's last status $2, seen again, is a failure: following stops without a new notice. */
const STOP_AT_FINAL = withCardsRedrawn(
  `stopped_reason = 'final_status', ${ENDED}, history = ${onLastSeen('final', "'true'")}`,
  'request_id = $1 and last_status = $2 and stopped_reason is null',
);

/**
 * $1's last status $2, seen again, is a success not yet watched (the write's answer said so):
 * followed for a return for $3 ms from now, without a new notice.
 */
const START_WATCHING = withCardsRedrawn(
  `watch_until = now() + ${ms(3)}, history = ${onLastSeen('outcome', `'"success"'`)}`,
  'request_id = $1 and last_status = $2 and watch_until is null and stopped_reason is null',
);

/** Following ends for successes watched to the end of their return window: the card says so. */
const STOP_WATCHED = withCardsRedrawn(
  `stopped_reason = 'return_window', ${ENDED}`,
  'stopped_reason is null and watch_until <= now()',
);

export class FollowStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async claimDue(
    claimedBy: string,
    leaseMs: number,
    intervalMs: number,
    limit: number,
  ): Promise<ClaimedFollowUp[]> {
    const rows = await this.#db.query<{
      request_id: unknown;
      list_operation: OperationId;
      provider_id: string | null;
      last_status: string | null;
      started_at: Date | string;
      watch_until: Date | string | null;
    }>(CLAIM_DUE, [claimedBy, leaseMs, intervalMs, limit]);
    return rows.map((row) => ({
      requestId: Number(row.request_id),
      listOperation: row.list_operation,
      providerId: row.provider_id ?? undefined,
      status: row.last_status ?? undefined,
      startedAt: iso(row.started_at),
      watchUntil: row.watch_until === null ? undefined : iso(row.watch_until),
    }));
  }

  /**
   * Records a change of status, told in the thread and on the card; false when another process
   * recorded it first (or it is no longer followed), which then tells nothing. A success is
   * watched for a return for `returnWindowMs`.
   */
  async recordChange(
    requestId: number,
    change: {
      from: string | undefined;
      to: string;
      outcome: StatusOutcome | undefined;
      providerId: string | undefined;
      returnWindowMs: number;
    },
  ): Promise<boolean> {
    const rows = await this.#db.query(RECORD_CHANGE, [
      requestId,
      change.from ?? null,
      change.to,
      change.outcome ?? null,
      change.providerId ?? null,
      change.returnWindowMs,
    ]);
    return rows.length > 0;
  }

  /** Those of `requestIds` whose record was listed before and is missing now, each told once. */
  async recordMissing(requestIds: readonly number[]): Promise<number[]> {
    if (requestIds.length === 0) return [];
    const rows = await this.#db.query<{ id: unknown }>(RECORD_MISSING, [requestIds]);
    return rows.map((row) => Number(row.id));
  }

  async stopAtFinal(requestId: number, status: string): Promise<boolean> {
    return (await this.#db.query(STOP_AT_FINAL, [requestId, status])).length > 0;
  }

  /** Watches for a return a request whose last status `status` is a success not yet watched. */
  async startWatching(requestId: number, status: string, returnWindowMs: number): Promise<boolean> {
    return (await this.#db.query(START_WATCHING, [requestId, status, returnWindowMs])).length > 0;
  }

  /** Stops following the successes whose return window has passed; resolves with them. */
  async stopWatched(): Promise<number[]> {
    const rows = await this.#db.query<{ id: unknown }>(STOP_WATCHED);
    return rows.map((row) => Number(row.id));
  }

  /** Settles this process's claims after a look, scheduling the next one. */
  async recordLooks(
    claimedBy: string,
    looks: readonly FollowLook[],
    intervalMs: number,
  ): Promise<void> {
    if (looks.length === 0) return;
    await this.#db.query(RECORD_LOOKS, [
      claimedBy,
      looks.map((look) => look.requestId),
      looks.map((look) => look.listed),
      looks.map((look) => look.providerId ?? null),
      looks.map((look) => (look.error ? JSON.stringify(look.error) : null)),
      intervalMs,
    ]);
  }

  /** Stops following what has been followed for `followForMs`; resolves with those requests. */
  async stopOverdue(followForMs: number): Promise<number[]> {
    const rows = await this.#db.query<{ id: unknown }>(STOP_OVERDUE, [followForMs]);
    return rows.map((row) => Number(row.id));
  }
}

function isoOrUndefined(value: string | null): string | undefined {
  return value === null ? undefined : iso(value);
}
