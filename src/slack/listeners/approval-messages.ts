import type { WebClient } from '@slack/web-api';
import type { ApprovalWorkflow } from '../../app/approvals.ts';
import type { PaymentRequest, RequestStatus } from '../../domain/approval.ts';
import type { Logger } from '../../logger.ts';
import type { FreezeState } from '../../store/request-store.ts';
import {
  type FreezeNotice,
  renderApprovalCard,
  renderThreadUpdate,
} from '../blocks/approval-card.ts';

/**
 * Statuses a request's row is never written in again: `unknown` is not one (its reconciliation,
 * and a late outcome, are written after it). Each approval's last redraw is one of these, drawn
 * without a read: one round trip of five per approval (session 15).
 */
const SETTLED: ReadonlySet<RequestStatus> = new Set([
  'submitted',
  'failed',
  'rejected',
  'cancelled',
  'expired',
]);

/**
 * Keeps each request's approval message in the approvals channel true to the store: posted
 * once, updated in place at every change (`chat.update`), the requester told in its thread.
 * Slack failures are logged, never thrown: the store, not the message, is the truth.
 */
export class ApprovalMessages {
  readonly #web: WebClient;
  readonly #workflow: ApprovalWorkflow;
  /** The approvals channel: approval messages, and the audit CSV, go there only. */
  readonly channelId: string;
  readonly #logger: Logger;
  readonly #refreshing = new Map<number, Promise<void>>();

  constructor(web: WebClient, workflow: ApprovalWorkflow, channelId: string, logger: Logger) {
    this.#web = web;
    this.#workflow = workflow;
    this.channelId = channelId;
    this.#logger = logger;
  }

  /** Posts the approval message and records where it is; returns a link to it. */
  async post(
    request: PaymentRequest,
  ): Promise<{ request: PaymentRequest; permalink: string | undefined }> {
    const card = renderApprovalCard(request, {
      ...this.#context(await this.#workflow.freezeState()),
      labels: request.labels,
    });
    const posted = await this.#web.chat.postMessage({ channel: this.channelId, ...card });
    const ts = posted.ts as string;
    const channelId = (posted.channel as string | undefined) ?? this.channelId;
    await this.#workflow.store.attachMessage(request.id, channelId, ts);
    const permalink = await this.#web.chat
      .getPermalink({ channel: channelId, message_ts: ts })
      .then((result) => result.permalink as string | undefined)
      .catch(() => undefined);
    return { request: { ...request, channelId, messageTs: ts }, permalink };
  }

  /**
   * Re-renders the message as the store says, one refresh at a time per request, so a slower
   * update can never overwrite a newer one. With `notify`, the requester is told in the thread.
   * `request` is the caller's copy: in a status whose row the store never writes again (SETTLED)
   * it is drawn as given, and it must then be the store's own copy (what the statement that
   * settled it returned); in any other status the store is read again (never a caller's older copy).
   */
  refresh(
    request: PaymentRequest,
    options: { notify?: boolean } = { notify: true },
  ): Promise<void> {
    const previous = this.#refreshing.get(request.id) ?? Promise.resolve();
    const next = previous.then(() => this.#redraw(request, options.notify !== false));
    this.#refreshing.set(request.id, next);
    void next.finally(() => {
      if (this.#refreshing.get(request.id) === next) this.#refreshing.delete(request.id);
    });
    return next;
  }

  async #redraw(given: PaymentRequest, notify: boolean): Promise<void> {
    try {
      // A settled request's message shows no freeze (renderApprovalCard), so nothing to read.
      const found = SETTLED.has(given.status)
        ? { request: given, freeze: undefined }
        : await this.#workflow.store.getWithFreeze(given.id);
      const request = found?.request;
      if (!found || !request?.channelId || !request.messageTs) return;
      const card = renderApprovalCard(request, {
        ...this.#context(found.freeze),
        labels: request.labels,
      });
      await this.#web.chat.update({ channel: request.channelId, ts: request.messageTs, ...card });
      if (notify) {
        await this.#web.chat.postMessage({
          channel: request.channelId,
          thread_ts: request.messageTs,
          ...renderThreadUpdate(request),
        });
      }
    } catch (error) {
      this.#logger.warn(
        { err: error, requestId: given.id },
        'could not update the approval message',
      );
    }
  }

  /** Every pending message shows the freeze while it lasts (and stops when it ends). */
  async refreshPending(): Promise<void> {
    const { requests } = await this.#workflow.store.listPending(200);
    for (const request of requests) await this.refresh(request, { notify: false });
  }

  #context(freeze: FreezeState | undefined): { freeze: FreezeNotice | undefined; now: Date } {
    return { freeze: freezeNotice(freeze), now: new Date() };
  }
}

export function freezeNotice(state: FreezeState | undefined): FreezeNotice | undefined {
  if (!state?.frozen) return undefined;
  return {
    reason: state.reason ?? 'no reason given',
    by: state.changedBy ?? 'unknown',
    at: state.changedAt ?? new Date().toISOString(),
  };
}
