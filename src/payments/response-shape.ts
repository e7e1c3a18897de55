/**
 * The spec shows no response shapes. These helpers find what a person needs in whatever
 * reasonable shape comes back — a bare array, an array under some key, a record with its
 * identifying fields under common names — and return `undefined` rather than guess.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keys most APIs hold a list under, tried before any other array-valued key. */
const LIST_KEYS = ['data', 'items', 'results', 'records', 'entries', 'list'];
const TOTAL_KEYS = ['total', 'total_count', 'totalCount', 'count'];

export interface FoundList {
  items: unknown[];
  /** Where the list was found: `''` for a bare array, else the key path, e.g. `data.items`. */
  at: string;
  /** A total announced by the provider, when it sent one (the list may be one page of it). */
  total: number | undefined;
}

export function findList(body: unknown): FoundList | undefined {
  return findListAt(body, '', 0);
}

function findListAt(body: unknown, at: string, depth: number): FoundList | undefined {
  if (Array.isArray(body)) return { items: body, at, total: undefined };
  if (!isRecord(body) || depth > 2) return undefined;
  const keys = [
    ...LIST_KEYS.filter((key) => key in body),
    ...Object.keys(body).filter((key) => !LIST_KEYS.includes(key)),
  ];
  for (const key of keys) {
    if (Array.isArray(body[key])) {
      return { items: body[key], at: at ? `${at}.${key}` : key, total: totalOf(body) };
    }
  }
  for (const key of keys) {
    const nested = findListAt(body[key], at ? `${at}.${key}` : key, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

function totalOf(body: JsonRecord): number | undefined {
  for (const key of TOTAL_KEYS) {
    const value = body[key];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  }
  return undefined;
}

/** A record inside a possible envelope: `{data: {...}}` or the object itself. */
export function findRecord(body: unknown): JsonRecord | undefined {
  if (!isRecord(body)) return undefined;
  for (const key of ['data', 'result', 'item']) {
    if (isRecord(body[key])) return body[key];
  }
  return body;
}

export interface RecordIdentity {
  id: string | undefined;
  name: string | undefined;
  status: string | undefined;
  createdAt: string | undefined;
}

const ID_KEYS = ['id', 'uuid', 'reference', 'ref'];
const NAME_KEYS = ['name', 'label', 'business_name', 'account_owner_name', 'chain', 'title'];
const STATUS_KEYS = ['status', 'state'];
const CREATED_KEYS = ['created_at', 'createdAt', 'created', 'timestamp', 'date', 'updated_at'];

/** The fields that identify a record, found under their common names. */
export function recordIdentity(record: unknown): RecordIdentity {
  if (!isRecord(record)) {
    return { id: undefined, name: undefined, status: undefined, createdAt: undefined };
  }
  const keys = identityKeys(record);
  const at = (key: string | undefined) => (key === undefined ? undefined : scalarText(record[key]));
  return {
    id: at(keys.id),
    name: at(keys.name),
    status: at(keys.status),
    createdAt: at(keys.createdAt),
  };
}

/**
 * The keys `recordIdentity` found its fields under, for a display that shows them first and
 * must not repeat them among the rest.
 */
export function identityKeys(record: JsonRecord): Record<keyof RecordIdentity, string | undefined> {
  return {
    id: firstScalarKey(record, ID_KEYS) ?? suffixedIdKey(record),
    name: firstScalarKey(record, NAME_KEYS),
    status: firstScalarKey(record, STATUS_KEYS),
    createdAt: firstScalarKey(record, CREATED_KEYS),
  };
}

/** `payout_id`, `transferId`: a record's own id when it has no plain `id`. */
function suffixedIdKey(record: JsonRecord): string | undefined {
  const key = Object.keys(record).find((name) => /(^|_)id$|Id$/.test(name));
  return key !== undefined && scalarText(record[key]) !== undefined ? key : undefined;
}

function firstScalarKey(record: JsonRecord, keys: string[]): string | undefined {
  return keys.find((key) => Object.hasOwn(record, key) && scalarText(record[key]) !== undefined);
}

/** Strings as they are; numbers as the provider wrote them after JSON parsing. */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
