/**
 * What each of the 26 authenticated operations does to the sandbox's state, and what it answers.
 * Requests reach these handlers already authenticated, scope-checked and validated.
 */
import { compareDecimal, multiplyDecimal, subtractDecimal } from '../../domain/decimal.ts';
import type { OperationId, Scope } from '../../domain/operations.ts';
import {
  type ActivityStatus,
  type Business,
  CHAINS,
  type Chain,
  type Corridor,
  DEPOSIT_CURRENCIES,
  depositInstructions,
  FIAT_CURRENCIES,
  FIAT_RAILS,
  FX_BASE,
  FX_RATES_PER_USD,
  isAddressOf,
  isOneOf,
  type Movement,
  newAddress,
  newId,
  RAIL_CURRENCY,
  type Recipient,
  type SandboxState,
  WALLET_CURRENCIES,
  type Wallet,
  type WalletEntry,
} from './payments-data.ts';
import { SandboxError, unprocessable } from './payments-errors.ts';
import { type ListRequest, listBody } from './payments-lists.ts';
import { type Fields, TRANSFERS_LIMIT } from './payments-validation.ts';
import { type MovementKind, type ProviderProfile, RETURNED } from './provider-profiles.ts';

export interface OperationContext {
  readonly state: SandboxState;
  readonly business: Business;
  readonly scopes: readonly Scope[];
  readonly params: Readonly<Record<string, string>>;
  readonly query: ReadonlyMap<string, string>;
  readonly body: Fields;
  readonly now: number;
  readonly statusStepMs: number;
  readonly listing: ListRequest;
  /** The provider the sandbox plays: what it accepts and how it shows records. */
  readonly profile: ProviderProfile;
}

export interface Reply {
  status: number;
  body: unknown;
}

type Handler = (context: OperationContext) => Reply;

const ok = (body: unknown): Reply => ({ status: 200, body });
const created = (body: unknown): Reply => ({ status: 201, body });
/** Sandbox's choice: lists are wrapped as `{ "data": [...] }`, paged and shown as `listing` says. */
const list = (items: unknown[], context: OperationContext, limit?: number): Reply =>
  ok(listBody(items, context.listing, limit));

/** Every operation except `health`, which needs no key and has no business behind it. */
export const HANDLERS: Record<Exclude<OperationId, 'health'>, Handler> = {
  getMe: ({ business, scopes }) =>
    ok({ customer: { id: business.id, business_name: business.name }, api_key: { scopes } }),

  listWallets: (context) => list(context.business.wallets.map(withoutBalances), context),

  getWalletBalance: (context) => {
    const { id, chain, balances } = walletFromPath(context);
    return ok(context.profile.balance({ walletId: id, chain, balances }));
  },

  getWalletHistory: (context) => {
    const wallet = walletFromPath(context);
    const { deposits, transfers, payouts } = context.business;
    const entries = [
      ...historyOf(wallet, 'deposit', deposits),
      ...historyOf(wallet, 'transfer', transfers),
      ...historyOf(wallet, 'payout', payouts),
    ].sort((a, b) => b.movement.seq - a.movement.seq);
    return list(
      entries.map((item) => historyEntry(item, context)),
      context,
    );
  },

  createWallet: ({ business, body, now }) => {
    const chain = chainOf(body, 'chain');
    const wallet: Wallet = {
      id: newId('wal'),
      chain,
      address: newAddress(chain),
      created_at: isoTime(now),
      balances: {},
    };
    business.wallets.push(wallet);
    return created(withoutBalances(wallet));
  },

  listDepositAccounts: (context) => list(context.business.depositAccounts, context),

  createDepositAccount: ({ business, body, now }) => {
    const source = required(body, 'source_currency');
    if (!isOneOf(DEPOSIT_CURRENCIES, source)) {
      throw unprocessable(
        'UNSUPPORTED_CURRENCY',
        `source_currency must be one of ${DEPOSIT_CURRENCIES.join(', ')} for a deposit account`,
      );
    }
    const destination = walletCurrency(body, 'destination_currency');
    const rail = chainOf(body, 'destination_payment_rail');
    const address = destinationAddress(body, rail);
    const account = {
      id: newId('va'),
      status: 'active' as const,
      source_currency: source,
      destination_currency: destination,
      destination_payment_rail: rail,
      destination_address: address,
      deposit_instructions: depositInstructions(source, business.name),
      created_at: isoTime(now),
    };
    business.depositAccounts.push(account);
    return created(account);
  },

  deactivateDepositAccount: (context) =>
    setActivity(context.business.depositAccounts, DEPOSIT_ACCOUNT, context.params, 'inactive'),
  reactivateDepositAccount: (context) =>
    setActivity(context.business.depositAccounts, DEPOSIT_ACCOUNT, context.params, 'active'),

  listRecipients: (context) => list(context.business.recipients, context),

  getRecipient: (context) => ok(fromPath(context.business.recipients, RECIPIENT, context.params)),

  createRecipient: ({ state, business, body, now }) => {
    const corridorId = required(body, 'corridor_id');
    findFromBody(state.corridors, CORRIDOR, 'corridor_id', corridorId);
    const { street_line_1, city, state: region, postal_code } = body;
    const recipient: Recipient = {
      id: newId('ea'),
      status: 'active',
      corridor_id: corridorId,
      account_owner_name: required(body, 'account_owner_name'),
      bank_name: required(body, 'bank_name'),
      account_number: required(body, 'account_number'),
      ...(body.routing_number ? { routing_number: body.routing_number } : {}),
      address: {
        ...(street_line_1 ? { street_line_1 } : {}),
        ...(city ? { city } : {}),
        ...(region ? { state: region } : {}),
        ...(postal_code ? { postal_code } : {}),
        country: required(body, 'country'),
      },
      created_at: isoTime(now),
    };
    business.recipients.push(recipient);
    return created(recipient);
  },

  updateRecipient: ({ business, params, body }) => {
    const recipient = fromPath(business.recipients, RECIPIENT, params);
    recipient.account_owner_name = required(body, 'account_owner_name');
    return ok(recipient);
  },

  deactivateRecipient: (context) =>
    setActivity(context.business.recipients, RECIPIENT, context.params, 'inactive'),
  reactivateRecipient: (context) =>
    setActivity(context.business.recipients, RECIPIENT, context.params, 'active'),

  listDeposits: (context) => listMovements('deposit', context),

  listTransfers: (context) => {
    const limit = Number(context.query.get('limit') ?? TRANSFERS_LIMIT.default);
    return listMovements('transfer', context, limit);
  },

  createTransfer: (context) => {
    const { wallet, recipient, corridor } = offrampParties(context);
    const amount = required(context.body, 'amount');
    const entry = debit(wallet, corridor.source_currency, amount);
    return recordMovement(context, 'transfer', entry, {
      type: 'offramp',
      wallet_id: wallet.id,
      external_account_id: recipient.id,
      corridor_id: corridor.id,
      amount,
      source_currency: corridor.source_currency,
      destination_currency: corridor.destination_currency,
    });
  },

  createCryptoTransfer: (context) => {
    const { body } = context;
    const wallet = walletFromBody(context);
    const rail = chainOf(body, 'destination_payment_rail');
    // Every check before the debit: a refused request must leave the balance untouched.
    const fields = {
      type: 'crypto_to_crypto',
      wallet_id: wallet.id,
      amount: required(body, 'amount'),
      source_currency: walletCurrency(body, 'source_currency'),
      destination_currency: walletCurrency(body, 'destination_currency'),
      destination_payment_rail: rail,
      destination_address: destinationAddress(body, rail),
    };
    const entry = debit(wallet, fields.source_currency, fields.amount);
    return recordMovement(context, 'transfer', entry, fields);
  },

  // Sandbox's choice: a route is a standing configuration that moves no money, listed among the
  // transfers with its `type` and the status `active`.
  createPaymentRoute: (context) => {
    const { body } = context;
    const wallet = walletFromBody(context);
    const rail = chainOf(body, 'destination_payment_rail');
    return recordMovement(context, 'transfer', undefined, {
      type: 'payment_route',
      wallet_id: wallet.id,
      source_currency: walletCurrency(body, 'source_currency'),
      destination_payment_rail: rail,
      destination_currency: walletCurrency(body, 'destination_currency'),
      destination_address: destinationAddress(body, rail),
    });
  },

  createOfframpRoute: (context) => {
    const { wallet, recipient, corridor } = offrampParties(context);
    return recordMovement(context, 'transfer', undefined, {
      type: 'offramp_route',
      wallet_id: wallet.id,
      corridor_id: corridor.id,
      external_account_id: recipient.id,
      source_currency: corridor.source_currency,
    });
  },

  listPayouts: (context) => listMovements('payout', context),

  createPayout: (context) => {
    const { body } = context;
    const wallet = walletFromBody(context);
    const amount = required(body, 'amount');
    const currency = required(body, 'currency');
    const debited = payoutDebit(context, wallet, amount);
    const fields = {
      wallet_id: wallet.id,
      amount,
      currency,
      beneficiary_name: required(body, 'beneficiary_name'),
      beneficiary_account: required(body, 'beneficiary_account'),
      ...(body.beneficiary_routing ? { beneficiary_routing: body.beneficiary_routing } : {}),
      destination_type: required(body, 'destination_type'),
      ...(debited.currency !== currency && {
        source_currency: debited.currency,
        source_amount: debited.amount,
      }),
    };
    const entry = debit(wallet, debited.currency, debited.amount);
    return recordMovement(context, 'payout', entry, fields);
  },

  getFxLatest: ({ now }) =>
    ok({ base: FX_BASE, as_of: isoTime(now), rates: FX_RATES_PER_USD, indicative: true }),

  getFxRate: ({ query, now }) => {
    const from = fxCurrency(query, 'from');
    const to = fxCurrency(query, 'to');
    // Sandbox's choice: `amount` may be left out and then means one unit of `from`.
    const amount = query.get('amount') ?? '1';
    const rate = divideDecimal(ratePerUsd(to), ratePerUsd(from), 8);
    return ok({
      from,
      to,
      amount,
      rate,
      converted_amount: multiplyDecimal(amount, rate, currencyDecimals(to)),
      as_of: isoTime(now),
      indicative: true,
      note: 'Indicative only: not an executable quote, a fee or a timing commitment.',
    });
  },

  listCorridors: (context) => list(context.state.corridors, context),
};

// ——— resources by id ———

interface ResourceKind {
  /** In messages: "wallet", "recipient"… */
  name: string;
  /** The path parameter that names one. */
  param: string;
}

const WALLET: ResourceKind = { name: 'wallet', param: 'walletId' };
const DEPOSIT_ACCOUNT: ResourceKind = { name: 'deposit account', param: 'virtualAccountId' };
const RECIPIENT: ResourceKind = { name: 'recipient', param: 'externalAccountId' };
const CORRIDOR: ResourceKind = { name: 'corridor', param: 'corridorId' };

function notFoundCode(kind: ResourceKind): string {
  return `${kind.name.toUpperCase().replace(/ /g, '_')}_NOT_FOUND`;
}

/** A resource named in the path. Another business's id answers exactly like a nonexistent one. */
function fromPath<T extends { id: string }>(
  items: readonly T[],
  kind: ResourceKind,
  params: Readonly<Record<string, string>>,
): T {
  const id = params[kind.param] ?? '';
  const found = items.find((item) => item.id === id);
  if (!found) throw new SandboxError(404, notFoundCode(kind), `No ${kind.name} ${id}`);
  return found;
}

/** A resource named in the body: a well-formed request whose reference is wrong, so 422. */
function findFromBody<T extends { id: string }>(
  items: readonly T[],
  kind: ResourceKind,
  field: string,
  id: string,
): T {
  const found = items.find((item) => item.id === id);
  if (!found) throw unprocessable(notFoundCode(kind), `${field}: no ${kind.name} ${id}`);
  return found;
}

/** Balances have their own endpoint; wallet lists leave them out (sandbox's choice). */
function withoutBalances({ balances: _, ...wallet }: Wallet): Omit<Wallet, 'balances'> {
  return wallet;
}

function walletFromPath({ business, params }: OperationContext): Wallet {
  return fromPath(business.wallets, WALLET, params);
}

function walletFromBody({ business, body }: OperationContext): Wallet {
  return findFromBody(business.wallets, WALLET, 'wallet_id', required(body, 'wallet_id'));
}

/** The wallet, active recipient and matching corridor of an off-ramp transfer or route. */
function offrampParties(context: OperationContext): {
  wallet: Wallet;
  recipient: Recipient;
  corridor: Corridor;
} {
  const { state, business, body } = context;
  const wallet = walletFromBody(context);
  const recipientId = required(body, 'external_account_id');
  const recipient = findFromBody(
    business.recipients,
    RECIPIENT,
    'external_account_id',
    recipientId,
  );
  const corridor = findFromBody(
    state.corridors,
    CORRIDOR,
    'corridor_id',
    required(body, 'corridor_id'),
  );
  if (recipient.status !== 'active') {
    throw unprocessable('RECIPIENT_INACTIVE', `Recipient ${recipient.id} is inactive`);
  }
  if (recipient.corridor_id !== corridor.id) {
    throw unprocessable(
      'CORRIDOR_MISMATCH',
      `Recipient ${recipient.id} belongs to corridor ${recipient.corridor_id}, not ${corridor.id}`,
    );
  }
  if (required(body, 'source_currency') !== corridor.source_currency) {
    throw unprocessable(
      'UNSUPPORTED_CURRENCY',
      `Corridor ${corridor.id} sends ${corridor.source_currency} only`,
    );
  }
  return { wallet, recipient, corridor };
}

function setActivity<T extends { id: string; status: ActivityStatus }>(
  items: readonly T[],
  kind: ResourceKind,
  params: Readonly<Record<string, string>>,
  target: ActivityStatus,
): Reply {
  const item = fromPath(items, kind, params);
  if (item.status === target) {
    // Sandbox's choice: the spec does not name these states; a no-op change is a conflict.
    throw new SandboxError(
      409,
      `ALREADY_${target.toUpperCase()}`,
      `The ${kind.name} ${item.id} is already ${target}`,
    );
  }
  item.status = target;
  return ok(item);
}

// ——— body values ———

function required(body: Fields, field: string): string {
  const value = body[field];
  // Validation has already refused a body without its required fields.
  if (value === undefined) throw new SandboxError(500, 'INTERNAL_ERROR', `${field} missing`);
  return value;
}

/** A chain field. Validation has already refused other values; this narrows the type. */
function chainOf(body: Fields, field: string): Chain {
  const chain = required(body, field);
  if (!isOneOf(CHAINS, chain)) {
    throw unprocessable('UNSUPPORTED_CHAIN', `${field} ${chain} is not supported`);
  }
  return chain;
}

function walletCurrency(body: Fields, field: string): string {
  const currency = required(body, field);
  if (!isOneOf(WALLET_CURRENCIES, currency)) {
    throw unprocessable(
      'UNSUPPORTED_CURRENCY',
      `${field} must be a wallet currency: ${WALLET_CURRENCIES.join(', ')}`,
    );
  }
  return currency;
}

function destinationAddress(body: Fields, chain: Chain): string {
  const address = required(body, 'destination_address');
  if (!isAddressOf(chain, address)) {
    throw unprocessable(
      'INVALID_DESTINATION_ADDRESS',
      `destination_address is not a ${chain} address`,
    );
  }
  return address;
}

// ——— money movements ———

/**
 * What a payout takes from the wallet. Its `currency` is a wallet currency, debited as is, or
 * (as the profile allows) the currency its rail pays the bank account in, debited from the
 * wallet's stablecoin by conversion at the FX data's rate: a USD payout over ACH from a USDC
 * wallet.
 */
function payoutDebit(
  { body, profile }: OperationContext,
  wallet: Wallet,
  amount: string,
): { currency: string; amount: string } {
  const currency = required(body, 'currency');
  const accepts = profile.payoutCurrency;
  if (accepts === 'wallet') return { currency: walletCurrency(body, 'currency'), amount };
  if (accepts === 'either' && isOneOf(WALLET_CURRENCIES, currency)) return { currency, amount };
  const rail = required(body, 'destination_type');
  const paid = isOneOf(FIAT_RAILS, rail) ? RAIL_CURRENCY[rail] : undefined;
  if (currency !== paid) {
    throw unprocessable(
      'UNSUPPORTED_CURRENCY',
      `currency: a payout over ${rail} is paid in ${paid}; the wallet's stablecoin is converted`,
    );
  }
  const stablecoin =
    WALLET_CURRENCIES.find((held) => wallet.balances[held] !== undefined) ?? WALLET_CURRENCIES[0];
  const inUsd = divideDecimal(amount, ratePerUsd(currency), 8);
  return { currency: stablecoin, amount: multiplyDecimal(inUsd, ratePerUsd(stablecoin), 6) };
}

/** Takes `amount` out of the wallet, or refuses with INSUFFICIENT_FUNDS. */
function debit(wallet: Wallet, currency: string, amount: string): WalletEntry {
  const balance = wallet.balances[currency] ?? '0';
  if (compareDecimal(balance, amount) < 0) {
    throw unprocessable(
      'INSUFFICIENT_FUNDS',
      `Wallet ${wallet.id} holds ${balance} ${currency}, less than ${amount}`,
    );
  }
  wallet.balances[currency] = subtractDecimal(balance, amount);
  return { walletId: wallet.id, direction: 'debit', amount, currency };
}

const MOVEMENTS: Readonly<
  Record<MovementKind, { idPrefix: string; of: (business: Business) => Movement[] }>
> = {
  deposit: { idPrefix: 'dep', of: (business) => business.deposits },
  transfer: { idPrefix: 'tr', of: (business) => business.transfers },
  payout: { idPrefix: 'po', of: (business) => business.payouts },
};

/** Stores a new movement; with a wallet entry it advances through the timed statuses. */
function recordMovement(
  context: OperationContext,
  kind: MovementKind,
  walletEntry: WalletEntry | undefined,
  fields: Record<string, string>,
): Reply {
  const movement: Movement = {
    id: newId(MOVEMENTS[kind].idPrefix),
    seq: context.state.nextSeq++,
    createdAt: context.now,
    ...(walletEntry ? { walletEntry } : { fixedStatus: 'active' }),
    fields,
  };
  MOVEMENTS[kind].of(context.business).push(movement);
  return created(renderMovement(kind, movement, context));
}

/**
 * Sandbox's choice for the unshown lifecycle: the profile's first word (`pending`), its second
 * after one status step (`processing`), its third after two (`completed`); a payout to the
 * profile's returned account is `returned` some steps later (its wallet is not credited back).
 * Computed on read, so no timer runs.
 */
function statusOf(movement: Movement, { now, statusStepMs, profile }: OperationContext): string {
  if (movement.fixedStatus) return movement.fixedStatus;
  const steps = Math.max(0, Math.floor((now - movement.createdAt) / statusStepMs));
  const { returns, lifecycle } = profile;
  const returned = returns !== undefined && movement.fields.beneficiary_account === returns.account;
  if (returned && steps >= lifecycle.length - 1 + returns.stepsAfterFinal) return RETURNED;
  return lifecycle[Math.min(steps, lifecycle.length - 1)] ?? lifecycle[0];
}

function renderMovement(
  kind: MovementKind,
  movement: Movement,
  context: OperationContext,
): Record<string, unknown> {
  return context.profile.record({
    kind,
    id: movement.id,
    fields: movement.fields,
    status: statusOf(movement, context),
    createdAt: movement.createdAt,
  });
}

/** Newest first, as the sandbox's choice for every movement list, unless the view says otherwise. */
function listMovements(kind: MovementKind, context: OperationContext, limit?: number): Reply {
  const movements = MOVEMENTS[kind].of(context.business);
  const ordered =
    context.listing.view.order === 'oldest_first' ? [...movements] : [...movements].reverse();
  return list(
    ordered.map((movement) => renderMovement(kind, movement, context)),
    context,
    limit,
  );
}

interface HistoryItem {
  type: MovementKind;
  movement: Movement;
  entry: WalletEntry;
}

function historyOf(
  wallet: Wallet,
  type: MovementKind,
  movements: readonly Movement[],
): HistoryItem[] {
  return movements.flatMap((movement) =>
    movement.walletEntry?.walletId === wallet.id
      ? [{ type, movement, entry: movement.walletEntry }]
      : [],
  );
}

function historyEntry(
  { type, movement, entry }: HistoryItem,
  context: OperationContext,
): Record<string, unknown> {
  return {
    reference_id: movement.id,
    type,
    direction: entry.direction,
    amount: context.profile.amount(entry.amount),
    currency: entry.currency,
    status: statusOf(movement, context),
    created_at: isoTime(movement.createdAt),
  };
}

// ——— FX ———

function fxCurrency(query: ReadonlyMap<string, string>, name: 'from' | 'to'): string {
  const currency = (query.get(name) ?? '').toUpperCase();
  if (currency === '') {
    throw new SandboxError(400, 'MISSING_QUERY_PARAMETER', `${name} is required`);
  }
  if (currency !== FX_BASE && FX_RATES_PER_USD[currency] === undefined) {
    throw unprocessable('UNSUPPORTED_CURRENCY', `No FX rate for ${currency}`);
  }
  return currency;
}

function ratePerUsd(currency: string): string {
  return FX_RATES_PER_USD[currency] ?? '1';
}

function currencyDecimals(currency: string): number {
  return isOneOf(FIAT_CURRENCIES, currency) ? 2 : 6;
}

/** `a / b` rounded half-up to `decimals` places; decimal.ts has no division and cross rates need one. */
function divideDecimal(a: string, b: string, decimals: number): string {
  // Both as integers of one common scale (18 decimals is finer than any rate), so the ratio holds.
  const units = (value: string) => BigInt(multiplyDecimal(value, '1', 18).replace('.', ''));
  const numerator = units(a) * 10n ** BigInt(decimals);
  const denominator = units(b);
  const roundedHalfUp = (2n * numerator + denominator) / (2n * denominator);
  return multiplyDecimal(roundedHalfUp.toString(), `0.${'0'.repeat(decimals - 1)}1`, decimals);
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
