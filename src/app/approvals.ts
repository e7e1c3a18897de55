import { setTimeout as sleep } from 'node:timers/promises';
import {
  fieldsOf,
  type PaymentRequest,
  type PreflightCheck,
  type ProviderOutcome,
  type WriteIntent,
} from '../domain/approval.ts';
import type { DocumentProblem, SupportingDocument } from '../domain/document.ts';
import type { Scope } from '../domain/operations.ts';
import {
  type ApproverCap,
  approvalRefusal,
  approverCapRefusal,
  approverCaps,
  type Policy,
  stepFor,
} from '../domain/policy.ts';
import type { Refusal } from '../domain/refusals.ts';
import { changesFrom } from '../domain/resubmit.ts';
import type { RoleMembers } from '../domain/roles.ts';
import { stepRole } from '../domain/roles.ts';
import { scrub } from '../domain/scrub.ts';
import type { Signer } from '../domain/signer.ts';
import type { Logger } from '../logger.ts';
import { OutcomeUnknownError, PaymentsApiError } from '../payments/errors.ts';
import { findRecord, recordIdentity } from '../payments/response-shape.ts';
import { NotSupersededError, WindowChangedError } from '../store/request-store.ts';
import type { AccessControl, AccessDecision } from './access.ts';
import type { DocumentReader } from './document-port.ts';
import { type HomeShown, homeClickRefusal } from './home-click.ts';
import type { AnswerTarget } from './outbox-port.ts';
import type { OutcomeNote, OutcomeWords } from './outcome-words-port.ts';
import type { ApiResponse, PaymentsPort } from './payments-port.ts';
import { balanceCheck, movesMoney } from './preflight.ts';
import { reconcile, SharedListReads } from './reconcile.ts';
import { type Preparation, RequestPreparation } from './request-preparation.ts';
import type { CountApprovalResult, FreezeState, RequestStorePort } from './request-store-port.ts';

/**
 * Four-eyes approvals: a write is requested, approved by someone else (as many as policy
 * says), and executed exactly once — by whichever process's click completed the approvals,
 * claimed in the database before the one call to the provider.
 */

export interface Roles {
  requesters: RoleMembers;
  approvers: RoleMembers;
}

export interface WorkflowDeps {
  store: RequestStorePort;
  /** Called after every change: its Slack messages are waiting in the outbox. */
  onChange?: () => void;
  client: PaymentsPort;
  /** Keyed digests of writes: fingerprints, holds, approval seals, payee tags. */
  signer: Signer;
  /** `strict`: a failed pre-flight check refuses the request; `warn`: the card shows it. */
  preflight: 'warn' | 'strict';
  keyScopes: readonly string[];
  policy: Policy;
  access: AccessControl;
  roles: Roles;
  /** Names this process in the claim, for the audit log. */
  instanceId: string;
  /** How long an execution may run before another process may call its outcome unknown. */
  leaseMs: number;
  logger: Logger;
  now?: () => Date;
  /** Queues the approvers' reminders due at `now` (src/store/reminder-store.ts); at each sweep. */
  remind?: (now: Date) => Promise<number>;
  /** The words of what payops itself says of an outcome, stored with it as told. */
  outcomeWords: OutcomeWords;
  /** Reads a request's supporting document once; without it, a request naming one is refused. */
  documents?: DocumentReader | undefined;
}

/**
 * Where a click came from: a click counts only from the request's own approval message, or from
 * a Home tab that showed the request as it still is (src/app/home-click.ts).
 */
export type ClickOrigin = CardClick | { home: HomeShown };

export interface CardClick {
  channelId: string | undefined;
  messageTs: string | undefined;
  /**
   * The fingerprint an Approve button carries: what its card showed. An approval counts only if
   * it is the request's (none, from a card drawn without it, never is); a rejection sends nothing
   * and is not compared.
   */
  fingerprint?: string | undefined;
}

export type Denied = { kind: 'not_allowed'; decision: Exclude<AccessDecision, { allowed: true }> };

/** Created, or not asked of an approver (nothing stored). */
export type RequestResult =
  | { kind: 'created'; request: PaymentRequest }
  | Denied
  | Exclude<Preparation, { kind: 'prepared' }>
  /** Other requests to the same payee kept changing its window, so its approvals were not counted. */
  | { kind: 'window_busy' }
  /** The supporting document it names could not be read: nothing stored. */
  | { kind: 'document_unreadable'; fileId: string; problem: DocumentProblem }
  /** The request it was to replace can no longer be replaced (src/domain/resubmit.ts). */
  | ({ kind: 'not_superseded' } & Refusal);

/** The store's count of the approval, unless it claimed the request: then its execution. */
export type ApproveResult =
  | Denied
  | Exclude<CountApprovalResult, { kind: 'claimed' }>
  /** The last approval: the one call was made; `request.status` says how it went. */
  | { kind: 'executed'; request: PaymentRequest };

export type DecideResult =
  | Denied
  | { kind: 'not_found' }
  | ({ kind: 'refused'; request: PaymentRequest } & Refusal)
  | { kind: 'done'; request: PaymentRequest };

const RECHECK_AFTER_MS = 60_000;
/**
 * How long the balance read right before a money-moving call may take: it counts against the
 * write's deadline, so a slow provider lets the write go as approved rather than eat it.
 */
const BALANCE_RECHECK_MS = 3_000;
/** Parts of one payment sent together: each round stores at least one of them. */
const WINDOW_ATTEMPTS = 5;
/** Writes of an outcome before giving up on the store: about 3 s in all. */
const FINISH_ATTEMPTS = 3;
const FINISH_RETRY_MS = 1_000;
/** How long a click on a card not yet recorded waits for the record, and how often it looks. */
const CARD_RECORDED_WITHIN_MS = 3_000;
const CARD_RECORDED_POLL_MS = 100;
const RECHECK_FOR_MS = 7 * 24 * 3_600_000;

export class ApprovalWorkflow {
  readonly #deps: WorkflowDeps;
  readonly #now: () => Date;
  readonly #preparation: RequestPreparation;

  constructor(deps: WorkflowDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    this.#preparation = new RequestPreparation({ ...deps, now: this.#now });
  }

  canRequest(userId: string): Promise<AccessDecision> {
    return this.#deps.access.check(this.#deps.roles.requesters, userId);
  }

  canApprove(userId: string): Promise<AccessDecision> {
    return this.#deps.access.check(this.#deps.roles.approvers, userId);
  }

  missingScopes(intent: Pick<WriteIntent, 'operationId'>): Scope[] {
    return this.#preparation.missingScopes(intent);
  }

  /**
   * Stores a validated write as a pending request; nothing is sent to the provider. Its card,
   * and the requester's confirmation (to `answerTo`), are in the Slack outbox with it.
   */
  async request(
    intent: WriteIntent,
    requesterId: string,
    channelId: string | undefined,
    answerTo?: AnswerTarget,
    supersedes?: number,
  ): Promise<RequestResult> {
    const decision = await this.canRequest(requesterId);
    if (!decision.allowed) return { kind: 'not_allowed', decision };
    const replaced =
      supersedes === undefined ? undefined : await this.#replaceable(supersedes, requesterId);
    if (replaced && 'code' in replaced) return { kind: 'not_superseded', ...replaced };
    const document = await this.#readDocument(intent, requesterId, channelId);
    if (document?.kind === 'document_unreadable') return document;
    const stored = await this.#prepareAndStore(
      intent,
      requesterId,
      channelId,
      answerTo,
      // An edit that attaches no file keeps the document of the request it replaces, read then.
      document?.kind === 'read' ? document.document : replaced?.document,
      replaced,
    );
    if (stored.kind !== 'created') return stored;
    const { request } = stored;
    this.#changed();
    this.#deps.logger.info(
      {
        requestId: request.id,
        operationId: request.operationId,
        requesterId,
        fingerprint: request.fingerprint,
      },
      'payment request created',
    );
    return { kind: 'created', request };
  }

  /**
   * The supporting document the requester named, read once before anything is stored: one that
   * cannot be read refuses the request, since they asked for it to be shown.
   */
  async #readDocument(
    intent: WriteIntent,
    requesterId: string,
    channelId: string | undefined,
  ): Promise<
    | { kind: 'read'; document: SupportingDocument }
    | Extract<RequestResult, { kind: 'document_unreadable' }>
    | undefined
  > {
    const fileId = intent.documentFileId;
    if (fileId === undefined) return undefined;
    const read = this.#deps.documents
      ? await this.#deps.documents.read({ fileId, requesterId, channelId })
      : ({ kind: 'unreadable', problem: { code: 'unavailable' } } as const);
    if (read.kind === 'read') return read;
    this.#deps.logger.info({ fileId, problem: read.problem.code }, 'supporting document not read');
    return { kind: 'document_unreadable', fileId, problem: read.problem };
  }

  /**
   * Prepared again while another request to its payee, made at the same moment, changes what
   * its policy window counts (each part of a split payment then counts the others).
   */
  async #prepareAndStore(
    intent: WriteIntent,
    requesterId: string,
    channelId: string | undefined,
    answerTo: AnswerTarget | undefined,
    document: SupportingDocument | undefined,
    replaced?: PaymentRequest,
  ): Promise<RequestResult> {
    for (let attempt = 1; attempt <= WINDOW_ATTEMPTS; attempt++) {
      const prepared = await this.#preparation.prepare(intent, requesterId, document);
      if (prepared.kind !== 'prepared') return prepared;
      const replaces = replaced && changesFrom(replaced, intent);
      try {
        const request = await this.#deps.store.create({
          ...prepared.request,
          ...(replaces && {
            labels: { ...prepared.request.labels, replaces },
            supersedes: replaces.id,
          }),
          requesterChannelId: channelId,
          answerTo,
        });
        return { kind: 'created', request };
      } catch (error) {
        if (error instanceof NotSupersededError && replaced) {
          // Decided or expired while the new one was prepared: nothing stored, and why.
          const now = await this.#replaceable(replaced.id, requesterId);
          return {
            kind: 'not_superseded',
            ...(now && 'code' in now ? now : { code: 'changed_meanwhile' }),
          };
        }
        if (!(error instanceof WindowChangedError)) throw error;
      }
    }
    return { kind: 'window_busy' };
  }

  /**
   * One approval click. Permissions are checked now, at the click; the rules (not one's own
   * request, once per person, pending, not expired, from its own message) on the request as
   * read, the approval counting only if the request has not changed since.
   */
  async approve(id: number, approverId: string, origin: ClickOrigin): Promise<ApproveResult> {
    const decision = await this.canApprove(approverId);
    if (!decision.allowed) return { kind: 'not_allowed', decision };
    const stored = await this.#deps.store.get(id);
    const [memberOf, caps] = await Promise.all([
      this.#stepsJoined(stored, approverId),
      this.#capsOf(stored, approverId),
    ]);
    // The write's deadline counts from before the claim, so it is sent within the lease or not.
    const claimStartedAt = performance.now();
    const result = await whenCardRecorded(() =>
      this.#deps.store.approve(id, approverId, this.#deps.instanceId, {
        refusal: (request) => {
          // A request whose seal does not hold is not approved but stopped by this click (its
          // claim reaches #clearToSend, which sends nothing): what was shown is not compared.
          const compareShown = this.#sealHolds(request);
          return (
            this.#clickRefusal(request, origin, compareShown) ??
            approvalRefusal(request, approverId, this.#now()) ??
            (caps === undefined
              ? { code: 'approvers_unconfirmed' }
              : approverCapRefusal(caps, fieldsOf(request))) ??
            (compareShown ? cardShownRefusal(request, origin) : undefined)
          );
        },
        stillCounted: (request) => this.#stillCounted(request, approverId),
        step: (request) =>
          request.chain && stepFor({ ...request, chain: request.chain }, (step) => memberOf[step]),
        seal: (request, approver, step) => this.#deps.signer.approvalSeal(request, approver, step),
        sealHolds: (request) => this.#sealHolds(request),
      }),
    );
    this.#changed();
    if (result.kind !== 'claimed') return result;
    const executed = await this.#execute(result.request, result.claimToken, claimStartedAt);
    this.#changed();
    return { kind: 'executed', request: executed };
  }

  async reject(
    id: number,
    approverId: string,
    reason: string,
    origin: ClickOrigin,
  ): Promise<DecideResult> {
    return whenCardRecorded(() =>
      this.#approverDecides(
        id,
        approverId,
        (request) => this.#clickRefusal(request, origin) ?? pendingRefusal(request),
        () => this.#deps.store.reject(id, approverId, scrub(reason)),
      ),
    );
  }

  /**
   * An approver's question to the requester instead of a decision: the request stays pending,
   * waiting on its requester, and the question goes to its thread. Checked as a rejection is.
   */
  async ask(
    id: number,
    approverId: string,
    question: string,
    origin: ClickOrigin,
  ): Promise<DecideResult> {
    return whenCardRecorded(() =>
      this.#approverDecides(
        id,
        approverId,
        (request) => this.#clickRefusal(request, origin) ?? askRefusal(request, approverId),
        () => this.#deps.store.ask(id, approverId, scrub(question)),
      ),
    );
  }

  /**
   * The request its requester may edit and resubmit (pending, theirs), with their permission to
   * request checked now; else why not.
   */
  async resubmittable(
    id: number,
    userId: string,
  ): Promise<{ kind: 'resubmittable'; request: PaymentRequest } | DecideResult> {
    const decision = await this.canRequest(userId);
    if (!decision.allowed) return { kind: 'not_allowed', decision };
    const found = await this.#replaceable(id, userId);
    if (found === undefined) return { kind: 'not_found' };
    return 'code' in found
      ? { kind: 'refused', ...found }
      : { kind: 'resubmittable', request: found };
  }

  /** `id` when `userId` may replace it now; else why not (undefined: no such request). */
  async #replaceable(
    id: number,
    userId: string,
  ): Promise<PaymentRequest | (Refusal & { request: PaymentRequest }) | undefined> {
    const request = await this.#deps.store.get(id);
    if (!request) return undefined;
    const refusal = replaceRefusal(request, userId, this.#now());
    return refusal ? { ...refusal, request } : request;
  }

  /** Only its requester may cancel a request, and only while it is pending. */
  async cancel(id: number, userId: string): Promise<DecideResult> {
    const request = await this.#deps.store.get(id);
    if (!request) return { kind: 'not_found' };
    if (request.requesterId !== userId) return { kind: 'refused', code: 'not_requester', request };
    const refusal = pendingRefusal(request);
    if (refusal) return { kind: 'refused', ...refusal, request };
    const cancelled = await this.#deps.store.cancel(id, userId);
    this.#changed();
    return cancelled ? { kind: 'done', request: cancelled } : this.#lateRefusal(id, pendingRefusal);
  }

  /**
   * An approver's word on an unknown outcome, after looking at the provider: executed or not.
   * It settles the request for good (rechecks stop) and so lets the same write be requested
   * again; never its requester's to give, as it reopens the way to a second payment.
   */
  async resolve(
    id: number,
    userId: string,
    executed: boolean,
    note: string,
  ): Promise<DecideResult> {
    const result = await this.#approverDecides(
      id,
      userId,
      (request) => resolveRefusal(request, userId, executed),
      // Over what the rules were checked on only: a check may find it meanwhile.
      (request) =>
        this.#deps.store.recordReconciliation(
          id,
          {
            checkedAt: this.#now().toISOString(),
            result: executed ? 'found' : 'not_found',
            detail: scrub(note),
            resolvedBy: userId,
          },
          { reconciliation: request.reconciliation },
        ),
    );
    if (result.kind === 'done') {
      this.#deps.logger.warn(
        { requestId: id, userId, executed },
        'unknown outcome resolved by hand',
      );
    }
    return result;
  }

  /**
   * An approver's decision on a request: their permission checked now, then the rules on the
   * request as read, then `act`, whose conditional write finds nothing if it changed meanwhile.
   */
  async #approverDecides(
    id: number,
    userId: string,
    refusalOf: (request: PaymentRequest) => Refusal | undefined,
    act: (request: PaymentRequest) => Promise<PaymentRequest | undefined>,
  ): Promise<DecideResult> {
    const decision = await this.canApprove(userId);
    if (!decision.allowed) return { kind: 'not_allowed', decision };
    const request = await this.#deps.store.get(id);
    if (!request) return { kind: 'not_found' };
    const refusal = refusalOf(request);
    if (refusal) return { kind: 'refused', ...refusal, request };
    const done = await act(request);
    this.#changed();
    return done ? { kind: 'done', request: done } : this.#lateRefusal(id, refusalOf);
  }

  async setFreeze(
    frozen: boolean,
    userId: string,
    reason: string | undefined,
  ): Promise<{ kind: 'done'; freeze: FreezeState } | Denied> {
    const decision = await this.canApprove(userId);
    if (!decision.allowed) return { kind: 'not_allowed', decision };
    const scrubbed = reason && scrub(reason);
    const freeze = await this.#deps.store.setFreeze(frozen, userId, scrubbed);
    this.#changed();
    this.#deps.logger.warn(
      { frozen, userId, reason: scrubbed },
      frozen ? 'payments frozen' : 'payments unfrozen',
    );
    return { kind: 'done', freeze };
  }

  freezeState(): Promise<FreezeState> {
    return this.#deps.store.freezeState();
  }

  /** The Slack outbox has new messages: deliver them now rather than at its next look. */
  #changed(): void {
    this.#deps.onChange?.();
  }

  /**
   * Expires pending requests past their time, and turns executions abandoned by a dead
   * process into `unknown` (then reconciles them) — never re-executing anything. Resolves with
   * the requests it changed; what Slack is told of each is in the outbox with the change.
   */
  async sweep(): Promise<PaymentRequest[]> {
    const now = this.#now();
    const expired = await this.#deps.store.expireDue(now);
    await this.#deps.remind?.(now).catch((error: unknown) => {
      this.#deps.logger.error({ err: error }, 'reminders failed; tried again next sweep');
    });
    const recovered = await this.#deps.store.recoverStale(this.#deps.leaseMs);
    const abandoned = recovered.filter((request) => request.status === 'unknown');
    // An unknown outcome not yet seen at the provider is looked for again, every sweep at most
    // once a minute, for a week: a late record must not go unnoticed and invite a second request.
    const justRecovered = new Set(recovered.map((request) => request.id));
    const unresolved = (
      await this.#deps.store.listUnresolved(RECHECK_AFTER_MS, RECHECK_FOR_MS)
    ).filter((request) => !justRecovered.has(request.id));
    const checking = [...abandoned, ...unresolved];
    // One read of each list, one list at a time, serves them all: however many are checked, a
    // sweep holds one list's records per list.
    const reads = new SharedListReads(this.#deps.client, checking, {
      sync: this.#deps.keyScopes.includes('resources:write'),
    });
    // One after another: a record one of them is found with is then another request's, which
    // the next one's matching excludes (side by side, two could each be found with it).
    const reconciled: PaymentRequest[] = [];
    for (const request of checking) {
      try {
        reconciled.push(await this.#reconcile(request, reads));
      } catch (error) {
        this.#deps.logger.error({ err: error }, 'reconciliation failed; retried next sweep');
      }
    }
    this.#changed();
    return [
      ...expired,
      ...recovered.filter((request) => request.status !== 'unknown'),
      ...reconciled,
    ];
  }

  /**
   * The one call to the provider, for a request this process has just claimed (`claimToken`,
   * its deadline counted from `claimStartedAt`).
   */
  async #execute(
    request: PaymentRequest,
    claimToken: string,
    claimStartedAt: number,
  ): Promise<PaymentRequest> {
    const { client, logger, outcomeWords: words } = this.#deps;
    const log = logger.child({ requestId: request.id, operationId: request.operationId });
    const cleared = await this.#clearToSend(request, claimToken, log);
    if (!cleared.send) {
      // Known not sent: recorded as such at once. If even that fails, the lease's end finds a
      // claim never let out and records the same (`recoverStale`).
      return this.#finish(request, 'failed', { message: words(cleared.stop) }).catch(
        (error: unknown) => {
          log.error({ err: error }, 'could not record a write that was not sent; the sweep will');
          return request;
        },
      );
    }
    let response: ApiResponse;
    try {
      response = await client.call(request.operationId, {
        path: request.path,
        body: request.body,
        deadlineFrom: claimStartedAt,
      });
    } catch (error) {
      if (
        error instanceof PaymentsApiError &&
        !(error instanceof OutcomeUnknownError) &&
        error.outcome === 'not_executed'
      ) {
        return this.#finish(request, 'failed', outcomeOf(error, words));
      }
      // Anything else after the claim — including our own unexpected failure — may have sent it.
      log.error({ err: error }, 'write outcome unknown; reconciling, never retrying');
      const unknown = await this.#finish(
        request,
        'unknown',
        error instanceof PaymentsApiError
          ? outcomeOf(error, words)
          : { message: words({ code: 'send_failed' }) },
      );
      return this.#reconcile(unknown);
    }
    // Accepted: whatever happens to the store now, this is never recorded as unknown.
    const identity = recordIdentity(findRecord(response.body));
    log.info({ providerId: identity.id, status: response.status }, 'write submitted');
    return this.#finish(request, 'submitted', {
      status: response.status,
      requestId: response.requestId,
      providerId: identity.id,
      providerStatus: identity.status,
      ...(cleared.note && { message: words(cleared.note) }),
    });
  }

  /**
   * Whether the claimed write may go out: once this process has proven it still holds the claim
   * (the fence), with a note for the card when the balance could not be checked; else why not —
   * nothing has been sent in any case where it says why.
   */
  async #clearToSend(
    request: PaymentRequest,
    claimToken: string,
    log: Logger,
  ): Promise<{ send: true; note?: OutcomeNote | undefined } | { send: false; stop: OutcomeNote }> {
    const notSent = (stop: OutcomeNote) => ({ send: false as const, stop });
    if (!this.#sealHolds(request)) {
      log.error('the stored request does not match its seal; not sent');
      return notSent({ code: 'seal_broken' });
    }
    // What is sent must be byte for byte what was approved, by every approver counted: the
    // keys are not in the database, so a changed payload or approval cannot be made to match.
    const { signer } = this.#deps;
    const sealed = (approval: PaymentRequest['approvals'][number]) =>
      approval.seal === signer.approvalSeal(request, approval.userId, approval.step);
    // Distinct people, or distinct people in each step when one person may fill several.
    const approvers = new Set(
      request.approvals
        .filter((approval) => approval.userId !== request.requesterId)
        .map((approval) =>
          request.chain?.samePersonMayFillSteps
            ? `${approval.userId} ${approval.step}`
            : approval.userId,
        ),
    );
    if (
      signer.fingerprint(request.operationId, request.path, request.body) !== request.fingerprint ||
      !request.approvals.every(sealed) ||
      approvers.size < request.requiredApprovals
    ) {
      log.error('payload or approvals do not match what was approved; not sent');
      return notSent({ code: 'approval_mismatch' });
    }
    const balance = await this.#balanceNow(request, log);
    if (balance?.outcome === 'failed') return notSent({ code: 'balance_too_low', balance });
    try {
      const fence = await this.#deps.store.markSending(request.id, claimToken, this.#deps.leaseMs);
      if (fence.kind !== 'send') {
        log.warn({ stop: fence.stop }, 'claimed write not sent');
        return notSent(fence.stop);
      }
    } catch (error) {
      log.error({ err: error }, 'the store failed before the write was sent; not sent');
      return notSent({ code: 'store_unreachable' });
    }
    return {
      send: true,
      note:
        balance && balance.outcome !== 'passed'
          ? { code: 'balance_unchecked', balance }
          : undefined,
    };
  }

  /**
   * For a write that moves money, the wallet's balance read again right before the call, within
   * BALANCE_RECHECK_MS: a balance too low stops it; one that cannot be read lets it go as approved.
   */
  async #balanceNow(request: PaymentRequest, log: Logger): Promise<PreflightCheck | undefined> {
    const intent = {
      operationId: request.operationId,
      path: request.path,
      fields: fieldsOf(request),
    };
    if (!movesMoney(intent)) return undefined;
    const check = (await balanceCheck(
      this.#deps.client,
      intent,
      AbortSignal.timeout(BALANCE_RECHECK_MS),
    ).catch(() => undefined)) ?? {
      name: 'balance',
      outcome: 'unchecked',
      finding: { code: 'balance_timed_out' },
    };
    if (check.outcome !== 'passed') log.warn({ balance: check }, 'balance re-check before sending');
    return check;
  }

  async #finish(
    request: PaymentRequest,
    status: 'submitted' | 'failed' | 'unknown',
    outcome: ProviderOutcome,
  ): Promise<PaymentRequest> {
    // The provider's answer is what payops knows of a payment: a database that fails for a
    // moment must not lose it, so it is written again before giving up (logged with it).
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.#deps.store.finishExecution(request.id, status, outcome)) ?? request;
      } catch (error) {
        if (attempt >= FINISH_ATTEMPTS) {
          this.#deps.logger.error(
            { err: error, requestId: request.id, status, outcome },
            'could not record the outcome of a write; its lease will make it unknown',
          );
          throw error;
        }
        await sleep(FINISH_RETRY_MS * attempt);
      }
    }
  }

  async #reconcile(request: PaymentRequest, reads?: SharedListReads): Promise<PaymentRequest> {
    const reconciliation = await reconcile(this.#deps.client, request, {
      now: this.#now(),
      ...(reads && { reads }),
      // A fresh look when the key may ask for one (sync=true needs resources:write).
      sync: this.#deps.keyScopes.includes('resources:write'),
      attributedElsewhere: (id, ids) => this.#deps.store.providerIdsTaken(id, ids),
    });
    this.#deps.logger.warn(
      {
        requestId: request.id,
        result: reconciliation.result,
        providerId: reconciliation.providerId,
      },
      'reconciled an unknown outcome',
    );
    // Kept only over what this check read: another replica's sweep may have checked it too.
    const recorded = await this.#deps.store.recordReconciliation(request.id, reconciliation, {
      reconciliation: request.reconciliation,
    });
    return recorded ?? (await this.#deps.store.get(request.id)) ?? request;
  }

  /**
   * When this approval could complete the request: whether its approver, and which earlier
   * approvers, are approvers still, each asked about now rather than from a cache, since someone
   * removed from the approvers must not move money, nor help to.
   */
  async #stillCounted(
    request: PaymentRequest,
    approverId: string,
  ): Promise<{ counted: number } | { refusal: Refusal }> {
    const all = await Promise.all(
      [approverId, ...request.approvals.map((approval) => approval.userId)].map((userId) =>
        this.#deps.access.check(this.#deps.roles.approvers, userId, { fresh: true }),
      ),
    );
    const [clicker, ...decisions] = all;
    if (all.some((d) => !d.allowed && d.reason === 'directory_unavailable')) {
      return { refusal: { code: 'approvers_unconfirmed' } };
    }
    if (!clicker?.allowed) return { refusal: { code: 'no_longer_approver', id: request.id } };
    const counted = decisions.filter((decision) => decision.allowed).length;
    if (counted < request.approvals.length) {
      this.#deps.logger.warn(
        { requestId: request.id, notCounted: request.approvals.length - counted },
        'an earlier approval no longer counts: its approver is no longer an approver',
      );
    }
    return { counted };
  }

  /**
   * Whether `approverId` is among the people of each step of request `id`'s chain, asked of Slack
   * now (undefined where it could not tell); none without a chain. The chain is sealed with the
   * request, so what is read here is what its approval is counted against.
   */
  async #stepsJoined(
    request: PaymentRequest | undefined,
    approverId: string,
  ): Promise<Array<boolean | undefined>> {
    const chain = request?.chain;
    const decisions = await Promise.all(
      (chain?.steps ?? []).map((step) =>
        this.#deps.access.check(stepRole(step.approvers), approverId, { fresh: true }),
      ),
    );
    return decisions.map(joined);
  }

  /**
   * The caps of the policy in force (`approver_limits`) that name `approverId` or a group they
   * are in, asked of Slack now, for the request as stored (its operation and amount are sealed);
   * undefined when Slack could not tell.
   */
  async #capsOf(
    request: PaymentRequest | undefined,
    approverId: string,
  ): Promise<ApproverCap[] | undefined> {
    if (!request) return [];
    const caps = approverCaps(this.#deps.policy, request.operationId, fieldsOf(request));
    const named = await Promise.all(
      caps.map((cap) =>
        this.#deps.access.check(stepRole([cap.approver]), approverId, { fresh: true }),
      ),
    );
    const member = named.map(joined);
    if (member.includes(undefined)) return undefined;
    return caps.filter((_, index) => member[index]);
  }

  /**
   * Whether the request is still what it was stored as: its number, requester, count of approvals
   * and fingerprint under its seal.
   */
  #sealHolds(request: PaymentRequest): boolean {
    return request.seal !== undefined && request.seal === this.#deps.signer.requestSeal(request);
  }

  /** Where the click came from, and (unless `compareShown` is false) what a Home showed. */
  #clickRefusal(
    request: PaymentRequest,
    origin: ClickOrigin,
    compareShown = true,
  ): Refusal | undefined {
    if ('home' in origin) return compareShown ? homeClickRefusal(request, origin.home) : undefined;
    if (
      !request.channelId ||
      request.channelId !== origin.channelId ||
      request.messageTs !== origin.messageTs
    ) {
      return { code: 'not_its_card', id: request.id };
    }
    return undefined;
  }

  async #lateRefusal(
    id: number,
    refusalOf: (request: PaymentRequest) => Refusal | undefined,
  ): Promise<DecideResult> {
    const request = await this.#deps.store.get(id);
    if (!request) return { kind: 'not_found' };
    return { kind: 'refused', ...(refusalOf(request) ?? { code: 'changed_meanwhile' }), request };
  }
}

/**
 * A click can reach payops a moment before the outbox has recorded where the card it came from
 * was posted (Slack answers the post, then the store is written). Such a click, refused for
 * coming from a message payops does not know yet, is tried again for a little while rather than
 * refused at once.
 */
async function whenCardRecorded<T extends { kind: string; request?: PaymentRequest }>(
  attempt: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + CARD_RECORDED_WITHIN_MS;
  for (;;) {
    const result = await attempt();
    const cardUnrecorded = result.kind === 'refused' && result.request?.messageTs === undefined;
    if (!cardUnrecorded || Date.now() >= deadline) return result;
    await sleep(CARD_RECORDED_POLL_MS);
  }
}

/** Whether Slack says the person is among a role's members: undefined when it could not tell. */
function joined(decision: AccessDecision): boolean | undefined {
  return decision.allowed ? true : decision.reason === 'directory_unavailable' ? undefined : false;
}

/** An Approve clicked on a card that showed another version of the request counts for nothing. */
function cardShownRefusal(request: PaymentRequest, origin: ClickOrigin): Refusal | undefined {
  if ('home' in origin || origin.fingerprint === request.fingerprint) return undefined;
  return { code: 'card_differs', id: request.id };
}

function resolveRefusal(
  request: PaymentRequest,
  userId: string,
  executed: boolean,
): Refusal | undefined {
  const { id, status, reconciliation } = request;
  if (status !== 'unknown') return { code: 'outcome_known', id, status };
  if (reconciliation?.resolvedBy) {
    return { code: 'already_resolved', id, by: reconciliation.resolvedBy };
  }
  if (!executed && reconciliation?.result === 'found') return { code: 'found_at_provider', id };
  if (request.requesterId === userId) return { code: 'own_outcome', id };
  return undefined;
}

/** An approver asks about a pending request, not their own (they would ask themselves). */
function askRefusal(request: PaymentRequest, approverId: string): Refusal | undefined {
  return (
    pendingRefusal(request) ??
    (request.requesterId === approverId ? { code: 'own_request' } : undefined)
  );
}

/** Only its requester replaces a request, while it is pending and not past its expiry. */
function replaceRefusal(request: PaymentRequest, userId: string, now: Date): Refusal | undefined {
  if (request.requesterId !== userId) return { code: 'not_requester' };
  const expired = Date.parse(request.expiresAt) <= now.getTime();
  return pendingRefusal(request) ?? (expired ? { code: 'expired' } : undefined);
}

function pendingRefusal(request: PaymentRequest): Refusal | undefined {
  return request.status === 'pending'
    ? undefined
    : { code: 'already_decided', id: request.id, status: request.status };
}

/**
 * What the provider said, scrubbed: no secret it echoed, no account-like number; the error's
 * words where it gave none of its own.
 */
function outcomeOf(error: PaymentsApiError, words: OutcomeWords): ProviderOutcome {
  return {
    status: error.status,
    requestId: error.requestId,
    code: scrub(error.providerCode ?? error.code),
    message: scrub(
      error.providerMessage ?? words({ code: 'provider_error', error: error.facts() }),
    ),
  };
}
