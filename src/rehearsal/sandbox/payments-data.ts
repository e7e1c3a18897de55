/**
 * The sandbox's seeded data and in-memory state. Every sandbox gets its own fresh copy from
 * `createSandboxState()`, so one test's payouts never show up in another's lists.
 *
 * The spec shows no response payloads; the shapes here are the sandbox's choice, written in the
 * snake_case of the request fields the spec does show.
 */
import { randomBytes } from 'node:crypto';
import type { Scope } from '../../domain/operations.ts';
import { randomHex } from './random-hex.ts';

export interface SandboxKey {
  customerId: string;
  scopes: Scope[];
  /** A legacy key whose scope classification is unresolved: 403 on every authenticated route. */
  legacy?: boolean;
  revoked?: boolean;
  /** The business failed verification; answered exactly like a revoked key (spec part 7). */
  ineligible?: boolean;
}

export const SANDBOX_BUSINESS = { id: 'cus_acme01', name: 'Acme Treasury Ltd' };
export const SANDBOX_OTHER_BUSINESS = { id: 'cus_globex02', name: 'Globex Logistics GmbH' };
/** The business behind the ineligible key: it has no data because it never passed KYB. */
const INELIGIBLE_BUSINESS_ID = 'cus_pending03';

export const SANDBOX_KEY = {
  full: 'sbx_acme_full',
  read: 'sbx_acme_read',
  payments: 'sbx_acme_payments',
  resources: 'sbx_acme_resources',
  legacy: 'sbx_acme_legacy',
  revoked: 'sbx_acme_revoked',
  ineligible: 'sbx_ineligible',
  other: 'sbx_globex_full',
} as const;

const ALL_SCOPES: Scope[] = ['read', 'resources:write', 'payments:write'];

export const SANDBOX_KEYS: Record<string, SandboxKey> = {
  [SANDBOX_KEY.full]: { customerId: SANDBOX_BUSINESS.id, scopes: ALL_SCOPES },
  [SANDBOX_KEY.read]: { customerId: SANDBOX_BUSINESS.id, scopes: ['read'] },
  [SANDBOX_KEY.payments]: { customerId: SANDBOX_BUSINESS.id, scopes: ['read', 'payments:write'] },
  [SANDBOX_KEY.resources]: { customerId: SANDBOX_BUSINESS.id, scopes: ['read', 'resources:write'] },
  [SANDBOX_KEY.legacy]: { customerId: SANDBOX_BUSINESS.id, scopes: ALL_SCOPES, legacy: true },
  [SANDBOX_KEY.revoked]: { customerId: SANDBOX_BUSINESS.id, scopes: ALL_SCOPES, revoked: true },
  [SANDBOX_KEY.ineligible]: {
    customerId: INELIGIBLE_BUSINESS_ID,
    scopes: ['read'],
    ineligible: true,
  },
  [SANDBOX_KEY.other]: { customerId: SANDBOX_OTHER_BUSINESS.id, scopes: ALL_SCOPES },
};

/** Seeded identifiers, for tests and demos that need a known wallet, recipient or corridor. */
export const SANDBOX_IDS = {
  wallet: {
    ethereumOps: 'wal_acme_eth_ops',
    solanaTreasury: 'wal_acme_sol_treasury',
    polygonPetty: 'wal_acme_poly_petty',
    baseEmpty: 'wal_acme_base_empty',
  },
  depositAccount: { activeUsd: 'va_acme_usd_ach', inactiveEur: 'va_acme_eur_sepa' },
  recipient: {
    usSupplier: 'ea_acme_us_northwind',
    mxContractor: 'ea_acme_mx_lopez',
    deAgency: 'ea_acme_de_blau',
    brInactive: 'ea_acme_br_souza',
  },
  corridor: {
    usdAch: 'cor_usdc_usd_ach_us',
    mxnSpei: 'cor_usdc_mxn_spei_mx',
    eurSepa: 'cor_usdc_eur_sepa_de',
    brlPix: 'cor_usdc_brl_pix_br',
  },
  other: {
    wallet: 'wal_globex_eth_main',
    depositAccount: 'va_globex_usd_ach',
    recipient: 'ea_globex_de_kraus',
  },
} as const;

// Sandbox's choice: the spec leaves supported chains, currencies and rails unshown (part 4, rule 5).
export const CHAINS = ['ethereum', 'solana', 'polygon', 'base', 'arbitrum'] as const;
export type Chain = (typeof CHAINS)[number];
/** What wallets hold and what payouts and transfers debit. */
export const WALLET_CURRENCIES = ['USDC', 'USDT'] as const;
export const FIAT_CURRENCIES = ['USD', 'EUR', 'GBP', 'MXN', 'BRL'] as const;
export const FIAT_RAILS = ['ach', 'wire', 'sepa', 'spei', 'pix'] as const;
/** The currency a bank account is paid in over each rail. */
export const RAIL_CURRENCY: Readonly<
  Record<(typeof FIAT_RAILS)[number], (typeof FIAT_CURRENCIES)[number]>
> = { ach: 'USD', wire: 'USD', sepa: 'EUR', spei: 'MXN', pix: 'BRL' };

export function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/** FX data, base USD. Rates as strings: they never pass through a float. */
export const FX_BASE = 'USD';
export const FX_RATES_PER_USD: Readonly<Record<string, string>> = {
  EUR: '0.92174300',
  GBP: '0.78912000',
  MXN: '17.05420000',
  BRL: '4.97310000',
  USDC: '0.99985000',
  USDT: '1.00021000',
};

export type ActivityStatus = 'active' | 'inactive';

export interface Wallet {
  id: string;
  chain: Chain;
  address: string;
  created_at: string;
  /** Currency → decimal string. An empty object is an empty wallet. */
  balances: Record<string, string>;
}

export interface DepositAccount {
  id: string;
  status: ActivityStatus;
  source_currency: string;
  destination_currency: string;
  destination_payment_rail: string;
  destination_address: string;
  deposit_instructions: Record<string, string | string[]>;
  created_at: string;
}

export interface Recipient {
  id: string;
  status: ActivityStatus;
  corridor_id: string;
  account_owner_name: string;
  bank_name: string;
  account_number: string;
  routing_number?: string;
  address: {
    street_line_1?: string;
    city?: string;
    state?: string;
    postal_code?: string;
    country: string;
  };
  created_at: string;
}

export interface Corridor {
  id: string;
  source_currency: string;
  destination_currency: string;
  destination_payment_rail: string;
  destination_country: string;
  status: ActivityStatus;
}

/** The wallet side of a movement: what its history shows and its balance reflects. */
export interface WalletEntry {
  walletId: string;
  direction: 'credit' | 'debit';
  amount: string;
  currency: string;
}

/** A deposit, transfer, route configuration or payout. */
export interface Movement {
  id: string;
  /** Order of creation across all collections, so a wallet history can interleave them. */
  seq: number;
  createdAt: number;
  /** Seeded records keep this status; records created at runtime advance with the clock. */
  fixedStatus?: string;
  /** Absent for route configurations, which move no money. */
  walletEntry?: WalletEntry;
  /** The record's own fields, echoed in responses. */
  fields: Record<string, string>;
}

export interface Business {
  id: string;
  name: string;
  wallets: Wallet[];
  depositAccounts: DepositAccount[];
  recipients: Recipient[];
  deposits: Movement[];
  transfers: Movement[];
  payouts: Movement[];
}

export interface SandboxState {
  businesses: Map<string, Business>;
  corridors: Corridor[];
  nextSeq: number;
}

export function newId(prefix: string): string {
  return `${prefix}_${randomHex(8)}`;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A fresh address in the chain's format: base58 on Solana, 0x-hex on the EVM chains. */
export function newAddress(chain: Chain): string {
  const bytes = randomBytes(chain === 'solana' ? 44 : 20);
  if (chain === 'solana') return [...bytes].map((byte) => BASE58[byte % BASE58.length]).join('');
  return `0x${bytes.toString('hex')}`;
}

export function isAddressOf(chain: Chain, address: string): boolean {
  if (chain === 'solana') return /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address);
  return /^0x[0-9a-fA-F]{40}$/.test(address);
}

/** Currencies a deposit account can receive, each with its bank instructions. */
export const DEPOSIT_CURRENCIES = ['USD', 'EUR'] as const;
export type DepositCurrency = (typeof DEPOSIT_CURRENCIES)[number];

/** Bank details a payer uses to fund a deposit account, by the account's source currency. */
export function depositInstructions(
  currency: DepositCurrency,
  holder: string,
  accountDigits: string = randomDigits(10),
): DepositAccount['deposit_instructions'] {
  if (currency === 'EUR') {
    return {
      bank_name: 'Banking Circle S.A.',
      account_holder_name: holder,
      iban: `LU28019000${accountDigits}`,
      bic: 'BCIRLULL',
      payment_rails: ['sepa'],
    };
  }
  return {
    bank_name: 'Lead Bank',
    account_holder_name: holder,
    account_number: accountDigits,
    routing_number: '101019644',
    payment_rails: ['ach', 'wire'],
  };
}

function randomDigits(count: number): string {
  return [...randomBytes(count)].map((byte) => String(byte % 10)).join('');
}

const ACME_ETH_ADDRESS = '0x8f3a61c2d94b07e5a1f6c38d2e90b47a15cf6e21';
const ACME_SOL_ADDRESS = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const GLOBEX_ETH_ADDRESS = '0x2b6d90e41f7c35a8d0e9b1c46f2a7d83e5b09c14';

interface SeedMovement {
  id: string;
  at: string;
  status: string;
  walletEntry?: WalletEntry;
  fields: Record<string, string>;
}

/** Seeded movements keep their status; `seq` is set once all are known (see numberByTime). */
function seeded(seeds: SeedMovement[]): Movement[] {
  return seeds.map((seed) => ({
    id: seed.id,
    seq: 0,
    createdAt: Date.parse(seed.at),
    fixedStatus: seed.status,
    ...(seed.walletEntry ? { walletEntry: seed.walletEntry } : {}),
    fields: seed.fields,
  }));
}

/** Numbers every seeded movement in time order, so histories interleave them chronologically. */
function numberByTime(businesses: Business[]): number {
  const movements = businesses
    .flatMap((business) => [...business.deposits, ...business.transfers, ...business.payouts])
    .sort((a, b) => a.createdAt - b.createdAt);
  for (const [index, movement] of movements.entries()) movement.seq = index + 1;
  return movements.length;
}

/** A deposit into a wallet through a deposit account. */
function deposit(
  id: string,
  at: string,
  walletId: string,
  accountId: string,
  amount: string,
): SeedMovement {
  return {
    id,
    at,
    status: 'completed',
    walletEntry: { walletId, direction: 'credit', amount, currency: 'USDC' },
    fields: {
      wallet_id: walletId,
      virtual_account_id: accountId,
      amount,
      currency: 'USDC',
      source_currency: 'USD',
      source_payment_rail: 'ach',
    },
  };
}

function payout(
  id: string,
  at: string,
  status: string,
  walletId: string,
  amount: string,
  beneficiary: { name: string; account: string; routing: string; type: string },
  extra: Record<string, string> = {},
): SeedMovement {
  return {
    id,
    at,
    status,
    walletEntry: { walletId, direction: 'debit', amount, currency: 'USDC' },
    fields: {
      wallet_id: walletId,
      amount,
      currency: 'USDC',
      beneficiary_name: beneficiary.name,
      beneficiary_account: beneficiary.account,
      beneficiary_routing: beneficiary.routing,
      destination_type: beneficiary.type,
      ...extra,
    },
  };
}

/** An off-ramp transfer of USDC to a recipient. */
function offramp(
  id: string,
  at: string,
  status: string,
  walletId: string,
  recipientId: string,
  corridor: Corridor,
  amount: string,
): SeedMovement {
  return {
    id,
    at,
    status,
    walletEntry: { walletId, direction: 'debit', amount, currency: corridor.source_currency },
    fields: {
      type: 'offramp',
      wallet_id: walletId,
      external_account_id: recipientId,
      corridor_id: corridor.id,
      amount,
      source_currency: corridor.source_currency,
      destination_currency: corridor.destination_currency,
    },
  };
}

function corridor(
  id: string,
  destination_currency: string,
  destination_payment_rail: string,
  destination_country: string,
): Corridor {
  return {
    id,
    source_currency: 'USDC',
    destination_currency,
    destination_payment_rail,
    destination_country,
    status: 'active',
  };
}

function recipient(
  id: string,
  corridorId: string,
  owner: string,
  bank: { name: string; account: string; routing?: string },
  address: Recipient['address'],
  status: ActivityStatus,
  created_at: string,
): Recipient {
  return {
    id,
    status,
    corridor_id: corridorId,
    account_owner_name: owner,
    bank_name: bank.name,
    account_number: bank.account,
    ...(bank.routing ? { routing_number: bank.routing } : {}),
    address,
    created_at,
  };
}

/** A fresh copy of the seeded world: two businesses and the shared corridors. */
export function createSandboxState(): SandboxState {
  const ids = SANDBOX_IDS;
  const corridors = [
    corridor(ids.corridor.usdAch, 'USD', 'ach', 'US'),
    corridor(ids.corridor.mxnSpei, 'MXN', 'spei', 'MX'),
    corridor(ids.corridor.eurSepa, 'EUR', 'sepa', 'DE'),
    corridor(ids.corridor.brlPix, 'BRL', 'pix', 'BR'),
  ];
  const [usdAch, mxnSpei, eurSepa] = corridors as [Corridor, Corridor, Corridor, Corridor];

  const acme: Business = {
    ...SANDBOX_BUSINESS,
    wallets: [
      {
        id: ids.wallet.ethereumOps,
        chain: 'ethereum',
        address: ACME_ETH_ADDRESS,
        created_at: '2025-01-14T09:12:44.000Z',
        balances: { USDC: '1250.50', USDT: '310.00' },
      },
      {
        id: ids.wallet.solanaTreasury,
        chain: 'solana',
        address: ACME_SOL_ADDRESS,
        created_at: '2025-01-14T09:15:02.000Z',
        balances: { USDC: '98000.00' },
      },
      {
        id: ids.wallet.polygonPetty,
        chain: 'polygon',
        address: '0x41d7b0e8c3a96f25d1e47b08ac3f92d6e5b17a40',
        created_at: '2025-02-03T16:40:10.000Z',
        balances: { USDC: '42.75' },
      },
      {
        id: ids.wallet.baseEmpty,
        chain: 'base',
        address: '0xc09e2f7a51b48d36e0a7f1c925d84b3e6a02d7f9',
        created_at: '2025-03-21T11:05:37.000Z',
        balances: {},
      },
    ],
    depositAccounts: [
      {
        id: ids.depositAccount.activeUsd,
        status: 'active',
        source_currency: 'USD',
        destination_currency: 'USDC',
        destination_payment_rail: 'ethereum',
        destination_address: ACME_ETH_ADDRESS,
        deposit_instructions: depositInstructions('USD', SANDBOX_BUSINESS.name, '2194003817'),
        created_at: '2025-01-15T10:00:00.000Z',
      },
      {
        id: ids.depositAccount.inactiveEur,
        status: 'inactive',
        source_currency: 'EUR',
        destination_currency: 'USDC',
        destination_payment_rail: 'solana',
        destination_address: ACME_SOL_ADDRESS,
        deposit_instructions: depositInstructions('EUR', SANDBOX_BUSINESS.name, '1234567890'),
        created_at: '2025-02-10T08:30:00.000Z',
      },
    ],
    recipients: [
      recipient(
        ids.recipient.usSupplier,
        usdAch.id,
        'Northwind Components Inc',
        { name: 'JPMorgan Chase Bank', account: '000123456789', routing: '021000021' },
        {
          street_line_1: '500 Market St',
          city: 'San Francisco',
          state: 'CA',
          postal_code: '94105',
          country: 'US',
        },
        'active',
        '2025-01-20T13:22:05.000Z',
      ),
      recipient(
        ids.recipient.mxContractor,
        mxnSpei.id,
        'María López Hernández',
        { name: 'BBVA México', account: '012180001234567897' },
        {
          street_line_1: 'Av. Reforma 222',
          city: 'Ciudad de México',
          postal_code: '06600',
          country: 'MX',
        },
        'active',
        '2025-02-11T17:45:00.000Z',
      ),
      recipient(
        ids.recipient.deAgency,
        eurSepa.id,
        'Blau Design GmbH',
        { name: 'Deutsche Bank', account: 'DE89370400440532013000', routing: 'DEUTDEFF' },
        { street_line_1: 'Torstraße 140', city: 'Berlin', postal_code: '10119', country: 'DE' },
        'active',
        '2025-03-02T09:10:30.000Z',
      ),
      recipient(
        ids.recipient.brInactive,
        ids.corridor.brlPix,
        'Ana Souza',
        { name: 'Nubank', account: 'ana.souza@example.com.br' },
        { city: 'São Paulo', country: 'BR' },
        'inactive',
        '2025-03-15T12:00:00.000Z',
      ),
    ],
    deposits: seeded([
      deposit(
        'dep_acme_0001',
        '2025-01-16T15:02:11.000Z',
        ids.wallet.ethereumOps,
        ids.depositAccount.activeUsd,
        '5000.00',
      ),
      deposit(
        'dep_acme_0002',
        '2025-02-12T10:44:52.000Z',
        ids.wallet.ethereumOps,
        ids.depositAccount.activeUsd,
        '2500.00',
      ),
    ]),
    transfers: seeded([
      offramp(
        'tr_acme_0001',
        '2025-02-14T11:20:00.000Z',
        'completed',
        ids.wallet.ethereumOps,
        ids.recipient.usSupplier,
        usdAch,
        '3200.00',
      ),
      {
        id: 'tr_acme_0002',
        at: '2025-03-03T08:05:41.000Z',
        status: 'completed',
        walletEntry: {
          walletId: ids.wallet.ethereumOps,
          direction: 'debit',
          amount: '500.00',
          currency: 'USDC',
        },
        fields: {
          type: 'crypto_to_crypto',
          wallet_id: ids.wallet.ethereumOps,
          amount: '500.00',
          source_currency: 'USDC',
          destination_currency: 'USDC',
          destination_payment_rail: 'polygon',
          destination_address: '0x41d7b0e8c3a96f25d1e47b08ac3f92d6e5b17a40',
        },
      },
      offramp(
        'tr_acme_0003',
        '2025-03-18T14:31:09.000Z',
        'failed',
        ids.wallet.ethereumOps,
        ids.recipient.mxContractor,
        mxnSpei,
        '750.00',
      ),
    ]),
    payouts: seeded([
      payout(
        'po_acme_0001',
        '2025-02-20T16:00:00.000Z',
        'completed',
        ids.wallet.ethereumOps,
        '1200.00',
        {
          name: 'Northwind Components Inc',
          account: '000123456789',
          routing: '021000021',
          type: 'ach',
        },
      ),
      payout(
        'po_acme_0002',
        '2025-03-25T10:12:33.000Z',
        'failed',
        ids.wallet.ethereumOps,
        '89.99',
        { name: 'Old Supplier LLC', account: '000987654321', routing: '026009593', type: 'ach' },
        { failure_reason: 'beneficiary_account_closed' },
      ),
    ]),
  };

  const globex: Business = {
    ...SANDBOX_OTHER_BUSINESS,
    wallets: [
      {
        id: ids.other.wallet,
        chain: 'ethereum',
        address: GLOBEX_ETH_ADDRESS,
        created_at: '2025-01-30T07:45:00.000Z',
        balances: { USDC: '5000.00' },
      },
    ],
    depositAccounts: [
      {
        id: ids.other.depositAccount,
        status: 'active',
        source_currency: 'USD',
        destination_currency: 'USDC',
        destination_payment_rail: 'ethereum',
        destination_address: GLOBEX_ETH_ADDRESS,
        deposit_instructions: depositInstructions('USD', SANDBOX_OTHER_BUSINESS.name, '2194009920'),
        created_at: '2025-01-30T08:00:00.000Z',
      },
    ],
    recipients: [
      recipient(
        ids.other.recipient,
        eurSepa.id,
        'Kraus Spedition KG',
        { name: 'Commerzbank', account: 'DE44500105175407324931', routing: 'COBADEFF' },
        { street_line_1: 'Hafenstraße 7', city: 'Hamburg', postal_code: '20457', country: 'DE' },
        'active',
        '2025-02-01T10:00:00.000Z',
      ),
    ],
    deposits: seeded([
      deposit(
        'dep_globex_0001',
        '2025-02-02T09:00:00.000Z',
        ids.other.wallet,
        ids.other.depositAccount,
        '6000.00',
      ),
    ]),
    transfers: seeded([
      offramp(
        'tr_globex_0001',
        '2025-02-05T12:00:00.000Z',
        'completed',
        ids.other.wallet,
        ids.other.recipient,
        eurSepa,
        '1000.00',
      ),
    ]),
    payouts: [],
  };

  const businesses = [acme, globex];
  return {
    businesses: new Map(businesses.map((business) => [business.id, business])),
    corridors,
    nextSeq: numberByTime(businesses) + 1,
  };
}
