import { REMINDER_EVENTS } from '../domain/reminders.ts';
import { type Database, iso } from './database.ts';

/**
 * The Slack outbox in SQL. Rows are written by the request store's statements (the state
 * change and its message in one statement or transaction); here they are claimed, each by one
 * process (a conditional update: a row another replica claimed is not returned), and settled.
 */

export type DeliveryKind = 'card' | 'card_update' | 'notice' | 'confirmation' | 'announcement';
export type DeliveryState = 'waiting' | 'sending' | 'delivered' | 'failed' | 'superseded';

/** Where the requester's confirmation goes: a command's response_url, or an ephemeral in a channel (a form has no response_url). */
export type AnswerTarget = { responseUrl: string } | { channelId: string; userId: string };

/** A confirmation's target as stored. */
export interface DeliveryTarget {
  responseUrl?: string;
  channelId?: string;
  userId?: string;
  /** Why the card could not be posted (a `card_failed` confirmation). */
  cause?: string;
}

/** A delivery ready to go, with where its request's card is (once posted). */
export interface Delivery {
  id: number;
  /** Undefined for an announcement, which belongs to no request. */
  requestId: number | undefined;
  kind: DeliveryKind;
  /**
   * What a notice tells (a status, or reconciled / resolved / late_outcome / card_failed), or
   * an announcement (policy_changed, approver_group_changed).
   */
  event: string | undefined;
  /** An announcement's data, as its enqueuer stored it: the Slack side reads and words it. */
  body: unknown;
  target: DeliveryTarget | undefined;
  attempts: number;
  /** A post that may have reached Slack: looked for before posting again. */
  maybePosted: boolean;
  enqueuedAt: string;
  giveUpAt: string;
  channelId: string | undefined;
  messageTs: string | undefined;
  /** A reminder of a request no longer pending: it has nothing left to ask, and costs no call. */
  moot: boolean;
}

/** A delivery as `/pay request N` shows it: one of a request, so never an announcement. */
export interface DeliveryStatus {
  id: number;
  kind: Exclude<DeliveryKind, 'announcement'>;
  event: string | undefined;
  state: DeliveryState;
  attempts: number;
  dueAt: string;
  deliveredAt: string | undefined;
  lastError: string | undefined;
}

/**
 * The approval card of each request in `source` redrawn as it is now: joins the request's
 * waiting redraw if it has one (a busy request costs one chat.update), else a new one due at
 * `due`. Delivered by the Slack outbox.
 */
export function enqueueCardUpdate(source: string, due = 'now()'): string {
  return `insert into slack_outbox (request_id, kind, due_at, give_up_at)
    select id, 'card_update', ${due}, now() + interval '24 hours' from ${source}
    on conflict (request_id) where kind = 'card_update' and state = 'waiting'
    do update set due_at = least(slack_outbox.due_at, excluded.due_at), enqueued_at = now()`;
}

/** A line to the requester in the card's thread, telling `event` (a status, or what was learnt). */
export function enqueueNotice(source: string, event: string): string {
  return `insert into slack_outbox (request_id, kind, event, give_up_at)
    select id, 'notice', ${event}, now() + interval '24 hours' from ${source}`;
}

/**
 * A message to the approvals channel that belongs to no request, telling `event` with `body`
 * (SQL expressions: a jsonb value). Posted once, like a card; worth posting for a week.
 */
export function enqueueAnnouncement(event: string, body: string): string {
  return `insert into slack_outbox (kind, event, body, give_up_at)
    values ('announcement', ${event}, ${body}, now() + interval '7 days')`;
}

/** The reminder events (src/domain/reminders.ts), as an SQL list. */
const REMINDER_EVENT_LIST = REMINDER_EVENTS.map((event) => `'${event}'`).join(', ');
/** Reminders of a pending request: the least urgent of notices. */
const REMINDER = `(o.kind = 'notice' and coalesce(o.event in (${REMINDER_EVENT_LIST}), false))`;

const DELIVERY_COLUMNS = `o.id, o.request_id, o.kind, o.event, o.target, o.body, o.attempts, o.maybe_posted,
  o.enqueued_at, o.give_up_at, r.channel_id, r.message_ts,
  (${REMINDER} and r.status <> 'pending') as moot`;

/**
 * Due deliveries of one urgency, oldest first, in the open index's order: reminders are read
 * after everything else (`due`), so a burst of them never holds back a payout's outcome. A
 * redraw, a notice or the requester's confirmation waits for its card to be posted (the
 * confirmation says where it is, and a click on it then counts); a redraw waits while another
 * post or redraw of its card is in flight (a slower one must never overwrite a newer one); a
 * notice waits for the notices before it, but not for a reminder still waiting its turn. An
 * announcement, of no request, waits for nothing.
 */
function dueOf(reminders: boolean): string {
  return `
  select ${DELIVERY_COLUMNS}
    from slack_outbox o left join payment_requests r on r.id = o.request_id
   where o.state = 'waiting' and o.due_at <= now() and ${reminders ? '' : 'not '}${REMINDER}
     and (o.kind in ('card', 'announcement') or r.message_ts is not null or o.event = 'card_failed')
     and not (o.kind = 'card_update' and exists (
           select 1 from slack_outbox s where s.request_id = o.request_id
              and s.state = 'sending' and s.kind in ('card', 'card_update')))
     and not (o.kind = 'notice' and exists (
           select 1 from slack_outbox n where n.request_id = o.request_id and n.kind = 'notice'
              and n.id < o.id and n.state in ('waiting', 'sending')
              and (n.state = 'sending' or coalesce(n.event not in (${REMINDER_EVENT_LIST}), true))))
   order by o.due_at, o.id
   limit $1`;
}
const DUE = dueOf(false);
const DUE_REMINDERS = dueOf(true);

/** Claimed only if still waiting: of two replicas claiming one row, the second gets nothing. */
const CLAIM = `
  with claimed as (
    update slack_outbox set state = 'sending', attempts = attempts + 1, claimed_by = $2, claimed_at = now(),
           claimed_until = now() + make_interval(secs => $3::double precision / 1000)
     where id = any($1::bigint[]) and state = 'waiting' and due_at <= now()
    returning *
  )
  select ${DELIVERY_COLUMNS} from claimed o left join payment_requests r on r.id = o.request_id`;

/**
 * Delivered, by the process that holds the claim. A posted card records where it is; a card
 * found in the channel's history (its post's answer was lost) may have been drawn before later
 * changes, so it is redrawn.
 */
const DELIVERED = `
  with done as (
    update slack_outbox set state = 'delivered', delivered_at = now(), last_error = null,
           claimed_until = null
     where id = $1 and claimed_by = $2 and state = 'sending'
    returning request_id, kind
  ), card as (
    update payment_requests r set channel_id = $3, message_ts = $4, updated_at = now()
      from done where done.kind = 'card' and r.id = done.request_id
    returning r.id
  ), redraw as (
    ${enqueueCardUpdate('card where $5::boolean')}
  )
  select count(*) as settled from done`;

/**
 * A claimed row back to waiting, or, for a redraw while another redraw of the same card already
 * waits, superseded by it (it draws the card as it is then; one waiting redraw per card).
 */
function backToWaiting(row: string): string {
  return `case when ${row}.kind = 'card_update' and exists (
      select 1 from slack_outbox w where w.request_id = ${row}.request_id
         and w.kind = 'card_update' and w.state = 'waiting' and w.id <> ${row}.id)
    then 'superseded' else 'waiting' end`;
}

/** Back to waiting, due again in $3 ms; $5: whether a post of it may be out there unseen. */
const RETRY_LATER = `
  update slack_outbox o set state = ${backToWaiting('o')}, claimed_until = null, last_error = $4,
         due_at = now() + make_interval(secs => $3::double precision / 1000),
         maybe_posted = $5
   where id = $1 and claimed_by = $2 and state = 'sending'`;

/**
 * Given up: recorded. For a card, everything waiting on it fails too, and its requester is told
 * why: on their command's response_url while it still works, else ephemeral where they asked.
 */
const FAILED = `
  with failed as (
    update slack_outbox set state = 'failed', claimed_until = null, last_error = $3
     where id = $1 and claimed_by = $2 and state = 'sending'
    returning request_id, kind
  ), dependents as (
    update slack_outbox d set state = 'failed', last_error = 'its approval card was never posted'
      from failed
     where failed.kind = 'card' and d.request_id = failed.request_id and d.state = 'waiting'
  ), told as (
    insert into slack_outbox (request_id, kind, event, target, give_up_at)
    select r.id, 'confirmation', 'card_failed', jsonb_build_object('cause', $3::text) || coalesce(
             (select c.target from slack_outbox c
               where c.request_id = r.id and c.kind = 'confirmation' and c.target ? 'responseUrl'
                 and c.enqueued_at > now() - interval '29 minutes'
               order by c.id limit 1),
             jsonb_build_object('channelId', r.requester_channel_id, 'userId', r.requester_id)),
           now() + interval '24 hours'
      from failed join payment_requests r on r.id = failed.request_id
     where failed.kind = 'card'
  )
  select count(*) as settled from failed`;

/**
 * Housekeeping, at every dispatcher's pass now and then: claims whose holder died (or hung) past
 * the lease go back to waiting (a post may have reached Slack: it is looked for first); what
 * waits on a card that was never posted, or waits past the time it meant something, fails.
 */
const HOUSEKEEPING = `
  with recovered as (
    update slack_outbox o set state = ${backToWaiting('o')}, claimed_until = null,
           maybe_posted = o.maybe_posted or o.kind in ('card', 'notice', 'announcement'),
           last_error = coalesce(o.last_error, 'its sender stopped before Slack answered')
     where o.state = 'sending' and o.claimed_until < now()
    returning o.id
  ), orphaned as (
    update slack_outbox d set state = 'failed', last_error = 'its approval card was never posted'
     where d.state = 'waiting' and d.kind <> 'card' and d.event is distinct from 'card_failed'
       and exists (select 1 from slack_outbox c
                    where c.request_id = d.request_id and c.kind = 'card' and c.state = 'failed')
    returning d.id
  ), stale as (
    update slack_outbox e set state = 'failed',
           last_error = coalesce(e.last_error || '; ', '') || 'given up: no longer meaningful'
     where e.state = 'waiting' and e.give_up_at < now()
    returning e.id
  )
  select (select count(*) from recovered) as recovered`;

export class OutboxStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async due(limit: number): Promise<Delivery[]> {
    // Two reads, each stopping at `limit` in index order, rather than one sorting every due row.
    const urgent = await this.#db.query<DeliveryRow>(DUE, [limit]);
    const rows =
      urgent.length < limit
        ? [
            ...urgent,
            ...(await this.#db.query<DeliveryRow>(DUE_REMINDERS, [limit - urgent.length])),
          ]
        : urgent;
    return rows.map(toDelivery);
  }

  async claim(ids: number[], claimedBy: string, leaseMs: number): Promise<Delivery[]> {
    if (ids.length === 0) return [];
    const rows = await this.#db.query<DeliveryRow>(CLAIM, [ids, claimedBy, leaseMs]);
    return rows.map(toDelivery);
  }

  async delivered(
    id: number,
    claimedBy: string,
    where: { channelId: string; ts: string; found: boolean } | undefined,
  ): Promise<boolean> {
    return settled(
      await this.#db.query(DELIVERED, [
        id,
        claimedBy,
        where?.channelId ?? null,
        where?.ts ?? null,
        where?.found ?? false,
      ]),
    );
  }

  async retryLater(
    id: number,
    claimedBy: string,
    afterMs: number,
    error: string,
    maybePosted: boolean,
  ): Promise<void> {
    await this.#db.query(RETRY_LATER, [id, claimedBy, afterMs, error, maybePosted]);
  }

  async failed(id: number, claimedBy: string, error: string): Promise<boolean> {
    return settled(await this.#db.query(FAILED, [id, claimedBy, error]));
  }

  async renewClaims(claimedBy: string, ids: readonly number[], leaseMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.#db.query(
      `update slack_outbox set claimed_until = now() + make_interval(secs => $3::double precision / 1000)
        where claimed_by = $1 and id = any($2::bigint[]) and state = 'sending'`,
      [claimedBy, ids, leaseMs],
    );
  }

  async housekeeping(): Promise<void> {
    await this.#db.query(HOUSEKEEPING);
  }

  async ofRequest(requestId: number): Promise<DeliveryStatus[]> {
    const rows = await this.#db.query<StatusRow>(
      `select id, kind, event, state, attempts, due_at, delivered_at, last_error
         from slack_outbox where request_id = $1 order by id`,
      [requestId],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      kind: row.kind,
      event: row.event ?? undefined,
      state: row.state,
      attempts: row.attempts,
      dueAt: iso(row.due_at),
      deliveredAt: row.delivered_at ? iso(row.delivered_at) : undefined,
      lastError: row.last_error ?? undefined,
    }));
  }

  /** When the next waiting delivery is due, if any: how long the dispatcher may sleep. */
  async nextDueAt(): Promise<Date | undefined> {
    const [row] = await this.#db.query<{ due_at: Date | string | null }>(
      // Rows already due but held (waiting for their card) are not a reason to look sooner.
      "select min(due_at) as due_at from slack_outbox where state = 'waiting' and due_at > now()",
    );
    return row?.due_at ? new Date(row.due_at) : undefined;
  }
}

interface DeliveryRow {
  id: unknown;
  request_id: unknown;
  kind: DeliveryKind;
  event: string | null;
  target: DeliveryTarget | string | null;
  body: unknown;
  attempts: number;
  maybe_posted: boolean;
  enqueued_at: Date | string;
  give_up_at: Date | string;
  channel_id: string | null;
  message_ts: string | null;
  moot: boolean;
}

interface StatusRow {
  id: unknown;
  kind: DeliveryStatus['kind'];
  event: string | null;
  state: DeliveryState;
  attempts: number;
  due_at: Date | string;
  delivered_at: Date | string | null;
  last_error: string | null;
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: Number(row.id),
    requestId: row.request_id === null ? undefined : Number(row.request_id),
    kind: row.kind,
    event: row.event ?? undefined,
    target: typeof row.target === 'string' ? JSON.parse(row.target) : (row.target ?? undefined),
    body: typeof row.body === 'string' ? JSON.parse(row.body) : (row.body ?? undefined),
    attempts: row.attempts,
    maybePosted: row.maybe_posted,
    enqueuedAt: iso(row.enqueued_at),
    giveUpAt: iso(row.give_up_at),
    channelId: row.channel_id ?? undefined,
    messageTs: row.message_ts ?? undefined,
    moot: row.moot,
  };
}

function settled(rows: Array<Record<string, unknown>>): boolean {
  return Number(rows[0]?.settled ?? 0) > 0;
}
