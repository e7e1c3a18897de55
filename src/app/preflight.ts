import type { PreflightCheck, PreflightFinding, WriteIntent } from '../domain/approval.ts';
import { compareDecimal, plainDecimal, readAmount } from '../domain/decimal.ts';
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
  nextPageOf,
  recordIdentity,
  scalarText,
} from '../payments/response-shape.ts';

/**
 * What payops can check of a write by reading, before an approver is asked: the wallet (and,
 * where its balance reply shows it, the currency and the amount available), the recipient, the
 * corridor and its rail. The spec shows no reply shapes, currencies, statuses or eligibility, so
 * a check fails only on what the provider showed (the same currency with less available, a
 * recipient it calls inactive, a complete corridor list without it); anything payops cannot
 * compare is "could not check", with what it saw. Only a 404 for the wallet or the recipient is
 * certain enough to refuse whatever `PAYOPS_PREFLIGHT` says.
 */

/** Statuses that say a recipient can be paid, and those that say it cannot; others are unknown. */
const ACTIVE = /^(active|enabled|verified|approved|ready|live)$/i;
const INACTIVE = /^(inactive|deactivated|disabled|closed|suspended|blocked|deleted|archived)$/i;
const AVAILABLE_KEYS = [
  'available',
  'available_amount',
  'availableAmount',
  'available_balance',
  'availableBalance',
  'free',
];
// Not `value`: a row's value may be its worth in another currency, not an amount of its own.
const BALANCE_KEYS = ['amount', 'balance', 'total'];
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
    intent.fields.amount !== undefined
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
      ? walletChecks(
          client,
          walletId,
          movesMoney(intent) ? amountOf(intent.operationId, fields) : undefined,
        )
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
  const amount = amountOf(intent.operationId, intent.fields);
  if (!walletId || !amount) return undefined;
  const checks = await walletChecks(client, walletId, amount, signal);
  return checks.find((check) => check.name === 'balance');
}

interface Amount {
  amount: string;
  currency: string | undefined;
  /** What the write is called in a finding: `payout`, `transfer` or `request`. */
  what: string;
}

function amountOf(
  operationId: WriteIntent['operationId'],
  fields: Readonly<Record<string, string>>,
): Amount | undefined {
  const amount = fields.amount;
  if (amount === undefined) return undefined;
  const currencyField = AMOUNT_CURRENCY_FIELDS.find((name) => fields[name] !== undefined);
  const { command } = OPERATIONS[operationId];
  return {
    amount,
    currency: currencyField && fields[currencyField],
    what: /^(payout|transfer)$/.test(command) ? command : 'request',
  };
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
          finding: { code: 'no_wallet', walletId },
        },
      ];
    }
    const finding = readFailed('balance', error);
    return [
      { name: 'wallet', outcome: 'unchecked', finding },
      ...(amount ? [{ name: 'balance' as const, outcome: 'unchecked' as const, finding }] : []),
    ];
  }
  const wallet: PreflightCheck = {
    name: 'wallet',
    outcome: 'passed',
    finding: { code: 'wallet_exists', walletId },
  };
  return amount ? [wallet, balanceOf(body, amount)] : [wallet];
}

/**
 * The balance reply's rows for the request's currency, compared only where the reply shows that
 * very currency: another one may be paid by conversion (a USDC wallet paying out USD), and
 * `usdc` is not `USDC` to a provider that may refuse it, so neither is a failed check.
 */
function balanceOf(body: unknown, { amount, currency, what }: Amount): PreflightCheck {
  const rows = balanceRows(body);
  const unchecked = (finding: PreflightFinding): PreflightCheck => ({
    name: 'balance',
    outcome: 'unchecked',
    finding,
  });
  if (rows.length === 0) return unchecked({ code: 'balance_shape_unknown' });
  if (!currency) return unchecked({ code: 'no_currency', what });
  const same = rows.filter((row) => row.currency === currency);
  if (same.length === 0) {
    const otherCase = rows.find((row) => row.currency.toUpperCase() === currency.toUpperCase());
    if (otherCase) {
      return unchecked({ code: 'currency_case', held: otherCase.currency, currency, what });
    }
    const held = rows.map((row) => ({ amount: row.shown, currency: row.currency }));
    return unchecked({ code: 'other_currencies', held, currency, what });
  }
  const wanted = plainDecimal(amount) ?? amount;
  const most = same.reduce((a, b) => (compareDecimal(b.available, a.available) > 0 ? b : a));
  if (compareDecimal(most.available, wanted) < 0) {
    return {
      name: 'balance',
      outcome: 'failed',
      finding: { code: 'insufficient', available: most.shown, currency, requested: amount },
    };
  }
  return {
    name: 'balance',
    outcome: 'passed',
    finding: { code: 'available', available: most.shown, currency },
  };
}

interface BalanceRow {
  currency: string;
  /** A plain decimal, to compare. */
  available: string;
  /** As the provider wrote it. */
  shown: string;
}

/**
 * `[{currency, available|amount}]` under any list key, `{USDC: "12.00"}` or
 * `{USDC: {available: "12.00"}}` — each amount a plain decimal, or the row is left out.
 */
function balanceRows(body: unknown): BalanceRow[] {
  const record = findRecord(body);
  const list =
    findList(body)?.items ??
    (record && isRecord(record.balances) ? mapRows(record.balances) : undefined) ??
    [];
  return list.flatMap((item) => {
    if (!isRecord(item)) return [];
    const currency = firstText(item, CURRENCY_KEYS);
    const shown = firstText(item, AVAILABLE_KEYS) ?? firstText(item, BALANCE_KEYS);
    const available = shown === undefined ? undefined : readAmount(shown);
    return currency && shown && available ? [{ currency, available, shown }] : [];
  });
}

function mapRows(balances: JsonRecord): JsonRecord[] {
  return Object.entries(balances).map(([currency, amount]) =>
    isRecord(amount) ? { ...amount, currency } : { currency, amount },
  );
}

async function recipientCheck(client: Reader, recipientId: string): Promise<PreflightCheck> {
  try {
    const record = findRecord(
      (await client.call('getRecipient', { path: { externalAccountId: recipientId } })).body,
    );
    const { status } = recordIdentity(record);
    if (status === undefined) {
      return {
        name: 'recipient',
        outcome: 'passed',
        finding: { code: 'recipient_exists', recipientId },
      };
    }
    if (ACTIVE.test(status)) {
      return {
        name: 'recipient',
        outcome: 'passed',
        finding: { code: 'recipient_active', recipientId, status },
      };
    }
    return INACTIVE.test(status)
      ? {
          name: 'recipient',
          outcome: 'failed',
          finding: { code: 'recipient_inactive', recipientId, status },
        }
      : {
          name: 'recipient',
          outcome: 'unchecked',
          finding: { code: 'recipient_status_unknown', recipientId, status },
        };
  } catch (error) {
    if (isNotFound(error)) {
      return {
        name: 'recipient',
        outcome: 'failed',
        certain: true,
        finding: { code: 'no_recipient', recipientId },
      };
    }
    return { name: 'recipient', outcome: 'unchecked', finding: readFailed('recipient', error) };
  }
}

async function corridorChecks(
  client: Reader,
  corridorId: string,
  rail: string | undefined,
): Promise<PreflightCheck[]> {
  const unchecked = (finding: PreflightFinding): PreflightCheck[] => [
    { name: 'corridor', outcome: 'unchecked', finding },
  ];
  let body: unknown;
  try {
    body = (await client.call('listCorridors')).body;
  } catch (error) {
    return unchecked(readFailed('corridors', error));
  }
  const list = findList(body);
  if (!list) return unchecked({ code: 'corridor_list_shape_unknown' });
  const corridor = list.items.find((item) => recordIdentity(item).id === corridorId);
  if (!isRecord(corridor)) {
    // Absent from a list is evidence only when the list is whole and shows every corridor's id.
    const whole =
      nextPageOf(body, list.items, OPERATIONS.listCorridors.path).kind === 'end' &&
      (list.total === undefined || list.total <= list.items.length) &&
      list.items.every((item) => recordIdentity(item).id !== undefined);
    return whole
      ? [{ name: 'corridor', outcome: 'failed', finding: { code: 'no_corridor', corridorId } }]
      : unchecked({ code: 'corridor_not_seen', corridorId });
  }
  const checks: PreflightCheck[] = [
    { name: 'corridor', outcome: 'passed', finding: { code: 'corridor_exists', corridorId } },
  ];
  const rails = railsOf(corridor);
  if (rail && rails.length > 0) checks.push(railCheck(corridorId, rails, rail));
  return checks;
}

/** The rail as the request writes it, among the corridor's: `ACH` listed is not `ach` sent. */
function railCheck(corridorId: string, rails: string[], rail: string): PreflightCheck {
  if (rails.includes(rail)) {
    return { name: 'rail', outcome: 'passed', finding: { code: 'rail_listed', corridorId, rail } };
  }
  const otherCase = rails.find((each) => each.toLowerCase() === rail.toLowerCase());
  if (otherCase) {
    return {
      name: 'rail',
      outcome: 'unchecked',
      finding: { code: 'rail_case', corridorId, listed: otherCase, rail },
    };
  }
  return {
    name: 'rail',
    outcome: 'failed',
    finding: { code: 'rail_not_listed', corridorId, rails, rail },
  };
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

/** A read that failed, with the provider's error; none when payops itself failed to ask. */
function readFailed(read: 'balance' | 'recipient' | 'corridors', error: unknown): PreflightFinding {
  return {
    code: 'read_failed',
    read,
    ...(error instanceof PaymentsApiError && { error: error.facts() }),
  };
}
