import { fieldsOf, type PaymentRequest } from '../domain/approval.ts';
import { compareDecimal, readAmount } from '../domain/decimal.ts';
import type { ListedRecord, ListUnfinished, MatchDoubt } from '../domain/list-findings.ts';
import { OPERATIONS, type OperationSpec } from '../domain/operations.ts';
import {
  isRecord,
  type JsonRecord,
  recordIdentity,
  scalarText,
} from '../payments/response-shape.ts';

/**
 * Which listed record is a request's effect, judged as a provider shows records: an account as
 * its last four digits or under another name, an amount as `33.3` for `33.30`, some fields not
 * at all. Reconciliation and the following of submitted writes both decide with this, under the
 * same guards: a record is taken only when nothing else could be it.
 */

/** An unsynced quartz clock drifts about a second a day: two minutes covers months of it. */
export const CLOCK_SKEW_MS = 2 * 60_000;

/** When a record was created, next to when the request's call went out. */
export type Timing =
  /** Created after the call: it can be its effect. */
  | 'after_sending'
  /** Created up to `CLOCK_SKEW_MS` before the call: its effect under another clock, or earlier. */
  | 'near_sending'
  /** It shows no creation time: being newer than the call is assumed, not seen. */
  | 'undated';

export interface MatchCandidate {
  record: JsonRecord;
  id: string | undefined;
  status: string | undefined;
  /**
   * How much of the request the record shows: 2 per field shown whole and equal, 1 per field
   * shown in part (masked, last digits, abbreviated), 1 for a creation time. Records of equal
   * strength cannot be told apart.
   */
  strength: number;
  timing: Timing;
  /** Request fields the record shows only in part. */
  partial: string[];
}

/** A list as it was read: its records, and why it was not read to its end, if it was not. */
export interface ListSeen {
  records: readonly unknown[];
  unfinished: ListUnfinished | undefined;
}

export type RecordMatch =
  | { kind: 'found'; match: MatchCandidate; weaker: MatchCandidate[] }
  /** Several records match equally, or the one that matches may be older than the call. */
  | { kind: 'ambiguous'; candidates: MatchCandidate[] }
  /** Matches in part of a list are not all its matches: nothing is taken. */
  | { kind: 'unfinished'; candidates: MatchCandidate[]; unfinished: ListUnfinished }
  | { kind: 'none' };

/** What a match needs of its request. */
export type MatchedRequest = Pick<
  PaymentRequest,
  'operationId' | 'path' | 'body' | 'approvals' | 'createdAt' | 'sentAt'
>;

/**
 * A record is the request's effect when it shows the amount (if the request has one) and
 * something that identifies the destination (if the request names one), every request field it
 * shows agrees, and no other record matches as strongly. A new record must also have been
 * created after the request's call (`sentAt`; the approval for a request stored without it),
 * and carry no id in `attributedElsewhere` (another request's record, by its write's answer or
 * an earlier match). A write on an existing record (path ids) matches that record by id, in the
 * state the request asked for. `found` needs, besides, the whole list read and a creation time
 * after the call: anything less is `ambiguous` or `unfinished`, never a guess.
 */
export function matchRecords(
  request: MatchedRequest,
  list: ListSeen,
  attributedElsewhere: ReadonlySet<string>,
): RecordMatch {
  const sentAt = Date.parse(request.sentAt ?? request.approvals.at(-1)?.at ?? request.createdAt);
  const spec: OperationSpec = OPERATIONS[request.operationId];
  const fields = Object.entries(fieldsOf(request));
  const pathIds = Object.values(request.path);
  const candidates = list.records.flatMap((record) => {
    if (!isRecord(record)) return [];
    const candidate =
      pathIds.length > 0
        ? existingRecordMatch(record, pathIds, fields, spec)
        : newRecordMatch(record, fields, sentAt, attributedElsewhere);
    return candidate ? [candidate] : [];
  });
  const strongest = Math.max(...candidates.map((candidate) => candidate.strength));
  const best = candidates.filter((candidate) => candidate.strength === strongest);
  const [match] = best;
  if (best.length > 1) return { kind: 'ambiguous', candidates: best };
  if (list.unfinished !== undefined) {
    return { kind: 'unfinished', candidates: best, unfinished: list.unfinished };
  }
  if (match === undefined) return { kind: 'none' };
  if (match.timing !== 'after_sending') return { kind: 'ambiguous', candidates: best };
  return { kind: 'found', match, weaker: candidates.filter((candidate) => candidate !== match) };
}

/** Why `matched` is not taken as the request's record. */
export function doubtOf(
  matched: Extract<RecordMatch, { kind: 'ambiguous' | 'unfinished' }>,
): MatchDoubt {
  const { candidates } = matched;
  const [only] = candidates;
  if (matched.kind === 'unfinished') {
    // Not seen in part of a list is not "not there", nor is one match proof that no other is.
    return {
      code: 'list_unfinished',
      matched: only && listedRecord(only),
      unfinished: matched.unfinished,
    };
  }
  if (candidates.length > 1 || only === undefined) {
    return {
      code: 'several_match',
      count: candidates.length,
      records: candidates.slice(0, 5).map(listedRecord),
    };
  }
  return only.timing === 'undated'
    ? { code: 'undated', record: listedRecord(only) }
    : { code: 'created_before', record: listedRecord(only), skewMinutes: CLOCK_SKEW_MS / 60_000 };
}

/** A candidate as a finding names it. */
export function listedRecord({ id }: MatchCandidate): ListedRecord {
  return id === undefined ? {} : { id };
}

/** The ids a list shows its records by, to ask which are other requests' records. */
export function listedIds(records: readonly unknown[]): string[] {
  return records.flatMap((record) => recordIdentity(record).id ?? []);
}

/** Which of `ids` are the records of requests other than `requestId` (the request store's answer). */
export type AttributedElsewhere = (
  requestId: number,
  ids: readonly string[],
) => Promise<ReadonlySet<string>>;

/** Words a provider may use for a record switched off, and on. */
const INACTIVE = /^(inactive|deactivated|disabled|closed)$/i;
const ACTIVE = /^(active|enabled|reactivated|open)$/i;

function existingRecordMatch(
  record: JsonRecord,
  pathIds: string[],
  fields: [string, string][],
  spec: OperationSpec,
): MatchCandidate | undefined {
  const identity = recordIdentity(record);
  if (!pathIds.includes(identity.id ?? '')) return undefined;
  const status = identity.status ?? '';
  if (spec.path.endsWith('/deactivate') && !INACTIVE.test(status)) return undefined;
  if (spec.path.endsWith('/reactivate') && !ACTIVE.test(status)) return undefined;
  const compared = compareFields(record, fields);
  if (compared === undefined) return undefined;
  if (fields.length > 0 && compared.strength === 0) return undefined;
  // The record existed before the call: only its state shows the write, whenever made.
  return candidateOf(record, compared, 'after_sending');
}

function newRecordMatch(
  record: JsonRecord,
  fields: [string, string][],
  sentAt: number,
  attributedElsewhere: ReadonlySet<string>,
): MatchCandidate | undefined {
  const created = createdStamp(record);
  if (created !== undefined && created.at < sentAt - CLOCK_SKEW_MS) return undefined;
  const { id } = recordIdentity(record);
  if (id !== undefined && attributedElsewhere.has(id)) return undefined;
  const compared = compareFields(record, fields);
  if (compared === undefined) return undefined;
  const kinds = new Set(fields.map(([field]) => kindOf(field)));
  if (kinds.has('amount') && !compared.amountShown) return undefined;
  if (DESTINATION_KINDS.some((kind) => kinds.has(kind)) && !compared.destinationShown) {
    return undefined;
  }
  if (compared.strength === 0) return undefined;
  // A time to the second stands for any moment of it: the call's own second counts as after it.
  const timing: Timing =
    created === undefined
      ? 'undated'
      : created.at + created.resolution > sentAt
        ? 'after_sending'
        : 'near_sending';
  return candidateOf(record, compared, timing);
}

function candidateOf(record: JsonRecord, compared: Compared, timing: Timing): MatchCandidate {
  const identity = recordIdentity(record);
  return {
    record,
    id: identity.id,
    status: identity.status,
    strength: compared.strength + (timing === 'undated' ? 0 : 1),
    timing,
    partial: compared.partial,
  };
}

// ——— the fields a record shows ———

type FieldKind = 'amount' | IdentifierKind | 'text';
/** What identifies where money goes, recognised by what its name is made of. */
type IdentifierKind = 'account' | 'routing' | 'address' | 'recipient';
const DESTINATION_KINDS: readonly FieldKind[] = ['account', 'address', 'recipient'];

const KIND_OF_FIELD: Readonly<Record<string, FieldKind>> = {
  amount: 'amount',
  beneficiary_account: 'account',
  account_number: 'account',
  beneficiary_routing: 'routing',
  routing_number: 'routing',
  destination_address: 'address',
  external_account_id: 'recipient',
};

function kindOf(field: string): FieldKind {
  return KIND_OF_FIELD[field] ?? 'text';
}

function isIdentifier(kind: FieldKind): kind is IdentifierKind {
  return kind !== 'amount' && kind !== 'text';
}

/** Names (lowercase, letters and digits only) a record may show an amount or a plain field under. */
const AMOUNT_NAMES = ['amount', 'amountvalue', 'sourceamount'];
const EXTRA_NAMES: Readonly<Record<string, readonly string[]>> = {
  wallet_id: ['sourcewalletid'],
  beneficiary_name: ['recipientname'],
  currency: ['amountcurrency'],
};

/** Parents whose keys describe the amount: `amount.value`, `money.currency`. */
const AMOUNT_PARENTS = new Set(['amount', 'money']);
const MAX_DEPTH = 4;

function compact(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** `converted`: the record shows a source amount in another currency than the request's. */
function namesOf(field: string, converted: boolean): readonly string[] {
  const amountNames = converted
    ? AMOUNT_NAMES.filter((name) => name !== 'sourceamount')
    : AMOUNT_NAMES;
  const byKind = kindOf(field) === 'amount' ? amountNames : [compact(field)];
  return [...byKind, ...(EXTRA_NAMES[field] ?? [])];
}

// ——— names by what they are made of ———

/** Words naming the side money goes to. */
const DESTINATION_WORDS: ReadonlySet<string> = new Set([
  'destination',
  'beneficiary',
  'recipient',
  'payee',
  'to',
  'counterparty',
  'creditor',
  'receiver',
  'receiving',
  'target',
  'bank',
  'external',
]);
/** Those of them whose `id` is the destination's own id (a bank's id is not a recipient's). */
const RECIPIENT_WORDS: ReadonlySet<string> = new Set([
  'destination',
  'beneficiary',
  'recipient',
  'payee',
  'counterparty',
  'creditor',
  'receiver',
  'external',
]);
/** Words naming the side money comes from: nothing under them is the destination's. */
const SOURCE_WORDS: ReadonlySet<string> = new Set([
  'source',
  'from',
  'sender',
  'payer',
  'origin',
  'originator',
  'originating',
  'debtor',
  'funding',
  'debit',
]);
/** Words saying a value is shown only in part. */
const MASK_WORDS: ReadonlySet<string> = new Set([
  'masked',
  'mask',
  'last',
  'four',
  '4',
  'digits',
  'suffix',
  'tail',
  'ending',
  'hint',
  'redacted',
  'truncated',
  'partial',
  'obfuscated',
  'hidden',
  'display',
  'preview',
]);
/** `number` beside an account or a routing number says nothing more: `account_no`, `routing_number`. */
const NUMBER = 'number';
const ABBREVIATIONS: Readonly<Record<string, readonly string[]>> = {
  acct: ['account'],
  acc: ['account'],
  accnt: ['account'],
  acnt: ['account'],
  iban: ['account', NUMBER],
  no: [NUMBER],
  num: [NUMBER],
  nbr: [NUMBER],
  nr: [NUMBER],
  addr: ['address'],
  aba: ['routing'],
  rtn: ['routing'],
  rtg: ['routing'],
  bene: ['beneficiary'],
  benef: ['beneficiary'],
  bnf: ['beneficiary'],
  dest: ['destination'],
  dst: ['destination'],
  recip: ['recipient'],
  rcpt: ['recipient'],
  cpty: ['counterparty'],
  ext: ['external'],
};

/** A key's words, abbreviations spelt out: `payeeAcctLast4` → payee, account, last, 4. */
function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)|(\d)([A-Za-z])/g, '$1$3 $2$4')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
    .flatMap((word) => ABBREVIATIONS[word] ?? [word]);
}

const namesSource = (words: readonly string[]) =>
  words.some((word) => SOURCE_WORDS.has(word)) &&
  !words.some((word) => DESTINATION_WORDS.has(word));
const namesDestination = (words: readonly string[]) =>
  !namesSource(words) && words.some((word) => DESTINATION_WORDS.has(word) || word === 'account');

/**
 * Which destination identifier a value shows, by the keys leading to it (outermost first): a
 * request field's own words with any masking or abbreviating affix (`payee_acct_masked`,
 * `account_number_last4`, `iban`), or only an affix (`last_four`, `number`) under parents that
 * all name the destination (`destination`, `beneficiary.bank_account`). Undefined for anything
 * else, under a source, or a bare `account`/`address`/`id` at the top: it may be the record's own.
 */
function identifierKind(path: readonly string[]): IdentifierKind | undefined {
  const segments = path.map(wordsOf);
  const key = segments.at(-1) ?? [];
  const parents = segments.slice(0, -1);
  if (namesSource(key) || !parents.every(namesDestination)) return undefined;
  const named = parents.length > 0 || key.some((word) => DESTINATION_WORDS.has(word));
  const masked = key.some((word) => MASK_WORDS.has(word));
  const core = new Set(
    key.filter((word) => !DESTINATION_WORDS.has(word) && !MASK_WORDS.has(word) && word !== NUMBER),
  );
  const only = (...words: string[]) =>
    core.size === words.length && words.every((word) => core.has(word));
  const ofRecipient = [...key, ...(parents.at(-1) ?? [])].some((word) => RECIPIENT_WORDS.has(word));
  if ((only('id') || only('account', 'id')) && ofRecipient) return 'recipient';
  if (only('account') && key.includes('external')) return 'recipient';
  if (only('routing')) return 'routing';
  if (only('address')) return named ? 'address' : undefined;
  const qualified = masked || key.includes(NUMBER);
  if (only('account')) return named || qualified ? 'account' : undefined;
  if (core.size === 0) return masked || (named && qualified) ? 'account' : undefined;
  return undefined;
}

/** A scalar the record shows, with the keys leading to it (outermost first). */
interface Leaf {
  path: string[];
  value: string;
}

/**
 * Every scalar of the record: at the top, in the record's objects, and deeper under parents that
 * name the destination or the amount.
 */
function leavesOf(record: JsonRecord): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (object: JsonRecord, path: string[]) => {
    for (const [key, value] of Object.entries(object)) {
      if (isRecord(value)) {
        const parent = path.at(-1);
        const describes =
          parent === undefined ||
          namesDestination(wordsOf(parent)) ||
          AMOUNT_PARENTS.has(compact(parent));
        if (describes && path.length + 1 < MAX_DEPTH) walk(value, [...path, key]);
        continue;
      }
      const text = scalarText(value);
      if (text !== undefined) leaves.push({ path: [...path, key], value: text });
    }
  };
  walk(record, []);
  return leaves;
}

/**
 * The values a record shows for a field. An identifier is recognised by its name's words
 * (`identifierKind`); an amount or a plain field (a currency, a name) by its name, nested under
 * its parent's (`amount.value` → `amountvalue`), an amount also under an amount's or the
 * destination's parent: `destination.currency` may be another currency than the one debited.
 */
function valuesOf(leaves: readonly Leaf[], field: string, converted: boolean): string[] {
  const kind = kindOf(field);
  if (isIdentifier(kind)) {
    return leaves.filter((leaf) => identifierKind(leaf.path) === kind).map((leaf) => leaf.value);
  }
  const names = new Set(namesOf(field, converted));
  return leaves
    .filter(({ path }) => {
      const key = compact(path.at(-1) ?? '');
      const parent = path.at(-2);
      if (names.has(compact(parent ?? '') + key)) return true;
      const underOwnParent =
        parent !== undefined &&
        (namesDestination(wordsOf(parent)) || AMOUNT_PARENTS.has(compact(parent)));
      return kind === 'amount' && underOwnParent && names.has(key);
    })
    .map((leaf) => leaf.value);
}

interface Compared {
  strength: number;
  amountShown: boolean;
  destinationShown: boolean;
  partial: string[];
}

/** How the record shows the request's fields, or undefined when any shown value disagrees. */
function compareFields(record: JsonRecord, fields: [string, string][]): Compared | undefined {
  const leaves = leavesOf(record);
  const converted = paidByConversion(leaves, fields);
  const compared: Compared = {
    strength: 0,
    amountShown: false,
    destinationShown: false,
    partial: [],
  };
  for (const [field, requested] of fields) {
    const kind = kindOf(field);
    const values = valuesOf(leaves, field, converted);
    const agreements = values.map((value) => agreement(kind, value, requested));
    if (agreements.some((found) => found === undefined)) return undefined;
    const best = agreements.reduce<Agreement | undefined>(
      (stronger, found) =>
        stronger === undefined || rank(found) > rank(stronger) ? found : stronger,
      undefined,
    );
    if (best === undefined) continue;
    compared.strength += best.whole ? 2 : 1;
    if (!best.whole) compared.partial.push(field);
    if (kind === 'amount') compared.amountShown = true;
    if (DESTINATION_KINDS.includes(kind) && best.identifies) compared.destinationShown = true;
  }
  return compared;
}

/**
 * The record shows a source currency other than the request's: paid by conversion (USDC for a
 * USD payout), its `source_amount` is what was debited, not the amount requested.
 */
function paidByConversion(leaves: readonly Leaf[], fields: [string, string][]): boolean {
  const requested = new Map(fields);
  const currency = requested.get('currency') ?? requested.get('source_currency');
  const source = leaves.find(({ path }) => compact(path.join('')) === 'sourcecurrency')?.value;
  return (
    currency !== undefined &&
    source !== undefined &&
    source.toUpperCase() !== currency.toUpperCase()
  );
}

// ——— agreement of one shown value with the requested one ———

interface Agreement {
  /** Shown in full, not masked or cut. */
  whole: boolean;
  /** Enough of it shows to tell one destination from another. */
  identifies: boolean;
}

function rank(found: Agreement | undefined): number {
  if (found === undefined) return -1;
  return (found.whole ? 2 : 0) + (found.identifies ? 1 : 0);
}

/** Fewer visible trailing characters than this tell too few destinations apart. */
const MIN_VISIBLE = 4;
/** `0x12…cdef`, `0x12...cdef`, `Jane R•••`. */
const TEXT_MASK = /[•*·…]+|\.{2,}/;

/** The agreement, or undefined when the shown value contradicts the request. */
function agreement(kind: FieldKind, shown: string, requested: string): Agreement | undefined {
  switch (kind) {
    case 'amount': {
      const amount = readAmount(shown);
      const wanted = readAmount(requested);
      if (amount === undefined || wanted === undefined || compareDecimal(amount, wanted) !== 0) {
        return undefined;
      }
      return { whole: true, identifies: true };
    }
    case 'account':
    case 'routing': {
      const number = canonicalNumber(requested);
      return partlyShown(numberAsShown(shown, /[A-Z]/.test(number)), number, HIDDEN, true);
    }
    case 'address': {
      // EVM addresses are case-insensitive (the case is only a checksum); others are not.
      const evm = /^0x/i.test(requested);
      const fold = (text: string) => (evm ? text.toLowerCase() : text).trim();
      return partlyShown(fold(shown), fold(requested), TEXT_MASK, false);
    }
    case 'recipient':
      return shown.trim() === requested.trim() ? { whole: true, identifies: true } : undefined;
    case 'text': {
      const fold = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
      return partlyShown(fold(shown), fold(requested), TEXT_MASK, false);
    }
  }
}

/** A banking number as compared: spaces, dashes, dots and slashes dropped, letters upper case. */
function canonicalNumber(text: string): string {
  return text.replace(/[\s.\-/]/g, '').toUpperCase();
}

/** What stands for a hidden part in `numberAsShown`. */
const HIDDEN_MARK = '•';
const HIDDEN = new RegExp(`${HIDDEN_MARK}+`);

/**
 * A banking number as a record shows it, in one form: its visible characters (digits, and an
 * IBAN's letters but X) kept, one separator between two of them dropped (`0001 2345 6789`,
 * `000-123`), and whatever else hides a part one `•`, whatever its shape: `••••6789`,
 * `****6789`, `XXXX6789`, `XX-6789`, `*6789`, `…6789`, `ending in 6789`.
 */
function numberAsShown(shown: string, letters: boolean): string {
  const chars = [...shown.trim().toUpperCase()];
  const visible = (char: string | undefined) =>
    char !== undefined && (/\d/.test(char) || (letters && /[A-WYZ]/.test(char)));
  let form = '';
  for (const [index, char] of chars.entries()) {
    if (visible(char)) form += char;
    else if (/[\s.\-/]/.test(char) && visible(chars[index - 1]) && visible(chars[index + 1]))
      continue;
    else if (!form.endsWith(HIDDEN_MARK)) form += HIDDEN_MARK;
  }
  return form;
}

/**
 * Whole and equal; or masked, with the visible start and end (and any visible middle, in order)
 * those of the request; or, for a number, its last digits alone (`6789`).
 */
function partlyShown(
  shown: string,
  requested: string,
  mask: RegExp,
  trailingDigitsAlone: boolean,
): Agreement | undefined {
  if (shown === requested) return { whole: true, identifies: true };
  const parts = shown.split(new RegExp(mask.source, 'g'));
  if (parts.length === 1) {
    const alone = trailingDigitsAlone && /^\d+$/.test(shown) && requested.endsWith(shown);
    return alone ? { whole: false, identifies: shown.length >= MIN_VISIBLE } : undefined;
  }
  const head = parts[0] ?? '';
  const tail = parts.at(-1) ?? '';
  if (head.length + tail.length > requested.length) return undefined;
  if (!requested.startsWith(head) || !requested.endsWith(tail)) return undefined;
  let from = head.length;
  for (const middle of parts.slice(1, -1)) {
    const at = requested.indexOf(middle, from);
    if (at === -1 || at + middle.length > requested.length - tail.length) return undefined;
    from = at + middle.length;
  }
  return { whole: false, identifies: tail.length >= MIN_VISIBLE };
}

// ——— creation time ———

const CREATED_KEYS = [
  'created_at',
  'createdAt',
  'created',
  'creation_time',
  'inserted_at',
  'submitted_at',
  'timestamp',
];

/** When the record was created, in ms, or undefined when it shows no readable time. */
export function createdTime(record: unknown): number | undefined {
  return createdStamp(record)?.at;
}

/**
 * When the record was created, in ms, and how finely its time is shown: 1000 for a time to the
 * second (epoch seconds, or an ISO time without a fraction), which may stand for any moment of
 * that second; 1 otherwise.
 */
function createdStamp(record: unknown): { at: number; resolution: number } | undefined {
  if (!isRecord(record)) return undefined;
  for (const key of CREATED_KEYS) {
    const text = scalarText(record[key]);
    if (text === undefined) continue;
    // Epoch seconds (`1718000000`) or milliseconds; else an ISO date-time.
    if (/^\d{9,13}$/.test(text)) {
      const seconds = text.length <= 10;
      return { at: Number(text) * (seconds ? 1000 : 1), resolution: seconds ? 1000 : 1 };
    }
    const at = Date.parse(text);
    const toTheSecond = /T\d{2}:\d{2}:\d{2}(?![.,]\d)/.test(text);
    if (!Number.isNaN(at)) return { at, resolution: toTheSecond ? 1000 : 1 };
  }
  return undefined;
}
