/**
 * The operations catalogue: the 27 requests of the Payments API specification (part 4),
 * described once. The client, scope checks, help texts, command parsing and the sandbox
 * all read this table; nothing else restates a method, a path or a scope.
 */

export const SCOPES = ['read', 'resources:write', 'payments:write'] as const;
export type Scope = (typeof SCOPES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

export interface QueryParamSpec {
  readonly name: string;
  readonly type: 'boolean' | 'integer' | 'string' | 'decimal';
  /** Scopes needed only when this parameter is sent (spec: `sync=true` needs resources:write). */
  readonly extraScopes?: readonly Scope[];
  /** Given as a bare word after the command (`/pay fx EUR USD 100`) rather than `--name`. */
  readonly positional?: 'required' | 'optional';
  readonly description: string;
}

export interface OperationSpec {
  readonly method: HttpMethod;
  /** Path template relative to the base URL, e.g. `/wallets/{walletId}/balance`. */
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly query: readonly QueryParamSpec[];
  /** Body fields of the spec's known examples: not a statement of what is required or valid. */
  readonly bodyFields: readonly string[];
  readonly scopes: readonly Scope[];
  readonly kind: 'read' | 'write';
  /** `GET /health` is the only request sent without the key. */
  readonly authenticated: boolean;
  /** The `/pay` word for this operation. */
  readonly command: string;
  /**
   * For a write: the list where its effect shows. With no webhooks (spec part 6), a write whose
   * outcome is unknown is checked by reading this list before anyone may try again.
   */
  readonly reconcileWith?: OperationId;
  readonly summary: string;
}

const SYNC: QueryParamSpec = {
  name: 'sync',
  type: 'boolean',
  extraScopes: ['resources:write'],
  description: 'ask the provider to synchronise first',
};

const READ: readonly Scope[] = ['read'];
const RESOURCES: readonly Scope[] = ['read', 'resources:write'];
const PAYMENTS: readonly Scope[] = ['read', 'payments:write'];
const BOTH_WRITES: readonly Scope[] = ['read', 'resources:write', 'payments:write'];

type ReadSpec = OperationSpec & { readonly kind: 'read' };
type WriteSpec = OperationSpec & { readonly kind: 'write' };

function read(
  path: string,
  command: string,
  summary: string,
  query: readonly QueryParamSpec[] = [],
): ReadSpec {
  return {
    method: 'GET',
    path,
    pathParams: pathParamsOf(path),
    query,
    bodyFields: [],
    scopes: READ,
    kind: 'read',
    authenticated: true,
    command,
    summary,
  };
}

function write(
  method: 'POST' | 'PATCH',
  path: string,
  scopes: readonly Scope[],
  bodyFields: readonly string[],
  command: string,
  summary: string,
): WriteSpec {
  return {
    method,
    path,
    pathParams: pathParamsOf(path),
    query: [],
    bodyFields,
    scopes,
    kind: 'write',
    authenticated: true,
    command,
    summary,
    reconcileWith: RECONCILE_WITH[path.split('/')[1] as string],
  };
}

/** By the path's first segment: where a write's effect is listed. */
const RECONCILE_WITH: Record<string, OperationId> = {
  wallets: 'listWallets',
  'virtual-accounts': 'listDepositAccounts',
  'external-accounts': 'listRecipients',
  transfers: 'listTransfers',
  payouts: 'listPayouts',
};

function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
}

export const OPERATIONS = {
  health: {
    method: 'GET',
    path: '/health',
    pathParams: [],
    query: [],
    bodyFields: [],
    scopes: [],
    kind: 'read',
    authenticated: false,
    command: 'health',
    summary: 'Check reachability (proves nothing about the key or payments)',
  },
  getMe: read('/me', 'me', 'The business and key scopes tied to the API key'),
  listWallets: read('/wallets', 'wallets', 'List wallets', [SYNC]),
  getWalletBalance: read('/wallets/{walletId}/balance', 'balance', 'Read a wallet balance'),
  getWalletHistory: read('/wallets/{walletId}/history', 'history', 'Read a wallet history'),
  createWallet: write('POST', '/wallets', RESOURCES, ['chain'], 'create-wallet', 'Create a wallet'),
  listDepositAccounts: read('/virtual-accounts', 'deposit-accounts', 'List deposit accounts', [
    SYNC,
  ]),
  createDepositAccount: write(
    'POST',
    '/virtual-accounts',
    BOTH_WRITES,
    ['source_currency', 'destination_currency', 'destination_payment_rail', 'destination_address'],
    'create-deposit-account',
    'Create a deposit account',
  ),
  deactivateDepositAccount: write(
    'POST',
    '/virtual-accounts/{virtualAccountId}/deactivate',
    RESOURCES,
    [],
    'deactivate-deposit-account',
    'Deactivate a deposit account',
  ),
  reactivateDepositAccount: write(
    'POST',
    '/virtual-accounts/{virtualAccountId}/reactivate',
    BOTH_WRITES,
    [],
    'reactivate-deposit-account',
    'Reactivate a deposit account',
  ),
  listRecipients: read('/external-accounts', 'recipients', 'List recipients', [SYNC]),
  getRecipient: read('/external-accounts/{externalAccountId}', 'recipient', 'Retrieve a recipient'),
  createRecipient: write(
    'POST',
    '/external-accounts',
    RESOURCES,
    [
      'corridor_id',
      'account_owner_name',
      'bank_name',
      'account_number',
      'routing_number',
      'street_line_1',
      'city',
      'state',
      'postal_code',
      'country',
    ],
    'create-recipient',
    'Create a recipient',
  ),
  updateRecipient: write(
    'PATCH',
    '/external-accounts/{externalAccountId}',
    RESOURCES,
    ['account_owner_name'],
    'update-recipient',
    'Update a recipient',
  ),
  deactivateRecipient: write(
    'POST',
    '/external-accounts/{externalAccountId}/deactivate',
    RESOURCES,
    [],
    'deactivate-recipient',
    'Deactivate a recipient',
  ),
  reactivateRecipient: write(
    'POST',
    '/external-accounts/{externalAccountId}/reactivate',
    RESOURCES,
    [],
    'reactivate-recipient',
    'Reactivate a recipient',
  ),
  listDeposits: read('/deposits', 'deposits', 'List deposit activity', [SYNC]),
  listTransfers: read('/transfers', 'transfers', 'List transfers', [
    SYNC,
    { name: 'limit', type: 'integer', description: 'how many transfers to list' },
  ]),
  createTransfer: write(
    'POST',
    '/transfers',
    PAYMENTS,
    ['wallet_id', 'external_account_id', 'amount', 'source_currency', 'corridor_id'],
    'transfer',
    'Send to a recipient (off-ramp)',
  ),
  createCryptoTransfer: write(
    'POST',
    '/transfers/crypto-to-crypto',
    PAYMENTS,
    [
      'wallet_id',
      'amount',
      'source_currency',
      'destination_currency',
      'destination_payment_rail',
      'destination_address',
    ],
    'crypto-transfer',
    'Crypto-to-crypto transfer',
  ),
  createPaymentRoute: write(
    'POST',
    '/transfers/payment-route',
    PAYMENTS,
    [
      'wallet_id',
      'source_currency',
      'destination_payment_rail',
      'destination_currency',
      'destination_address',
    ],
    'payment-route',
    'Configure a crypto payment route',
  ),
  createOfframpRoute: write(
    'POST',
    '/transfers/offramp-route',
    PAYMENTS,
    ['wallet_id', 'corridor_id', 'external_account_id', 'source_currency'],
    'offramp-route',
    'Configure an off-ramp payment route',
  ),
  listPayouts: read('/payouts', 'payouts', 'List payouts'),
  createPayout: write(
    'POST',
    '/payouts',
    PAYMENTS,
    [
      'wallet_id',
      'amount',
      'currency',
      'beneficiary_name',
      'beneficiary_account',
      'beneficiary_routing',
      'destination_type',
    ],
    'payout',
    'Create a payout',
  ),
  getFxLatest: read('/fx/latest', 'fx', 'Latest FX data'),
  getFxRate: read('/fx/rate', 'fx', 'FX rate (indicative, not a quote)', [
    { name: 'from', type: 'string', positional: 'required', description: 'source currency' },
    { name: 'to', type: 'string', positional: 'required', description: 'target currency' },
    { name: 'amount', type: 'decimal', positional: 'optional', description: 'amount to convert' },
  ]),
  listCorridors: read('/corridors', 'corridors', 'List corridors'),
} as const satisfies Record<string, OperationSpec>;

export type OperationId = keyof typeof OPERATIONS;
export type WriteOperationId = {
  [K in OperationId]: (typeof OPERATIONS)[K]['kind'] extends 'write' ? K : never;
}[OperationId];

export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];

export function operation(id: OperationId): OperationSpec {
  return OPERATIONS[id];
}

export function isWrite(id: OperationId): id is WriteOperationId {
  return OPERATIONS[id].kind === 'write';
}

/** Scopes an operation needs, including those of query parameters actually sent. */
export function requiredScopes(id: OperationId, sentQuery: Iterable<string> = []): Scope[] {
  const spec: OperationSpec = OPERATIONS[id];
  const needed = new Set<Scope>(spec.scopes);
  for (const name of sentQuery) {
    for (const scope of spec.query.find((param) => param.name === name)?.extraScopes ?? []) {
      needed.add(scope);
    }
  }
  return SCOPES.filter((scope) => needed.has(scope));
}

/** The scopes of `needed` that `held` lacks, in canonical order. */
export function missingScopes(needed: Iterable<Scope>, held: Iterable<string>): Scope[] {
  const heldSet = new Set(held);
  return [...new Set(needed)].filter((scope) => !heldSet.has(scope));
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Banking details (spec part 2: "sensitive data"): shown only as `••••1234`, in Slack and in logs.
 */
export const BANKING_FIELDS: ReadonlySet<string> = new Set([
  'account_number',
  'routing_number',
  'beneficiary_account',
  'beneficiary_routing',
  'destination_address',
  'iban',
  'bic',
  'swift',
  'sort_code',
  'clabe',
]);

/**
 * Beneficiary identity: shown to the people approving a payment, never written to a log.
 */
export const BENEFICIARY_FIELDS: ReadonlySet<string> = new Set([
  'beneficiary_name',
  'account_owner_name',
  'street_line_1',
  'postal_code',
]);
