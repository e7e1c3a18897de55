/**
 * Provider profiles: the sandbox answering as one of several plausible providers, each written
 * from what the spec leaves "not shown" (response fields, states, currencies and eligibility,
 * paging). `default` is the sandbox's own choice; every other profile fills those silences
 * otherwise, so that tests run against a provider that disagrees with payops's assumptions.
 *
 * A profile is data and a few small render functions: the sandbox's logic stays one, and a
 * profile only decides what it accepts as a payout's currency, the words of its lifecycle, how
 * its lists page, and how a record and a balance are shown. docs/payments-client.md says which
 * silence each covers.
 */
import { JsonNumber } from './json-text.ts';
import type { ListView } from './payments-lists.ts';

export const PROFILE_NAMES = [
  'default',
  'stablecoin-offramp',
  'masked-lists',
  'numeric-amounts',
  'terse',
] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export type MovementKind = 'deposit' | 'transfer' | 'payout';

/** A deposit, transfer or payout as the sandbox knows it, for a profile to show. */
export interface MovementView {
  kind: MovementKind;
  id: string;
  /** The record's own fields; amounts are decimal strings. */
  fields: Readonly<Record<string, string>>;
  /** Already in the profile's words. */
  status: string;
  createdAt: number;
}

export interface BalanceView {
  walletId: string;
  chain: string;
  /** Currency → decimal string. */
  balances: Readonly<Record<string, string>>;
}

export interface ProviderProfile {
  name: ProfileName;
  /** The provider it plays, in a line. */
  summary: string;
  /**
   * The currency a payout names: a wallet currency, debited as is (`wallet`); the currency its
   * rail pays out (USD over ACH), debited from the wallet's stablecoin by conversion (`fiat`);
   * or either.
   */
  payoutCurrency: 'wallet' | 'fiat' | 'either';
  /** Statuses of a new payout or transfer: on creation, after one status step, after two. */
  lifecycle: readonly [string, string, string];
  /**
   * Payouts to `account` are `returned` by the bank `stepsAfterFinal` status steps after they
   * reach the lifecycle's last word, as a provider's test account for returns is (ACH returns
   * come days after completion).
   */
  returns?: { account: string; stepsAfterFinal: number };
  /** How its lists page and order their records (see `ListView`). */
  list: ListView;
  /** A deposit, transfer or payout, in a list and in a write's answer. */
  record(movement: MovementView): Record<string, unknown>;
  /** The answer of `GET /wallets/{walletId}/balance`. */
  balance(wallet: BalanceView): unknown;
  /** An amount anywhere else it is shown (a wallet's history). */
  amount(decimal: string): unknown;
}

/** The status of a payout returned after completion. */
export const RETURNED = 'returned';

const asIs = (decimal: string): unknown => decimal;
const asNumber = (decimal: string): unknown => new JsonNumber(decimal);
const isoTime = (ms: number): string => new Date(ms).toISOString();

/** The last four characters of an account, as a masked list shows it. */
function lastFour(account: string): string {
  return account.replace(/[\s-]/g, '').slice(-4);
}

const AMOUNT_FIELDS: ReadonlySet<string> = new Set(['amount', 'source_amount']);

/** The fields with every amount as a JSON number. */
function withNumbers(fields: Readonly<Record<string, string>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      AMOUNT_FIELDS.has(name) ? asNumber(value) : value,
    ]),
  );
}

/** Where money went, nested and cut short: a bank account by its last four digits. */
function terseDestination(fields: Readonly<Record<string, string>>): Record<string, unknown> {
  const { beneficiary_account, destination_type, external_account_id, destination_address } =
    fields;
  if (beneficiary_account !== undefined) {
    return { destination: { type: destination_type, last_four: lastFour(beneficiary_account) } };
  }
  if (external_account_id !== undefined) return { destination: { account: external_account_id } };
  if (destination_address !== undefined) return { destination: { address: destination_address } };
  return {};
}

const DEFAULT: ProviderProfile = {
  name: 'default',
  summary: "the sandbox's own choices: fields as sent, ISO dates, one page",
  payoutCurrency: 'wallet',
  lifecycle: ['pending', 'processing', 'completed'],
  list: {},
  record: ({ id, fields, status, createdAt }) => ({
    id,
    ...fields,
    status,
    created_at: isoTime(createdAt),
  }),
  balance: ({ walletId, chain, balances }) => ({
    wallet_id: walletId,
    chain,
    balances: Object.entries(balances).map(([currency, amount]) => ({ currency, amount })),
  }),
  amount: asIs,
};

export const PROFILES: Readonly<Record<ProfileName, ProviderProfile>> = {
  default: DEFAULT,
  'stablecoin-offramp': {
    name: 'stablecoin-offramp',
    summary: 'USDC wallets paying out in fiat (USD over ACH); payout_id, epoch dates',
    payoutCurrency: 'fiat',
    lifecycle: ['pending', 'in_transit', 'paid'],
    returns: { account: '000111111113', stepsAfterFinal: 8 },
    list: { pageSize: 2, paging: 'cursor' },
    record: ({ kind, id, fields, status, createdAt }) => ({
      [`${kind}_id`]: id,
      ...fields,
      status,
      created: asNumber(String(Math.floor(createdAt / 1000))),
    }),
    balance: ({ walletId, balances }) => ({
      wallet_id: walletId,
      balances: Object.fromEntries(
        Object.entries(balances).map(([currency, available]) => [
          currency,
          { available, pending: '0.00' },
        ]),
      ),
    }),
    amount: asIs,
  },
  'masked-lists': {
    name: 'masked-lists',
    summary: 'accounts only masked, under names of its own; link paging, oldest first',
    payoutCurrency: 'either',
    lifecycle: ['submitted', 'processing', 'completed'],
    list: { pageSize: 3, paging: 'link', order: 'oldest_first', bankingNumbers: 'masked' },
    record: ({ id, fields, status, createdAt }) => {
      const { beneficiary_account, beneficiary_routing: _, ...shown } = fields;
      return {
        id,
        ...shown,
        ...(beneficiary_account !== undefined && {
          payee_acct_masked: `****${lastFour(beneficiary_account)}`,
        }),
        status,
        inserted_at: isoTime(createdAt),
      };
    },
    balance: DEFAULT.balance,
    amount: asIs,
  },
  'numeric-amounts': {
    name: 'numeric-amounts',
    summary: 'amounts as JSON numbers, statuses in capitals; page numbers, oldest first',
    payoutCurrency: 'either',
    lifecycle: ['PENDING', 'PROCESSING', 'SETTLED'],
    list: { pageSize: 3, paging: 'page', order: 'oldest_first' },
    record: ({ id, fields, status, createdAt }) => ({
      id,
      ...withNumbers(fields),
      status,
      created_at: isoTime(createdAt),
    }),
    balance: ({ walletId, chain, balances }) => ({
      wallet_id: walletId,
      chain,
      balances: Object.entries(balances).map(([currency, available]) => ({
        currency,
        available: asNumber(available),
      })),
    }),
    amount: asNumber,
  },
  terse: {
    name: 'terse',
    summary: "a reference, no date, an account's last four digits; next URLs",
    payoutCurrency: 'fiat',
    lifecycle: ['created', 'sent', 'paid'],
    list: { pageSize: 2, paging: 'next_url' },
    record: ({ id, fields, status }) => ({
      reference: id,
      amount: fields.amount,
      currency: fields.currency ?? fields.source_currency,
      status,
      ...terseDestination(fields),
    }),
    balance: ({ balances }) => ({
      data: Object.entries(balances).map(([asset, free]) => ({ asset, free, locked: '0.00' })),
    }),
    amount: asIs,
  },
};

export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name);
}
