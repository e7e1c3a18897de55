import type { PreflightCheck, WriteIntent } from '../domain/approval.ts';
import { compareDecimal, plainDecimal } from '../domain/decimal.ts';
import { OPERATIONS } from '../domain/operations.ts';
import type { PaymentsClient } from '../payments/client.ts';

/** What the checks read with. */
export type Reader = Pick<PaymentsClient, 'call'>;

import { PaymentsApiError } from '../payments/errors.ts';
import {
  findList,
  findRecord,
  isRecord,
  type JsonRecord,
  recordIdentity,
  scalarText,
} from '../payments/response-shape.ts';

/**
 * What payops can check of a write by reading, before an approver is asked: the wallet (and,
 * where its balance reply shows it, the currency and the amount available), the recipient, the
 * corridor and its rail. The spec shows no reply shapes, so "could not check" is an honest
 * answer, never a guess; only a 404 for the wallet or the recipient is certain enough to refuse.
 */

/** Statuses that mean a recipient can be paid. */
const ACTIVE = /^(active|enabled|verified|approved|ready|live)$/i;
const AVAILABLE_KEYS = ['available', 'available_amount', 'availableAmount', 'available_balance'];
const BALANCE_KEYS = ['amount', 'balance', 'total', 'value'];
const CURRENCY_KEYS = ['currency', 'asset', 'currency_code', 'code', 'symbol'];
const RAIL_KEYS = [
  'rails',
  'payment_rails',
  'paymentRails',
  'supported_rails',
  'destination_payment_rails',
];

/** The body field holding the currency of a write's amount (spec part 2). */
const AMOUNT_CURRENCY_FIELDS = ['currency', 'source_currency'];
/** The body fields naming a rail. */
const RAIL_FIELDS = ['destination_payment_rail', 'destination_type'];

/** Whether a write moves money out of a wallet: checked for balance before it is sent. */
export function movesMoney(intent: Pick<WriteIntent, 'operationId' | 'fields'>): boolean {
  return (
    OPERATIONS[intent.operationId].scopes.includes('payments:write') &&
    amountOf(intent.fields) !== undefined
  );
}

/**
 * The checks of a write, read through `client` (whose calls may be shared by requests made at
 * the same moment: a burst of payouts from one wallet asks for its balance once).
 */
export async function preflight(client: Reader, intent: WriteIntent): Promise<PreflightCheck[]> {
  const { fields, path } = intent;
  const walletId = fields.wallet_id ?? path.walletId;
  const recipientId = fields.external_account_id ?? path.externalAccountId;
  const corridorId = fields.corridor_id;
  const checks = await Promise.all([
    walletId
      ? walletChecks(client, walletId, movesMoney(intent) ? amountOf(fields) : undefined)
      : [],
    recipientId ? [await recipientCheck(client, recipientId)] : [],
    corridorId ? corridorChecks(client, corridorId, railOf(fields)) : [],
  ]);
  return checks.flat();
}

/** The balance check alone, right before a money-moving write is sent. */
export async function balanceCheck(
  client: Reader,
  intent: WriteIntent,
  signal: AbortSignal,
): Promise<PreflightCheck | undefined> {
  const walletId = intent.fields.wallet_id ?? intent.path.walletId;
  const amount = amountOf(intent.fields);
  if (!walletId || !amount) return undefined;
  const checks = await walletChecks(client, walletId, amount, signal);
  return checks.find((check) => check.name === 'balance');
}

interface Amount {
  amount: string;
  currency: string | undefined;
}

function amountOf(fields: Readonly<Record<string, string>>): Amount | undefined {
  const amount = fields.amount;
  if (amount === undefined) return undefined;
  const currencyField = AMOUNT_CURRENCY_FIELDS.find((name) => fields[name] !== undefined);
  return { amount, currency: currencyField && fields[currencyField] };
}

function railOf(fields: Readonly<Record<string, string>>): string | undefined {
  return RAIL_FIELDS.map((name) => fields[name]).find(Boolean);
}

async function walletChecks(
  client: Reader,
  walletId: string,
  amount: Amount | undefined,
  signal?: AbortSignal,
): Promise<PreflightCheck[]> {
  let body: unknown;
  try {
    body = (
      await client.call('getWalletBalance', { path: { walletId }, ...(signal && { signal }) })
    ).body;
  } catch (error) {
    if (isNotFound(error)) {
      return [
        {
          name: 'wallet',
          outcome: 'failed',
          certain: true,
          detail: `the provider has no wallet ${walletId}`,
        },
      ];
    }
    const why = `could not read the wallet's balance: ${reasonOf(error)}`;
    return [
      { name: 'wallet', outcome: 'unchecked', detail: why },
      ...(amount ? [{ name: 'balance' as const, outcome: 'unchecked' as const, detail: why }] : []),
    ];
  }
  const wallet: PreflightCheck = {
    name: 'wallet',
    outcome: 'passed',
    detail: `${walletId} exists`,
  };
  return amount ? [wallet, balanceOf(body, amount)] : [wallet];
}

/** The balance reply's row for the currency, as far as its shape shows it. */
function balanceOf(body: unknown, { amount, currency }: Amount): PreflightCheck {
  const rows = balanceRows(body);
  if (rows.length === 0 || !currency) {
    return {
      name: 'balance',
      outcome: 'unchecked',
      detail: 'the balance reply does not show amounts by currency',
    };
  }
  const row = rows.find((each) => each.currency.toUpperCase() === currency.toUpperCase());
  if (!row) {
    return { name: 'balance', outcome: 'failed', detail: `the wallet holds no ${currency}` };
  }
  if (compareDecimal(row.available, plainDecimal(amount) ?? amount) < 0) {
    return {
      name: 'balance',
      outcome: 'failed',
      detail: `${row.available} ${currency} available, less than the ${amount} requested`,
    };
  }
  return {
    name: 'balance',
    outcome: 'passed',
    detail: `${row.available} ${currency} available`,
  };
}

/**
 * `[{currency, available|amount}]` under any list key, or `{USDC: "12.00"}` — each amount a
 * plain decimal, or the row is left out.
 */
function balanceRows(body: unknown): Array<{ currency: string; available: string }> {
  const record = findRecord(body);
  const list =
    findList(body)?.items ??
    (record && isRecord(record.balances) ? mapRows(record.balances) : undefined) ??
    [];
  return list.flatMap((item) => {
    if (!isRecord(item)) return [];
    const currency = firstText(item, CURRENCY_KEYS);
    const available = plainDecimal(
      firstText(item, AVAILABLE_KEYS) ?? firstText(item, BALANCE_KEYS) ?? '',
    );
    return currency && available ? [{ currency, available }] : [];
  });
}

function mapRows(balances: JsonRecord): JsonRecord[] {
  return Object.entries(balances).map(([currency, amount]) => ({ currency, amount }));
}

async function recipientCheck(client: Reader, id: string): Promise<PreflightCheck> {
  try {
    const record = findRecord(
      (await client.call('getRecipient', { path: { externalAccountId: id } })).body,
    );
    const { status } = recordIdentity(record);
    if (status === undefined) {
      return {
        name: 'recipient',
        outcome: 'passed',
        detail: `${id} exists (its status is not shown)`,
      };
    }
    return ACTIVE.test(status)
      ? { name: 'recipient', outcome: 'passed', detail: `${id} is ${status}` }
      : { name: 'recipient', outcome: 'failed', detail: `${id} is ${status}, not active` };
  } catch (error) {
    if (isNotFound(error)) {
      return {
        name: 'recipient',
        outcome: 'failed',
        certain: true,
        detail: `the provider has no recipient ${id}`,
      };
    }
    return {
      name: 'recipient',
      outcome: 'unchecked',
      detail: `could not read the recipient: ${reasonOf(error)}`,
    };
  }
}

async function corridorChecks(
  client: Reader,
  corridorId: string,
  rail: string | undefined,
): Promise<PreflightCheck[]> {
  let items: unknown[] | undefined;
  try {
    items = findList((await client.call('listCorridors')).body)?.items;
  } catch (error) {
    return [
      {
        name: 'corridor',
        outcome: 'unchecked',
        detail: `could not list corridors: ${reasonOf(error)}`,
      },
    ];
  }
  if (!items) {
    return [
      {
        name: 'corridor',
        outcome: 'unchecked',
        detail: 'the corridor list is not in a shape payops reads',
      },
    ];
  }
  const corridor = items.find((item) => recordIdentity(item).id === corridorId);
  if (!isRecord(corridor)) {
    return [
      {
        name: 'corridor',
        outcome: 'failed',
        detail: `${corridorId} is not among the provider's corridors`,
      },
    ];
  }
  const checks: PreflightCheck[] = [
    { name: 'corridor', outcome: 'passed', detail: `${corridorId} exists` },
  ];
  const rails = railsOf(corridor);
  if (rail && rails.length > 0) {
    checks.push(
      rails.some((each) => each.toLowerCase() === rail.toLowerCase())
        ? { name: 'rail', outcome: 'passed', detail: `${corridorId} lists ${rail}` }
        : {
            name: 'rail',
            outcome: 'failed',
            detail: `${corridorId} lists ${rails.join(', ')}, not ${rail}`,
          },
    );
  }
  return checks;
}

function railsOf(corridor: JsonRecord): string[] {
  for (const key of RAIL_KEYS) {
    const value = corridor[key];
    if (Array.isArray(value)) return value.flatMap((rail) => scalarText(rail) ?? []);
  }
  const single = scalarText(corridor.rail) ?? scalarText(corridor.destination_payment_rail);
  return single ? [single] : [];
}

function firstText(record: JsonRecord, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const text = scalarText(record[key]);
    if (text !== undefined) return text;
  }
  return undefined;
}

function isNotFound(error: unknown): boolean {
  return error instanceof PaymentsApiError && error.status === 404;
}

function reasonOf(error: unknown): string {
  return error instanceof PaymentsApiError ? error.userMessage() : 'payops failed to ask';
}
