import {
  bodyText,
  type LimitRaise,
  type PreflightCheck,
  type RequestLabels,
  type UnsettledTwin,
  type WriteIntent,
} from '../domain/approval.ts';
import type { SupportingDocument } from '../domain/document.ts';
import { missingScopes, requiredScopes, type Scope } from '../domain/operations.ts';
import {
  type PayeeCheck,
  payeeDestinationOf,
  payeeNameOf,
  recipientAccountOf,
} from '../domain/payee.ts';
import {
  expiryMs,
  type Policy,
  type Requirement,
  requesterLimitStart,
  requiredApprovals,
  windowStart,
} from '../domain/policy.ts';
import { policyVersion } from '../domain/policy-version.ts';
import type { Signer } from '../domain/signer.ts';
import { findList, findRecord, recordIdentity } from '../payments/response-shape.ts';
import type { ApiResponse, PaymentsPort } from './payments-port.ts';
import { preflight, type Reader } from './preflight.ts';
import type { NewRequest, PayeeHistoryPort } from './request-store-port.ts';

/**
 * A validated write made ready to be stored as a pending request, or why it will not be: the
 * key's scopes, an unsettled twin, the pre-flight checks read from the provider, then what
 * approvers are shown (names, payee tags and checks) and how many of them the policy asks for.
 * Nothing is stored and nothing is sent to the provider but reads.
 */

export interface PreparationDeps {
  store: PayeeHistoryPort;
  client: PaymentsPort;
  /** Keyed digests: the write's fingerprint and hold key, payee tags. */
  signer: Signer;
  /** `strict`: a failed pre-flight check refuses the request; `warn`: the card shows it. */
  preflight: 'warn' | 'strict';
  keyScopes: readonly string[];
  policy: Policy;
  now: () => Date;
}

/** A request as it is to be stored, less where its requester is answered. */
export type PreparedRequest = Omit<NewRequest, 'requesterChannelId' | 'answerTo'>;

export type Preparation =
  | { kind: 'prepared'; request: PreparedRequest }
  | { kind: 'missing-scopes'; missing: Scope[] }
  /** The same write is being sent, or its outcome is unknown and unsettled. */
  | { kind: 'held'; twin: UnsettledTwin }
  /** A pre-flight check failed beyond doubt, or any did under `strict`. */
  | { kind: 'refused'; refusing: PreflightCheck[]; checks: PreflightCheck[] }
  /** It takes its requester past a requester limit that refuses (`refuse: true`). */
  | { kind: 'over_limit'; limit: LimitRaise }
  /** Its amount is over a step's cap, and its rule refuses past it (`over_cap`). */
  | { kind: 'over_step_cap'; cap: NonNullable<Requirement['stepRefused']> };

/** Wallet names shown on cards are display only: one list serves the requests of a minute. */
const WALLET_NAMES_FOR_MS = 60_000;

export class RequestPreparation {
  readonly #deps: PreparationDeps;
  #wallets: { at: number; names: Promise<ReadonlyMap<string, string> | undefined> } | undefined;
  /** Pre-flight reads in flight, by what they ask: requests made together share one. */
  readonly #readsInFlight = new Map<string, Promise<ApiResponse>>();
  readonly #sharedReads: Reader = {
    call: (operationId, input = {}) => {
      const key = JSON.stringify([operationId, input.path ?? {}, input.query ?? {}]);
      const inFlight = this.#readsInFlight.get(key);
      if (inFlight) return inFlight;
      const read = this.#deps.client
        .call(operationId, input)
        .finally(() => this.#readsInFlight.delete(key));
      this.#readsInFlight.set(key, read);
      return read;
    },
  };

  constructor(deps: PreparationDeps) {
    this.#deps = deps;
  }

  missingScopes(intent: Pick<WriteIntent, 'operationId'>): Scope[] {
    return missingScopes(requiredScopes(intent.operationId), this.#deps.keyScopes);
  }

  /**
   * `requesterId`'s write, ready to store, or why it is not asked of an approver; `document`,
   * read already, is sealed and stored with it.
   */
  async prepare(
    intent: WriteIntent,
    requesterId: string,
    document?: SupportingDocument,
  ): Promise<Preparation> {
    const missing = this.missingScopes(intent);
    if (missing.length > 0) return { kind: 'missing-scopes', missing };
    const { signer, store, policy } = this.#deps;
    const body = bodyText(intent);
    const write = { operationId: intent.operationId, path: intent.path, body };
    const asNamed = signer.keysOf(write);
    // Told now rather than at the approval: the same write may already have been executed.
    const twin = await store.unsettledTwin(asNamed.holdKey, asNamed.paymentKey);
    if (twin) return { kind: 'held', twin };
    const [{ labels, recipientAccount }, checks] = await Promise.all([
      this.#labelsFor(intent),
      preflight(this.#sharedReads, intent),
    ]);
    const paid = payeeDestinationOf(intent.fields, intent.path, recipientAccount);
    const keys = signer.keysOf(write, paid?.destination);
    // A recipient read as its account: the same payment may have been made to that account.
    const accountTwin =
      keys.paymentKey !== asNamed.paymentKey &&
      (await store.unsettledTwin(keys.holdKey, keys.paymentKey));
    if (accountTwin) return { kind: 'held', twin: accountTwin };
    const refusing = checks.filter(
      (check) => check.outcome === 'failed' && (check.certain || this.#deps.preflight === 'strict'),
    );
    if (refusing.length > 0) return { kind: 'refused', refusing, checks };
    const payee =
      keys.payeeTag === undefined
        ? undefined
        : await this.#payeeOf(intent, {
            tag: keys.payeeTag,
            recipientName: labels?.recipientName,
            recipientUnread: paid?.recipientUnread === true,
          });
    const now = this.#deps.now();
    const since = payee && windowStart(policy, intent, now);
    const earlier = since ? await store.requestsToPayee(requesterId, payee.check.tag, since) : [];
    // A requester limit counts the requester's requests to every payee, whoever is paid.
    const limitSince = requesterLimitStart(policy, intent, now);
    const byRequester = limitSince
      ? await store.requestsOfRequester(requesterId, limitSince)
      : undefined;
    const needed = requiredApprovals(policy, intent, { earlier, now, byRequester });
    if (needed.limitRefused) return { kind: 'over_limit', limit: needed.limitRefused };
    if (needed.stepRefused) return { kind: 'over_step_cap', cap: needed.stepRefused };
    const fingerprint = signer.fingerprint(intent.operationId, intent.path, body);
    const sealed = {
      fingerprint,
      requesterId,
      requiredApprovals: needed.approvals,
      purpose: intent.purpose,
      chain: needed.chain && { ...needed.chain, policyVersion: policyVersion(policy) },
      document,
    };
    return {
      kind: 'prepared',
      request: {
        operationId: intent.operationId,
        path: { ...intent.path },
        body,
        ...sealed,
        holdKey: keys.holdKey,
        paymentKey: keys.paymentKey,
        sealOf: (id) => signer.requestSeal({ ...sealed, id }),
        expiresAt: new Date(this.#deps.now().getTime() + expiryMs(policy)),
        labels: {
          ...labels,
          ...(payee && { payee: payee.check }),
          ...(checks.length > 0 && { checks }),
          ...(needed.windowRaised && { windowRaised: needed.windowRaised }),
          ...(needed.limitRaised && { limitRaised: needed.limitRaised }),
        },
        payee: payee && { tag: payee.check.tag, nameTag: payee.nameTag },
        window: since ? { since, counted: earlier.map((request) => request.id) } : undefined,
        limit:
          limitSince && byRequester
            ? { since: limitSince, counted: byRequester.map((request) => request.id) }
            : undefined,
      },
    };
  }

  /**
   * Names for the approval message: the recipient's and the wallet's, read from the provider,
   * and the account the recipient's record shows. Best effort — a failed lookup leaves the
   * identifier alone — and never part of what is sent.
   */
  async #labelsFor(
    intent: WriteIntent,
  ): Promise<{ labels: RequestLabels | undefined; recipientAccount: string | undefined }> {
    const recipientId = intent.fields.external_account_id ?? intent.path.externalAccountId;
    const walletId = intent.fields.wallet_id;
    const [recipient, wallet] = await Promise.all([
      recipientId ? this.#recipient(recipientId) : undefined,
      walletId ? this.#walletLabel(walletId) : undefined,
    ]);
    const labels =
      recipient?.name || wallet
        ? { recipientName: recipient?.name, walletLabel: wallet }
        : undefined;
    return { labels, recipientAccount: recipient?.account };
  }

  /**
   * Who the write pays, told apart by keyed tags (`tag`): whether this deployment has paid that
   * destination before, and whether the name it is paid under was paid at another one.
   */
  async #payeeOf(
    intent: WriteIntent,
    {
      tag,
      recipientName,
      recipientUnread,
    }: { tag: string; recipientName: string | undefined; recipientUnread: boolean },
  ): Promise<{ check: PayeeCheck; nameTag: string | undefined }> {
    const { signer, store } = this.#deps;
    const name = payeeNameOf(intent.fields, recipientName);
    const nameTag = name ? signer.nameTag(name) : undefined;
    const history = await store.payeeHistory(tag, nameTag);
    return {
      check: {
        tag,
        newPayee: !history.paidBefore,
        changedFrom: history.nameElsewhere,
        ...(recipientUnread && { recipientUnread }),
      },
      nameTag,
    };
  }

  /** A recipient's name and the account its record shows in full, as far as it could be read. */
  async #recipient(
    externalAccountId: string,
  ): Promise<{ name: string | undefined; account: string | undefined } | undefined> {
    try {
      const response = await this.#sharedReads.call('getRecipient', {
        path: { externalAccountId },
      });
      const record = findRecord(response.body);
      return {
        name: recordIdentity(record).name,
        account: record && recipientAccountOf(record),
      };
    } catch {
      return undefined;
    }
  }

  async #walletLabel(walletId: string): Promise<string | undefined> {
    const names = await this.#walletNames();
    return names?.get(walletId);
  }

  /**
   * Every wallet's name, from one `GET /wallets` reused for WALLET_NAMES_FOR_MS: a burst of
   * requests costs the provider one list, not one each. A failed read is not kept.
   */
  #walletNames(): Promise<ReadonlyMap<string, string> | undefined> {
    const now = Date.now();
    if (this.#wallets && now - this.#wallets.at < WALLET_NAMES_FOR_MS) return this.#wallets.names;
    const names = this.#deps.client.call('listWallets').then(
      (response) => {
        const named = new Map<string, string>();
        for (const item of findList(response.body)?.items ?? []) {
          const { id, name } = recordIdentity(item);
          if (id && name) named.set(id, name);
        }
        return named;
      },
      () => {
        this.#wallets = undefined;
        return undefined;
      },
    );
    this.#wallets = { at: now, names };
    return names;
  }
}
