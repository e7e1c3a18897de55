import { maskAccount, type SensitiveKind, sensitiveKind } from '../../domain/masking.ts';
import { OPERATIONS, type OperationId } from '../../domain/operations.ts';
import type { PaymentsApiError } from '../../payments/errors.ts';
import {
  type FoundList,
  findList,
  findRecord,
  identityKeys,
  isRecord,
  type JsonRecord,
  scalarText,
} from '../../payments/response-shape.ts';
import { providerErrorText } from '../text/provider-errors.ts';
import {
  code,
  counted,
  dateText,
  escapeMrkdwn,
  freeText,
  inlineText,
  joinWithin,
  layOut,
  readAmountText,
  type SlackMessage,
} from './format.ts';

/**
 * Answers to `/pay` reads as Block Kit. The spec shows no response shapes, so nothing here
 * expects one: lists are found wherever they are, a record's identifying fields come first
 * and every other field follows as `key: value`. Amounts keep the provider's exact digits,
 * banking numbers are masked at any depth and all provider text is escaped.
 */

/** Reads that answer with a list; the others answer with one record (a bare array is still a list). */
const LIST_READS: ReadonlySet<OperationId> = new Set<OperationId>([
  'listWallets',
  'getWalletHistory',
  'listDepositAccounts',
  'listRecipients',
  'listDeposits',
  'listTransfers',
  'listPayouts',
  'listCorridors',
]);

const INDICATIVE =
  '_Indicative, not a quote: the provider commits to no executable rate, fee or timing._';
const PROVIDER_STATUSES =
  "_Statuses are the provider's own words. No status here is proof of final settlement._";

/** Said with these answers whatever the provider sent (spec parts 1 and 4). */
const CAVEATS: Partial<Record<OperationId, string>> = {
  health: '_This proves reachability only: not that the API key, the business or payments work._',
  getFxRate: INDICATIVE,
  getFxLatest: INDICATIVE,
  listTransfers: PROVIDER_STATUSES,
  listPayouts: PROVIDER_STATUSES,
};

export function renderRead(
  operationId: OperationId,
  body: unknown,
  meta: { requestId?: string | undefined },
): SlackMessage {
  const summary = OPERATIONS[operationId].summary;
  const record = findRecord(body);
  const lead = LEADS[operationId]?.(record) ?? { lines: [], shown: [] };
  const found = LIST_READS.has(operationId) || Array.isArray(body) ? findList(body) : undefined;
  const view = found ? listView(found, body) : recordView(body, record, new Set(lead.shown));
  const caveat = CAVEATS[operationId];
  return layOut({
    header: summary,
    intro: [...lead.lines, ...(caveat ? [caveat] : []), ...view.intro],
    units: view.units,
    packing: view.packing,
    footer: (shown) => [
      ...view.footer(shown),
      ...(meta.requestId ? [`Request id ${code(meta.requestId)}`] : []),
    ],
    text: (shown) =>
      joinWithin([summary, view.text(shown) || (lead.lines[0] ?? '')].filter(Boolean), ': ', 1000),
  });
}

export interface WalletBalanceResult {
  walletId: string;
  label?: string | undefined;
  body?: unknown;
  error?: PaymentsApiError | undefined;
}

/** `/pay balance` without a wallet: one section per wallet, its failure shown in its place. */
export function renderAllBalances(
  results: WalletBalanceResult[],
  meta: { total: number },
): SlackMessage {
  const total = Math.max(meta.total, results.length);
  return layOut({
    header: 'Wallet balances',
    intro: total === 0 ? ['The provider lists no wallets, so there is no balance to show.'] : [],
    units: results.map(walletBalanceText),
    packing: 'each',
    footer: (shown) =>
      cutNote(shown, results.length, total, `only ${results.length} wallet balances were read`),
    text: (shown) =>
      `Wallet balances: ${shown < total ? `showing ${shown} of ${total} wallets` : counted(total, 'wallet')}`,
  });
}

function walletBalanceText(result: WalletBalanceResult): string {
  const title = [result.label ? `*${inlineText(result.label, 80)}*` : '', code(result.walletId)]
    .filter(Boolean)
    .join(' · ');
  if (result.error) {
    return `${title}\nCould not read this balance: ${freeText(providerErrorText(result.error.facts()), 600)}`;
  }
  const facts = factsOf(findRecord(result.body) ?? result.body, RECORD_FACTS);
  const amounts = facts.filter((fact) => fact.amount).map(amountLabel);
  const line =
    amounts.length > 0
      ? joinWithin(amounts, ' · ', 1200)
      : facts.length > 0
        ? joinWithin(facts.map(factLine), ' · ', 600)
        : 'The provider sent an empty reply for this wallet.';
  return `${title}\n${line}`;
}

// ——— views: what goes in the intro and the body ———

interface View {
  intro: string[];
  units: Iterable<string>;
  packing: 'each' | 'lines';
  footer(shown: number): string[];
  text(shown: number): string;
}

/** Lines said first for some reads, and the field paths they have already shown. */
interface Lead {
  lines: string[];
  shown: string[];
}

const LEADS: Partial<Record<OperationId, (record: JsonRecord | undefined) => Lead>> = {
  health: (record) => {
    const status = scalarText(record?.status);
    return {
      lines: [
        `The Payments API is reachable: \`GET /health\` answered${status ? ` with status ${code(status)}` : ''}.`,
      ],
      shown: ['status'],
    };
  },
  // Spec part 1: `GET /me` carries customer.id, customer.business_name and api_key.scopes.
  getMe: (record) => {
    const customer = isRecord(record?.customer) ? record.customer : {};
    const apiKey = isRecord(record?.api_key) ? record.api_key : {};
    const name = scalarText(customer.business_name);
    const id = scalarText(customer.id);
    const scopes = (Array.isArray(apiKey.scopes) ? apiKey.scopes : [apiKey.scopes]).flatMap(
      (scope) => scalarText(scope) ?? [],
    );
    const scopeList = joinWithin(
      scopes.map((scope) => code(scope)),
      ', ',
      600,
    );
    return {
      lines: [
        `*Business:* ${name ? inlineText(name) : '_not in the reply_'}`,
        `*Customer id:* ${id ? code(id) : '_not in the reply_'}`,
        `*Key scopes:* ${scopeList || '_none listed_'}`,
      ],
      shown: ['customer.business_name', 'customer.id', 'api_key.scopes'],
    };
  },
};

function listView(found: FoundList, body: unknown): View {
  const total = Math.max(found.total ?? 0, found.items.length);
  const intro: string[] = [];
  // `{wallet_id, balances: […]}`, `{data: […], has_more: true}`: what surrounds the list.
  const container = found.at.split('.')[0] ?? '';
  if (container !== '' && isRecord(body)) {
    const around = factsOf(body, ITEM_FACTS).filter((fact) => !inside(fact.path, container));
    if (around.length > 0) intro.push(joinWithin(around.map(factLine), ' · ', 600));
  }
  if (found.items.length === 0) {
    intro.push(
      total > 0
        ? `The provider reports ${total} in total but sent none in this reply.`
        : 'The list is empty.',
    );
  }
  const received = found.items.length;
  return {
    intro,
    units: (function* () {
      for (const item of found.items) yield itemText(item);
    })(),
    packing: 'each',
    footer: (shown) =>
      cutNote(shown, received, total, `the provider sent ${received} in this reply`),
    text: (shown) => (shown < total ? `showing ${shown} of ${total}` : counted(total, 'item')),
  };
}

function recordView(body: unknown, record: JsonRecord | undefined, shownByLead: Set<string>): View {
  if (record === undefined) {
    const value = scalarText(body);
    const answer = value === undefined ? undefined : (dateText(value) ?? inlineText(value, 1500));
    return {
      intro: [answer ? `The provider answered: ${answer}` : 'The provider sent an empty reply.'],
      units: [],
      packing: 'lines',
      footer: () => [],
      text: () => answer ?? 'empty reply',
    };
  }
  const { headline, rest, cut } = describeRecord(record, RECORD_FACTS, shownByLead);
  const lines = rest.map(factLine);
  const first = headline.length > 0 ? [headline.join(' · ')] : [];
  return {
    intro:
      first.length + lines.length === 0 && shownByLead.size === 0
        ? ['The reply has no fields.']
        : [],
    units: [...first, ...lines],
    packing: 'lines',
    footer: (shown) => {
      const fields = shown - first.length;
      if (fields >= lines.length && !cut) return [];
      return [`Showing ${fields} of ${cut ? 'more than ' : ''}${lines.length} fields.`];
    },
    text: () => first[0] ?? '',
  };
}

function itemText(item: unknown): string {
  if (!isRecord(item)) return factsOf(item, ITEM_FACTS).map(factLine).join(' · ') || '(empty)';
  const { headline, rest, cut } = describeRecord(item, ITEM_FACTS);
  const details = [...rest.map(factLine), ...(cut ? ['…'] : [])];
  const lines = [joinWithin(headline, ' · ', 300), joinWithin(details, ' · ', 400)];
  return lines.filter(Boolean).join('\n') || '(empty record)';
}

/**
 * A record's identity first — id, name, amount with its currency, status, date — then the
 * rest of its fields, none repeated.
 */
function describeRecord(
  record: JsonRecord,
  limit: number,
  alreadyShown: ReadonlySet<string> = new Set(),
): { headline: string[]; rest: Fact[]; cut: boolean } {
  const walk = { left: limit, cut: false };
  const facts = recordFacts(record, walk, '', 0, undefined).filter(
    (fact) => !alreadyShown.has(fact.path),
  );
  const keys = identityKeys(record);
  const byPath = (path: string | undefined) => facts.find((fact) => fact.path === path);
  const amount = facts.find((fact) => fact.amount && Object.hasOwn(record, fact.path));
  const parts: Array<[Fact | undefined, (fact: Fact) => string]> = [
    [byPath(keys.id), (fact) => fact.text],
    [byPath(keys.name), (fact) => `*${fact.text}*`],
    [amount, amountLabel],
    [byPath(keys.status), factLine],
    [byPath(keys.createdAt), factLine],
  ];
  const headline: string[] = [];
  const shown = new Set<Fact>();
  for (const [fact, render] of parts) {
    if (fact === undefined || shown.has(fact)) continue;
    headline.push(render(fact));
    shown.add(fact);
  }
  return { headline, rest: facts.filter((fact) => !shown.has(fact)), cut: walk.cut };
}

// ——— facts: one field of a record, formatted ———

interface Fact {
  /** Key path from the record, e.g. `fee.amount`; `''` for a value that is not in a record. */
  path: string;
  /** Escaped mrkdwn. */
  text: string;
  /** An amount, with its currency when the provider gave one. */
  amount: boolean;
}

/** Facts a whole record may show, and a list item (which is one compact section). */
const RECORD_FACTS = 200;
const ITEM_FACTS = 24;
/** Nested objects are flattened to `a.b.c: v` this deep, then summarised. */
const FLATTEN_DEPTH = 3;
const ARRAY_PREVIEW = 8;
const ARRAY_TEXT_MAX = 400;

const AMOUNT_KEY = /amount|balance|^(available|value|total|pending|fees?|held|reserved|locked)$/i;
/** Amount keys that say nothing more than "amount": dropped when the amount is labelled. */
const PLAIN_AMOUNT_KEYS = new Set(['', 'amount', 'value', 'balance', 'balances']);
const CURRENCY_KEYS = ['currency', 'currency_code', 'asset', 'ccy', 'symbol'];
const CURRENCY_CODE = /^[A-Za-z][A-Za-z0-9._-]{1,15}$/;
/** `{USDC: '1250.50'}` under a balance key: a currency code per key. */
const CURRENCY_MAP_KEY = /^[A-Z][A-Z0-9]{1,9}$/;
const DECIMAL = /^[-+]?\d{1,40}(\.\d{1,40})?$/;
const ID_KEY = /(^|_)id$|Id$|^(uuid|reference|ref)$/;

interface Walk {
  /** Facts still allowed, so a huge reply costs no more than a readable one. */
  left: number;
  cut: boolean;
}

/** The facts of any value: a record's fields, or the value itself under the path `''`. */
function factsOf(value: unknown, limit: number): Fact[] {
  const walk = { left: limit, cut: false };
  return isRecord(value)
    ? recordFacts(value, walk, '', 0, undefined)
    : valueFacts('', '', value, 0, walk, undefined);
}

/**
 * The facts of a record's fields. `concealed`: the record sits under a banking or secret key,
 * so every value in it is masked or hidden whatever its own key (`api_key: {value: …}`).
 */
function recordFacts(
  record: JsonRecord,
  walk: Walk,
  prefix: string,
  depth: number,
  concealed: Concealed | undefined,
): Fact[] {
  const amounts = concealed ? new Map<string, AmountPair>() : pairAmounts(record);
  const currencyKeys = new Set([...amounts.values()].map((pair) => pair.currencyKey));
  const facts: Fact[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (walk.left <= 0) {
      walk.cut = true;
      break;
    }
    if (currencyKeys.has(key)) continue;
    const path = `${prefix}${key}`;
    const pair = amounts.get(key);
    const found = pair
      ? [{ path, text: readAmountText(pair.digits, pair.currency), amount: true }]
      : valueFacts(key, path, value, depth, walk, concealed ?? sensitiveKind(key));
    walk.left -= found.length;
    facts.push(...found);
  }
  return facts;
}

interface AmountPair {
  digits: string;
  currency: string;
  currencyKey: string;
}

/**
 * Amount keys holding a decimal, each with the sibling key naming its currency:
 * `source_amount` → `source_currency`, else `currency`, `asset`… An amount-like key with no
 * currency beside it (`total: 120` may be a count) stays an ordinary field.
 */
function pairAmounts(record: JsonRecord): Map<string, AmountPair> {
  const pairs = new Map<string, AmountPair>();
  for (const [key, value] of Object.entries(record)) {
    const digits = decimalText(value);
    if (digits === undefined || !AMOUNT_KEY.test(key)) continue;
    const prefix = /^(.+?)_?(?:amount|balance)$/i.exec(key)?.[1];
    const candidates = prefix
      ? [`${prefix}_currency`, `${prefix}Currency`, ...CURRENCY_KEYS]
      : // Spec part 2: transfers are requested with `amount` and `source_currency`.
        [...CURRENCY_KEYS, 'source_currency'];
    for (const currencyKey of candidates) {
      const currency = currencyOf(record, currencyKey);
      if (currency === undefined) continue;
      pairs.set(key, { digits, currency, currencyKey });
      break;
    }
  }
  return pairs;
}

function currencyOf(record: JsonRecord, key: string): string | undefined {
  const value = Object.hasOwn(record, key) ? record[key] : undefined;
  return typeof value === 'string' && CURRENCY_CODE.test(value) ? value : undefined;
}

/** The provider's digits, untouched; a JSON number only as JavaScript prints it back. */
function decimalText(value: unknown): string | undefined {
  if (typeof value === 'string') return DECIMAL.test(value) ? value : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

function valueFacts(
  key: string,
  path: string,
  value: unknown,
  depth: number,
  walk: Walk,
  kind: SensitiveKind | undefined,
): Fact[] {
  if (Array.isArray(value)) return [arrayFact(path, value, depth, kind)];
  if (isRecord(value)) return objectFacts(key, path, value, depth, walk, kind);
  const text = scalarText(value);
  return text === undefined ? [] : [{ path, text: scalarValue(key, text, kind), amount: false }];
}

function objectFacts(
  key: string,
  path: string,
  value: JsonRecord,
  depth: number,
  walk: Walk,
  kind: SensitiveKind | undefined,
): Fact[] {
  const entries = Object.entries(value);
  if (entries.length === 0) return [];
  if (concealing(kind) === undefined && AMOUNT_KEY.test(key)) {
    const map = entries.flatMap(([currency, amount]) => {
      const digits = decimalText(amount);
      return digits !== undefined && CURRENCY_MAP_KEY.test(currency)
        ? [readAmountText(digits, currency)]
        : [];
    });
    if (map.length === entries.length) {
      return [{ path, text: joinWithin(map, ', ', ARRAY_TEXT_MAX), amount: true }];
    }
  }
  if (depth >= FLATTEN_DEPTH) {
    return [{ path, text: `(${counted(entries.length, 'nested field')})`, amount: false }];
  }
  const inner = recordFacts(value, walk, `${path}.`, depth + 1, concealing(kind));
  const only = inner.length === 1 ? inner[0] : undefined;
  // `fee: {amount, currency}` reads as one amount: `fee: 1.00 USD`.
  if (only?.amount && PLAIN_AMOUNT_KEYS.has(lastKey(only.path))) return [{ ...only, path }];
  return inner;
}

function arrayFact(
  path: string,
  items: unknown[],
  depth: number,
  kind: SensitiveKind | undefined,
): Fact {
  if (items.length === 0) return { path, text: 'none', amount: false };
  const summaries = items.slice(0, ARRAY_PREVIEW).map((item) => itemSummary(item, depth, kind));
  const shown = summaries.filter((summary) => summary !== undefined);
  if (shown.length === 0) return { path, text: counted(items.length, 'item'), amount: false };
  const more = items.length - summaries.length;
  const amount = shown.every((summary) => summary.amount);
  // `; ` between records summarised by their first field, which may itself hold a comma.
  const separator = !amount && shown.some((summary) => summary.record) ? '; ' : ', ';
  const text = joinWithin(
    shown.map((summary) => summary.text),
    separator,
    ARRAY_TEXT_MAX,
  );
  return {
    path,
    text: more > 0 ? `${text} (+${more} more)` : text,
    amount,
  };
}

/** One array element in a few words: its amounts, else its id or name, else its first field. */
function itemSummary(
  item: unknown,
  depth: number,
  kind: SensitiveKind | undefined,
): { text: string; amount: boolean; record: boolean } | undefined {
  if (Array.isArray(item))
    return { text: counted(item.length, 'item'), amount: false, record: false };
  if (!isRecord(item)) {
    const text = scalarText(item);
    return text === undefined
      ? undefined
      : { text: scalarValue('', text, kind), amount: false, record: false };
  }
  if (depth >= FLATTEN_DEPTH) return { text: '(record)', amount: false, record: true };
  const facts = recordFacts(item, { left: 6, cut: false }, '', depth + 1, concealing(kind));
  const amounts = facts.filter((fact) => fact.amount);
  if (amounts.length > 0) {
    return { text: amounts.map(amountLabel).join(', '), amount: true, record: true };
  }
  const keys = identityKeys(item);
  const named = facts.find((fact) => fact.path === keys.id || fact.path === keys.name);
  const first = named ?? facts[0];
  return first
    ? { text: named ? first.text : factLine(first), amount: false, record: true }
    : undefined;
}

function scalarValue(key: string, text: string, kind: SensitiveKind | undefined): string {
  if (kind === 'banking') return escapeMrkdwn(maskAccount(text));
  // A key, token or password echoed by the provider never reaches a channel.
  if (kind === 'secret') return '[hidden]';
  if (ID_KEY.test(key)) return code(text);
  return dateText(text) ?? inlineText(text);
}

type Concealed = Extract<SensitiveKind, 'banking' | 'secret'>;

/** What a sensitive key passes down to everything inside it; beneficiary identity may be shown. */
function concealing(kind: SensitiveKind | undefined): Concealed | undefined {
  return kind === 'banking' || kind === 'secret' ? kind : undefined;
}

function lastKey(path: string): string {
  return (path.split('.').pop() ?? '').toLowerCase();
}

function inside(path: string, container: string): boolean {
  return path === container || path.startsWith(`${container}.`);
}

function factLine(fact: Fact): string {
  return fact.path === '' ? fact.text : `${inlineText(fact.path, 120)}: ${fact.text}`;
}

/** `1,250.50 USDC`, or `available: 0.10 USD` when the key says more than "amount". */
function amountLabel(fact: Fact): string {
  return PLAIN_AMOUNT_KEYS.has(lastKey(fact.path)) ? fact.text : factLine(fact);
}

/**
 * "Showing N of M" with its cause: Slack's limits cut what was received, or only part of the
 * total was received (`unreceived` says why).
 */
function cutNote(shown: number, received: number, total: number, unreceived: string): string[] {
  if (shown >= total) return [];
  const why = shown < received ? 'the rest did not fit in one Slack message' : unreceived;
  return [`Showing ${shown} of ${total}: ${why}.`];
}
