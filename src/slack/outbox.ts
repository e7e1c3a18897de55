import { setTimeout as sleep } from 'node:timers/promises';
import {
  ErrorCode,
  type WebAPICallResult,
  type WebAPIHTTPError,
  type WebAPIRateLimitedError,
  type WebClient,
} from '@slack/web-api';
import type { Delivery, OutboxPort } from '../app/outbox-port.ts';
import type { PaymentRequest } from '../domain/approval.ts';
import { parseFollowEvent } from '../domain/follow.ts';
import { maskLongNumbers } from '../domain/masking.ts';
import { isReminderEvent } from '../domain/reminders.ts';
import type { RoleMembers } from '../domain/roles.ts';
import { WakeUp } from '../lib/wake-up.ts';
import type { Logger } from '../logger.ts';
import { postPrivately } from './answer-privately.ts';
import { renderAnnouncement } from './blocks/announcements.ts';
import {
  type FreezeNotice,
  renderApprovalCard,
  renderRequesterConfirmation,
  renderThreadUpdate,
} from './blocks/approval-card.ts';
import { notice, type SlackMessage } from './blocks/format.ts';
import { renderQuestionNotice } from './blocks/questions.ts';
import { renderReminder } from './blocks/reminders.ts';
import type { LimitedCall, SlackRateLimiter } from './rate-limits.ts';
import { platformErrorOf, TRANSIENT_ERRORS } from './slack-errors.ts';

/**
 * Delivers what the outbox holds: approval cards, their redraws, thread notices, requester
 * confirmations and announcements to the approvals channel. It keeps to Slack's limits itself (a burst waits here, not in 429s), honours
 * Retry-After, backs off on 5xx and network errors while a delivery still means something, and
 * never posts a card or a notice twice: after an answer it did not get, it looks for the message
 * (by its metadata, posted by payops's own bot) before posting again, since Slack has no
 * idempotency key.
 */

export interface OutboxDeps {
  store: OutboxPort;
  /** A request and the kill switch as they are now: what its card shows. */
  current(
    id: number,
  ): Promise<{ request: PaymentRequest; freeze: FreezeNotice | undefined } | undefined>;
  /** A WebClient that neither retries nor waits out 429s itself: the dispatcher does both. */
  client: WebClient;
  /**
   * payops's own bot (`bot_id` from auth.test): a message found again must be posted by it, as
   * anyone in the channel can post a message carrying payops's metadata.
   */
  botId: string;
  approvalsChannelId: string;
  /** The slash command as configured, for the lines of cards and notices that name one. */
  command: string;
  /** Who a pending request's reminder nudges (PAYOPS_APPROVERS). */
  approvers: RoleMembers;
  limiter: SlackRateLimiter;
  logger: Logger;
  /** Names this process on its claims. */
  instanceId: string;
  /** A claim not settled in this long is taken back (its process died or hung). */
  claimLeaseMs?: number;
}

/** The metadata event types that mark payops's own messages, to find them again. */
export const CARD_EVENT = 'payops_approval_card';
export const NOTICE_EVENT = 'payops_notice';
/** A notice's event for an approver's question: its body holds who asked what. */
const QUESTION_EVENT = 'question';
/** A notice about the request's record at the provider (its status followed), with its `event`. */
export const FOLLOW_NOTICE_EVENT = 'payops_provider_status';
/** An announcement of no request (the policy or an approver group changed), with its `delivery_id` and `event`. */
export const ANNOUNCEMENT_EVENT = 'payops_announcement';

/** Slack calls of the dispatcher fail after this long (their outcome is then unknown). */
export const DISPATCH_CALL_TIMEOUT_MS = 10_000;
/**
 * A claim lasts this long unless renewed; its holder renews it three times per lease while it
 * lives, so only a dead (or frozen) holder's claim is taken back.
 */
const CLAIM_LEASE_MS = 6_000;
/** Longest sleep between looks at the outbox (another replica may have added to it). */
const IDLE_POLL_MS = 500;
const RECOVER_EVERY_MS = 1_000;
/** The outbox is read at most this often, however many changes nudge it. */
const MIN_PASS_MS = 50;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** A post whose answer never came is looked for no sooner: Slack may still be posting it. */
const LOOK_AFTER_MS = 2_000;
/** How many pages of channel history are read looking for a card whose post went unanswered. */
const HISTORY_PAGES = 5;
const DUE_BATCH = 200;

type Outcome =
  | { kind: 'delivered'; where?: { channelId: string; ts: string; found: boolean } }
  | { kind: 'wait'; ms: number; error: string; maybePosted: boolean }
  | { kind: 'failed'; error: string };

export class SlackOutbox {
  readonly #deps: OutboxDeps;
  readonly #sending = new Map<number, Promise<void>>();
  #running = false;
  #loop: Promise<void> = Promise.resolve();
  readonly #wakeUp = new WakeUp();
  #lastRecovery = 0;
  #renewer: NodeJS.Timeout | undefined;

  constructor(deps: OutboxDeps) {
    this.#deps = deps;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
    const leaseMs = this.#leaseMs();
    this.#renewer = setInterval(() => {
      if (this.#sending.size === 0) return;
      this.#deps.store
        .renewClaims(this.#deps.instanceId, [...this.#sending.keys()], leaseMs)
        .catch((error) =>
          this.#deps.logger.warn({ err: error }, 'could not renew Slack delivery claims'),
        );
    }, leaseMs / 3);
    this.#renewer.unref();
  }

  #leaseMs(): number {
    return this.#deps.claimLeaseMs ?? CLAIM_LEASE_MS;
  }

  /** Something was just added: look now rather than at the next poll. */
  nudge(): void {
    this.#wakeUp.wake();
  }

  /**
   * Stops looking, after delivering what is due now (a payout's outcome, told as payops
   * stops) and letting deliveries in flight finish, for at most `ms`. What is left waits in
   * the outbox for the next start.
   */
  async stop(ms = DISPATCH_CALL_TIMEOUT_MS): Promise<void> {
    this.#running = false;
    this.#wakeUp.wake();
    const deadline = Date.now() + ms;
    let timer: NodeJS.Timeout | undefined;
    const flush = async () => {
      await this.#loop;
      while (Date.now() < deadline) {
        const { picked } = await this.dispatchDue().catch(() => ({ picked: 0 }));
        await Promise.allSettled([...this.#sending.values()]);
        if (picked === 0) break;
      }
    };
    await Promise.race([
      flush(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
    clearInterval(this.#renewer);
  }

  /** Delivers what is due now; resolves with how many, and how long to wait before looking again. */
  async dispatchDue(): Promise<{ picked: number; waitMs: number }> {
    const { store, limiter, instanceId } = this.#deps;
    if (Date.now() - this.#lastRecovery >= RECOVER_EVERY_MS) {
      this.#lastRecovery = Date.now();
      await store.housekeeping();
    }
    const due = await store.due(DUE_BATCH);
    let waitMs = IDLE_POLL_MS;
    const picked: number[] = [];
    // A limit found spent is not asked again in this pass: one look per limit, not per row.
    const spent = new Set<string>();
    for (const delivery of due) {
      if (this.#sending.has(delivery.id)) continue;
      const calls = this.#callsOf(delivery);
      const keys = limiter.keysOf(calls);
      if (keys.some((key) => spent.has(key))) continue;
      const tokenIn = await limiter.take(calls);
      if (tokenIn > 0) {
        for (const key of keys) spent.add(key);
        waitMs = Math.min(waitMs, tokenIn);
        continue;
      }
      picked.push(delivery.id);
    }
    for (const delivery of await store.claim(picked, instanceId, this.#leaseMs())) {
      const sending = this.#deliver(delivery)
        .catch((error) => this.#deps.logger.error({ err: error }, 'a Slack delivery failed'))
        .finally(() => this.#sending.delete(delivery.id));
      this.#sending.set(delivery.id, sending);
    }
    // Rows left waiting for a token: look again when one is in. A full batch: there may be more.
    if (spent.size > 0) return { picked: picked.length, waitMs };
    if (due.length === DUE_BATCH) return { picked: picked.length, waitMs: 0 };
    const next = await store.nextDueAt();
    const untilNext = next === undefined ? IDLE_POLL_MS : next.getTime() - Date.now();
    return { picked: picked.length, waitMs: Math.max(0, Math.min(IDLE_POLL_MS, untilNext)) };
  }

  async #run(): Promise<void> {
    while (this.#running) {
      const passStarted = Date.now();
      let waitMs: number;
      try {
        ({ waitMs } = await this.dispatchDue());
      } catch (error) {
        this.#deps.logger.error({ err: error }, 'the Slack outbox could not be read; trying again');
        waitMs = BACKOFF_MAX_MS / 10;
      }
      if (!this.#running) break;
      await this.#wakeUp.sleep(waitMs);
      // Nudges come with every change and every delivery: at most one pass per MIN_PASS_MS.
      await sleep(passStarted + MIN_PASS_MS - Date.now());
    }
  }

  /** The rate-limited calls a delivery makes: a post, after a look for it if it may be out. */
  #callsOf(delivery: Delivery): LimitedCall[] {
    if (delivery.moot) return [];
    switch (delivery.kind) {
      case 'card':
      case 'announcement': {
        const post: LimitedCall = {
          method: 'chat.postMessage',
          channel: this.#deps.approvalsChannelId,
        };
        return delivery.maybePosted ? [{ method: 'conversations.history' }, post] : [post];
      }
      case 'card_update':
        return [{ method: 'chat.update' }];
      case 'notice': {
        const post: LimitedCall = { method: 'chat.postMessage', channel: delivery.channelId ?? '' };
        return delivery.maybePosted ? [{ method: 'conversations.replies' }, post] : [post];
      }
      case 'confirmation':
        return delivery.target?.responseUrl ? [] : [{ method: 'chat.postEphemeral' }];
    }
  }

  async #deliver(delivery: Delivery): Promise<void> {
    const { store, instanceId, logger } = this.#deps;
    let outcome: Outcome;
    try {
      outcome = await this.#attempt(delivery);
    } catch (error) {
      outcome = await this.#failure(delivery, error);
    }
    const log = { deliveryId: delivery.id, requestId: delivery.requestId, kind: delivery.kind };
    try {
      if (outcome.kind === 'delivered') {
        await store.delivered(delivery.id, instanceId, outcome.where);
        return;
      }
      if (outcome.kind === 'wait' && Date.parse(delivery.giveUpAt) > Date.now() + outcome.ms) {
        // Said once at warn; the retries of a long Slack outage would otherwise flood the log.
        logger[delivery.attempts === 1 ? 'warn' : 'debug'](
          { ...log, attempts: delivery.attempts, error: outcome.error },
          'Slack delivery will be tried again',
        );
        await store.retryLater(
          delivery.id,
          instanceId,
          outcome.ms,
          outcome.error,
          outcome.maybePosted,
        );
        return;
      }
      logger.error(
        { ...log, attempts: delivery.attempts, error: outcome.error },
        'Slack delivery given up',
      );
      await store.failed(delivery.id, instanceId, outcome.error);
    } catch (error) {
      // Its claim runs out and another look takes it again; a posted card is then found, not reposted.
      logger.error({ err: error, ...log }, 'could not record a Slack delivery');
    } finally {
      this.nudge();
    }
  }

  async #attempt(delivery: Delivery): Promise<Outcome> {
    // An announcement belongs to no request (the store's check: no request, and only it).
    if (delivery.requestId === undefined) return this.#announce(delivery);
    const current = await this.#deps.current(delivery.requestId);
    if (!current)
      return { kind: 'failed', error: `request #${delivery.requestId} is not in the store` };
    const { request, freeze } = current;
    switch (delivery.kind) {
      case 'card':
        return this.#postCard(delivery, request, freeze);
      case 'card_update': {
        await this.#deps.client.chat.update({
          channel: delivery.channelId as string,
          ts: delivery.messageTs as string,
          ...this.#card(request, freeze),
        });
        return { kind: 'delivered' };
      }
      case 'notice':
        return this.#postNotice(delivery, request, freeze);
      case 'confirmation':
        return this.#confirm(delivery, request);
      case 'announcement':
        return this.#announce(delivery);
    }
  }

  /** An announcement in the approvals channel: posted once, found again by its metadata. */
  async #announce(delivery: Delivery): Promise<Outcome> {
    const message = renderAnnouncement(delivery.event, delivery.body);
    if (!message) return { kind: 'failed', error: `no words for announcement ${delivery.event}` };
    const channel = this.#deps.approvalsChannelId;
    if (delivery.maybePosted) {
      const found = await this.#findInChannel(channel, delivery.enqueuedAt, (posted) =>
        this.#marks(posted, ANNOUNCEMENT_EVENT, 'delivery_id', delivery.id),
      );
      if (found) return { kind: 'delivered' };
      delivery.maybePosted = false;
    }
    await this.#deps.client.chat.postMessage({
      channel,
      ...message,
      metadata: {
        event_type: ANNOUNCEMENT_EVENT,
        event_payload: { delivery_id: delivery.id, event: delivery.event ?? '' },
      },
    });
    return { kind: 'delivered' };
  }

  async #postCard(
    delivery: Delivery,
    request: PaymentRequest,
    freeze: FreezeNotice | undefined,
  ): Promise<Outcome> {
    const channel = this.#deps.approvalsChannelId;
    if (delivery.maybePosted) {
      const found = await this.#findCard(channel, request.id, delivery.enqueuedAt);
      if (found)
        return { kind: 'delivered', where: { channelId: channel, ts: found, found: true } };
      // Not there: it was never posted.
      delivery.maybePosted = false;
    }
    const posted = await this.#deps.client.chat.postMessage({
      channel,
      ...this.#card(request, freeze),
    });
    return {
      kind: 'delivered',
      where: {
        channelId: (posted.channel as string | undefined) ?? channel,
        ts: posted.ts as string,
        found: false,
      },
    };
  }

  #card(request: PaymentRequest, freeze: FreezeNotice | undefined) {
    return {
      ...renderApprovalCard(request, {
        command: this.#deps.command,
        freeze,
        now: new Date(Date.now()),
        labels: request.labels,
      }),
      metadata: { event_type: CARD_EVENT, event_payload: { request_id: request.id } },
    };
  }

  /** A card of this request posted by payops since `since`, found by its metadata. */
  #findCard(channel: string, requestId: number, since: string): Promise<string | undefined> {
    return this.#findInChannel(channel, since, (message) =>
      this.#marks(message, CARD_EVENT, 'request_id', requestId),
    );
  }

  /** A message of the channel since `since` (a minute's skew allowed) that `matches`. */
  #findInChannel(
    channel: string,
    since: string,
    matches: (message: HistoryMessage) => boolean,
  ): Promise<string | undefined> {
    const oldest = String(Math.floor(Date.parse(since) / 1000) - 60);
    return this.#lookFor(
      (cursor) =>
        this.#deps.client.conversations.history({
          channel,
          oldest,
          include_all_metadata: true,
          limit: 200,
          ...(cursor ? { cursor } : {}),
        }),
      matches,
    );
  }

  /** A message payops's own bot posted, carrying `eventType` metadata with `field` = `value`. */
  #marks(message: HistoryMessage, eventType: string, field: string, value: number): boolean {
    if (message.bot_id !== this.#deps.botId) return false;
    const payload =
      message.metadata?.event_type === eventType ? message.metadata.event_payload : undefined;
    return payload !== undefined && String(payload[field]) === String(value);
  }

  /**
   * The ts of the first message on up to HISTORY_PAGES pages that `matches`. Not seen within
   * them: never guessed — the delivery waits (a person can look, `/pay request N`).
   */
  async #lookFor(
    page: (cursor: string | undefined) => Promise<WebAPICallResult & { messages?: unknown[] }>,
    matches: (message: HistoryMessage) => boolean,
  ): Promise<string | undefined> {
    let cursor: string | undefined;
    for (let read = 0; read < HISTORY_PAGES; read++) {
      const result = await page(cursor);
      const found = (result.messages as HistoryMessage[] | undefined)?.find(matches);
      if (found?.ts) return found.ts;
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
    throw new Error('not found in the messages read; not posting blind');
  }

  async #postNotice(
    delivery: Delivery,
    request: PaymentRequest,
    freeze: FreezeNotice | undefined,
  ): Promise<Outcome> {
    const { event } = delivery;
    // A reminder of a request decided since it was queued has nothing left to ask.
    if (isReminderEvent(event) && request.status !== 'pending') return { kind: 'delivered' };
    const channel = delivery.channelId as string;
    const thread = delivery.messageTs as string;
    const eventType = parseFollowEvent(delivery.event) ? FOLLOW_NOTICE_EVENT : NOTICE_EVENT;
    if (delivery.maybePosted) {
      const found = await this.#lookFor(
        (cursor) =>
          this.#deps.client.conversations.replies({
            channel,
            ts: thread,
            include_all_metadata: true,
            limit: 200,
            ...(cursor ? { cursor } : {}),
          }),
        (message) => this.#marks(message, eventType, 'delivery_id', delivery.id),
      );
      if (found) return { kind: 'delivered' };
      delivery.maybePosted = false;
    }
    await this.#deps.client.chat.postMessage({
      channel,
      thread_ts: thread,
      ...(isReminderEvent(event)
        ? renderReminder(request, event, this.#deps.approvers, freeze, this.#deps.command)
        : event === QUESTION_EVENT
          ? renderQuestionNotice(request, delivery.body)
          : renderThreadUpdate(request, event)),
      metadata: {
        event_type: eventType,
        event_payload: {
          delivery_id: delivery.id,
          request_id: request.id,
          ...(eventType === FOLLOW_NOTICE_EVENT && { event: delivery.event }),
        },
      },
    });
    return { kind: 'delivered' };
  }

  async #confirm(delivery: Delivery, request: PaymentRequest): Promise<Outcome> {
    const target = delivery.target ?? {};
    const message: SlackMessage =
      delivery.event === 'card_failed'
        ? notice(
            `Request #${request.id} is stored, but its approval card could not be posted: ${target.cause ?? 'Slack refused it'}. Nobody can approve it, and it will expire unexecuted.`,
          )
        : renderRequesterConfirmation(request, this.#deps.approvalsChannelId, this.#deps.command);
    if (target.responseUrl) {
      const answer = await fetch(target.responseUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, ...message }),
        signal: AbortSignal.timeout(DISPATCH_CALL_TIMEOUT_MS),
      });
      await answer.arrayBuffer();
      if (answer.ok) return { kind: 'delivered' };
      // An expired or used-up response_url (404) will not work later either.
      return answer.status >= 500
        ? {
            kind: 'wait',
            ms: backoff(delivery.attempts),
            error: `Slack answered HTTP ${answer.status}`,
            maybePosted: false,
          }
        : { kind: 'failed', error: `Slack refused the answer (HTTP ${answer.status})` };
    }
    if (!target.channelId || !target.userId)
      return { kind: 'failed', error: 'nowhere to tell the requester' };
    await postPrivately(
      this.#deps.client,
      { channelId: target.channelId, userId: target.userId },
      message,
    );
    return { kind: 'delivered' };
  }

  /**
   * What a failed Slack call means for the delivery. `maybePosted`: a post may be out there
   * unseen — this call's answer never came, or an earlier one's and no look has cleared it.
   */
  async #failure(delivery: Delivery, error: unknown): Promise<Outcome> {
    const unseen = delivery.maybePosted;
    const posts = delivery.kind !== 'card_update' && delivery.kind !== 'confirmation';
    const code = (error as { code?: unknown }).code;
    if (code === ErrorCode.RateLimitedError) {
      const ms = Math.max(1, (error as WebAPIRateLimitedError).retryAfter) * 1000;
      // Shared with the other replicas; if the store cannot say so now, this row still waits.
      await this.#deps.limiter
        .block(this.#callsOf(delivery), ms)
        .catch((blocked) =>
          this.#deps.logger.warn({ err: blocked }, 'could not share a Retry-After'),
        );
      return { kind: 'wait', ms, error: 'Slack said to slow down (429)', maybePosted: unseen };
    }
    const slackError = platformErrorOf(error);
    if (slackError !== undefined) {
      if (TRANSIENT_ERRORS.has(slackError)) {
        return {
          kind: 'wait',
          ms: backoff(delivery.attempts),
          error: `Slack answered ${slackError}`,
          maybePosted: posts || unseen,
        };
      }
      return { kind: 'failed', error: refusalText(slackError, this.#deps.approvalsChannelId) };
    }
    if (code === ErrorCode.HTTPError) {
      const status = (error as WebAPIHTTPError).statusCode;
      if (status < 500 && status !== 408)
        return { kind: 'failed', error: `Slack refused it (HTTP ${status})` };
      return {
        kind: 'wait',
        ms: backoff(delivery.attempts),
        error: `Slack answered HTTP ${status}`,
        maybePosted: posts || unseen,
      };
    }
    // A timeout or a dropped connection: it may have been posted, and Slack may still be at it.
    const message = error instanceof Error ? error.message : String(error);
    return {
      kind: 'wait',
      ms: posts ? Math.max(LOOK_AFTER_MS, backoff(delivery.attempts)) : backoff(delivery.attempts),
      error: `no answer from Slack (${maskLongNumbers(message).slice(0, 200)})`,
      maybePosted: posts || unseen,
    };
  }
}

/** A refusal in words that say what to do. */
function refusalText(slackError: string, approvalsChannelId: string): string {
  switch (slackError) {
    case 'not_in_channel':
    case 'channel_not_found':
    case 'is_archived':
      return `payops cannot post in the approvals channel <#${approvalsChannelId}> (${slackError}): invite payops there (\`/invite @payops\`). The request stays pending and approvers can still approve it from their payops Home: cancel it before requesting the same payment again`;
    case 'invalid_auth':
    case 'token_revoked':
    case 'account_inactive':
      return `Slack refused payops's token (${slackError}): an admin must reinstall payops`;
    default:
      return `Slack refused it (${slackError})`;
  }
}

interface HistoryMessage {
  ts?: string;
  bot_id?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/** 0.5 s, 1 s, 2 s … up to 30 s, with jitter so replicas do not knock in step. */
function backoff(attempts: number): number {
  const ms = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(ms * (0.75 + Math.random() * 0.5));
}
