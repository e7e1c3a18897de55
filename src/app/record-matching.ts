import { fieldsOf, type PaymentRequest } from '../domain/approval.ts';
import { compareDecimal, readAmount } from '../domain/decimal.ts';
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

/** Quartz clocks drift about a second a day unsynced: two minutes covers weeks of it, no more. */
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
  unfinished: string | undefined;
}

export type RecordMatch =
  | { kind: 'found'; match: MatchCandidate; weaker: MatchCandidate[] }
  /** Several records match equally, or the one that matches may be older than the call. */
  | { kind: 'ambiguous'; candidates: MatchCandidate[] }
  /** Matches in part of a list are not all its matches: nothing is taken. */
  | { kind: 'unfinished'; candidates: MatchCandidate[]; unfinished: string }
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

/**
 * Why `matched` is not taken as the request's record, in a person's words; `extent` says what
 * was read, `where` names the list.
 */
export function whyNotTaken(
  matched: Extract<RecordMatch, { kind: 'ambiguous' | 'unfinished' }>,
  extent: string,
  where: string,
): string {
  const { candidates } = matched;
  const [only] = candidates;
  if (matched.kind === 'unfinished') {
    // Not seen in part of a list is not "not there", nor is one match proof that no other is.
    const seen =
      only === undefined
        ? `no record among ${extent} matches it`
        : `one record (${idsOf(candidates)}) matches among ${extent}`;
    return `${seen}, but ${matched.unfinished}`;
  }
  if (candidates.length > 1 || only === undefined) {
    return `${candidates.length} records among ${extent} match it equally (${idsOf(candidates)})`;
  }
  const which = `${only.id ?? 'a record'} in ${where} matches it`;
  return only.timing === 'undated'
    ? `${which} but shows no creation time, so it may be an earlier payment`
    : `${which} but was created before payops sent it (within the ${CLOCK_SKEW_MS / 60_000} minutes two clocks may differ by), so it may be an earlier payment`;
}

/** Ids of up to five candidates, for a message. */
export function idsOf(candidates: readonly MatchCandidate[]): string {
  return candidates
    .slice(0, 5)
    .map((candidate) => candidate.id ?? '?')
    .join(', ');
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
  const created = createdTime(record);
  if (created !== undefined && created < sentAt - CLOCK_SKEW_MS) return undefined;
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
  const timing: Timing =
    created === undefined ? 'undated' : created >= sentAt ? 'after_sending' : 'near_sending';
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

type FieldKind = 'amount' | 'account' | 'routing' | 'address' | 'recipient' | 'text';
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

/**
 * Names (lowercase, letters and digits only) a record may show a field under. A nested field is
 * named by its parent and its own key (`destination.account` → `destinationaccount`), and by
 * its own key alone under a parent that describes the destination (`bank_account.last4`).
 * Bare `account` or `address` is not among them: it may be the record's own, not the payee's.
 */
const NAMES_OF_KIND: Readonly<Record<Exclude<FieldKind, 'text'>, readonly string[]>> = {
  amount: ['amount', 'amountvalue', 'sourceamount'],
  account: [
    'accountnumber',
    'accountno',
    'beneficiaryaccount',
    'beneficiaryaccountnumber',
    'destinationaccount',
    'destinationaccountnumber',
    'recipientaccount',
    'recipientaccountnumber',
    'bankaccountnumber',
    'maskedaccount',
    'maskedaccountnumber',
    'accountlast4',
    'accountnumberlast4',
    'last4',
  ],
  routing: ['routingnumber', 'beneficiaryrouting', 'beneficiaryroutingnumber', 'routing', 'aba'],
  address: [
    'destinationaddress',
    'toaddress',
    'recipientaddress',
    'beneficiaryaddress',
    'walletaddress',
  ],
  recipient: [
    'externalaccountid',
    'externalaccount',
    'recipientid',
    'beneficiaryid',
    'destinationid',
    'payeeid',
  ],
};

const EXTRA_NAMES: Readonly<Record<string, readonly string[]>> = {
  wallet_id: ['sourcewalletid'],
  beneficiary_name: ['recipientname'],
  currency: ['amountcurrency'],
};

/** Parents whose keys describe the destination or the amount, never the source. */
const DESTINATION_PARENTS = new Set([
  'destination',
  'beneficiary',
  'recipient',
  'payee',
  'to',
  'counterparty',
  'externalaccount',
  'bankaccount',
  'bankdetails',
  'account',
  'amount',
  'money',
]);
const MAX_DEPTH = 3;

function compact(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function namesOf(field: string): readonly string[] {
  const kind = kindOf(field);
  const byKind = kind === 'text' ? [compact(field)] : NAMES_OF_KIND[kind];
  return [...byKind, ...(EXTRA_NAMES[field] ?? [])];
}

interface Shown {
  /** Top-level keys, and nested ones named with their parent (`destinationaccount`). */
  named: Map<string, string[]>;
  /** Keys under a parent that describes the destination, by their own name (`last4`). */
  underDestination: Map<string, string[]>;
}

/** Every scalar of the record, under each name it may be shown by. */
function shownValues(record: JsonRecord): Shown {
  const shown: Shown = { named: new Map(), underDestination: new Map() };
  const add = (map: Map<string, string[]>, name: string, value: string) =>
    map.set(name, [...(map.get(name) ?? []), value]);
  const walk = (object: JsonRecord, parent: string | undefined, depth: number) => {
    for (const [key, value] of Object.entries(object)) {
      const name = compact(key);
      if (isRecord(value)) {
        const describes = parent === undefined || DESTINATION_PARENTS.has(parent);
        if (describes && depth < MAX_DEPTH) walk(value, name, depth + 1);
        continue;
      }
      const text = scalarText(value);
      if (text === undefined) continue;
      add(shown.named, (parent ?? '') + name, text);
      if (parent !== undefined && DESTINATION_PARENTS.has(parent)) {
        add(shown.underDestination, name, text);
      }
    }
  };
  walk(record, undefined, 1);
  return shown;
}

/**
 * The values a record shows for a field. A plain field (a currency, a name) is looked up by its
 * full name only: `destination.currency` may be another currency than the one debited.
 */
function valuesOf(shown: Shown, field: string): string[] {
  const plain = kindOf(field) === 'text';
  return namesOf(field).flatMap((name) => [
    ...(shown.named.get(name) ?? []),
    ...(plain ? [] : (shown.underDestination.get(name) ?? [])),
  ]);
}

interface Compared {
  strength: number;
  amountShown: boolean;
  destinationShown: boolean;
  partial: string[];
}

/** How the record shows the request's fields, or undefined when any shown value disagrees. */
function compareFields(record: JsonRecord, fields: [string, string][]): Compared | undefined {
  const shown = shownValues(record);
  const compared: Compared = {
    strength: 0,
    amountShown: false,
    destinationShown: false,
    partial: [],
  };
  for (const [field, requested] of fields) {
    const kind = kindOf(field);
    const values = valuesOf(shown, field);
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
/** `••••6789`, `****6789`, `XXXX6789`, `0x12…cdef`, `0x12...cdef`. */
const NUMBER_MASK = /[•*·…#xX]+|\.{2,}/;
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
    case 'routing':
      return partlyShown(digitsOf(shown), digitsOf(requested), NUMBER_MASK, true);
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

/** Spaces and dashes dropped, letters (of an IBAN) in one case. */
function digitsOf(text: string): string {
  return text.replace(/[\s-]/g, '').toUpperCase();
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
  if (!isRecord(record)) return undefined;
  for (const key of CREATED_KEYS) {
    const text = scalarText(record[key]);
    if (text === undefined) continue;
    // Epoch seconds (`1718000000`) or milliseconds; else an ISO date-time.
    const time = /^\d{9,13}$/.test(text)
      ? Number(text) * (text.length <= 10 ? 1000 : 1)
      : Date.parse(text);
    if (!Number.isNaN(time)) return time;
  }
  return undefined;
}
