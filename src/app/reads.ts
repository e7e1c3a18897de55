import {
  missingScopes,
  OPERATIONS,
  type OperationId,
  requiredScopes,
  type Scope,
} from '../domain/operations.ts';
import { Semaphore } from '../lib/semaphore.ts';
import { PaymentsApiError } from '../payments/errors.ts';
import { findList, recordIdentity } from '../payments/response-shape.ts';
import type { PaymentsPort } from './payments-port.ts';

/**
 * The queries behind `/pay` read commands. Scopes are checked against the key's own
 * (learned from `GET /me` at start-up) before the provider is called, so a command the key
 * cannot run is answered by name without a request the provider would refuse.
 */

export interface ReadRequest {
  operationId: OperationId;
  path: Record<string, string>;
  query: Record<string, string | boolean>;
}

export type ReadOutcome =
  | { kind: 'ok'; operationId: OperationId; body: unknown; requestId: string | undefined }
  | { kind: 'missing-scopes'; operationId: OperationId; missing: Scope[] }
  | { kind: 'failed'; operationId: OperationId; error: PaymentsApiError };

export interface WalletBalance {
  walletId: string;
  label: string | undefined;
  body?: unknown;
  error?: PaymentsApiError;
}

/** A choice a request form offers: a provider record's id, and its name when it has one. */
export interface Choice {
  id: string;
  name: string | undefined;
}

export interface FormChoices {
  wallets: Choice[];
  recipients: Choice[];
  corridors: Choice[];
}

export type AllBalancesOutcome =
  | { kind: 'ok'; balances: WalletBalance[]; total: number }
  | Exclude<ReadOutcome, { kind: 'ok' }>;

export class ReadService {
  readonly #client: PaymentsPort;
  readonly #keyScopes: readonly string[];
  readonly #balanceConcurrency: number;
  /** How many wallets `/pay balance` reads at most, so one command stays bounded. */
  readonly #maxWallets: number;

  constructor(
    client: PaymentsPort,
    keyScopes: readonly string[],
    options: { balanceConcurrency?: number; maxWallets?: number } = {},
  ) {
    this.#client = client;
    this.#keyScopes = keyScopes;
    this.#balanceConcurrency = options.balanceConcurrency ?? 4;
    this.#maxWallets = options.maxWallets ?? 40;
  }

  /** Scopes the key lacks for this operation with these query parameters. */
  missingScopes(operationId: OperationId, queryNames: Iterable<string> = []): Scope[] {
    return missingScopes(requiredScopes(operationId, queryNames), this.#keyScopes);
  }

  async read(request: ReadRequest): Promise<ReadOutcome> {
    const { operationId } = request;
    if (OPERATIONS[operationId].kind !== 'read')
      throw new TypeError(`${operationId} is not a read`);
    const missing = this.missingScopes(operationId, Object.keys(request.query));
    if (missing.length > 0) return { kind: 'missing-scopes', operationId, missing };
    try {
      const response = await this.#client.call(operationId, {
        path: request.path,
        query: request.query,
      });
      return { kind: 'ok', operationId, body: response.body, requestId: response.requestId };
    } catch (error) {
      if (error instanceof PaymentsApiError) return { kind: 'failed', operationId, error };
      throw error;
    }
  }

  /**
   * What a request form's selects offer, read from the provider: wallets, the recipients that
   * are active, corridors. A list that cannot be read offers nothing (the field is typed).
   */
  async formChoices(): Promise<FormChoices> {
    const [wallets, recipients, corridors] = await Promise.all([
      this.#choices('listWallets'),
      this.#choices('listRecipients', { activeOnly: true }),
      this.#choices('listCorridors'),
    ]);
    return { wallets, recipients, corridors };
  }

  async #choices(
    operationId: 'listWallets' | 'listRecipients' | 'listCorridors',
    { activeOnly = false } = {},
  ): Promise<Choice[]> {
    const outcome = await this.read({ operationId, path: {}, query: {} });
    if (outcome.kind !== 'ok') return [];
    return (findList(outcome.body)?.items ?? []).flatMap((item) => {
      const { id, name, status } = recordIdentity(item);
      // A record without a status is offered: only one said to be inactive is left out.
      if (!id || (activeOnly && status && status !== 'active')) return [];
      return [{ id, name }];
    });
  }

  /** The balance of every wallet, read a few at a time. */
  async allBalances(): Promise<AllBalancesOutcome> {
    const wallets = await this.read({ operationId: 'listWallets', path: {}, query: {} });
    if (wallets.kind !== 'ok') return wallets;
    const missing = this.missingScopes('getWalletBalance');
    if (missing.length > 0)
      return { kind: 'missing-scopes', operationId: 'getWalletBalance', missing };
    const items = findList(wallets.body)?.items ?? [];
    const identified = items
      .map((item) => recordIdentity(item))
      .filter(
        (identity): identity is typeof identity & { id: string } => identity.id !== undefined,
      );
    const gate = new Semaphore(this.#balanceConcurrency);
    const balances = await Promise.all(
      identified.slice(0, this.#maxWallets).map(async ({ id, name }) => {
        const release = await gate.acquire();
        try {
          const outcome = await this.read({
            operationId: 'getWalletBalance',
            path: { walletId: id },
            query: {},
          });
          const balance: WalletBalance = { walletId: id, label: name };
          if (outcome.kind === 'ok') balance.body = outcome.body;
          if (outcome.kind === 'failed') balance.error = outcome.error;
          return balance;
        } finally {
          release();
        }
      }),
    );
    return { kind: 'ok', balances, total: identified.length };
  }
}
