/**
 * The spec shows no response shapes. These helpers find what a person needs in whatever
 * reasonable shape comes back — a bare array, an array under some key, a record with its
 * identifying fields under common names — and return `undefined` rather than guess.
 */

import type { UnfollowableNext } from '../domain/list-findings.ts';
import { OPERATIONS } from '../domain/operations.ts';
import { scrub } from '../domain/scrub.ts';

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
const SUFFIXED_ID = /(^|_)id$|Id$/;
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

/** Ids of other records a record may name: the catalogue's `*_id` fields and path ids. */
const REFERENCE_ID_KEYS: ReadonlySet<string> = new Set(
  Object.values(OPERATIONS)
    .flatMap((spec) => [...spec.bodyFields, ...spec.pathParams, ...spec.query.map((q) => q.name)])
    .filter((name) => SUFFIXED_ID.test(name))
    .flatMap((name) => [name, snakeCase(name), camelCase(name)])
    .concat(['customer_id', 'customerId']),
);

/**
 * `payout_id`, `transferId`: a record's own id when it has no plain `id` — its only such key,
 * or else the only one that names no other record (`wallet_id` beside `transfer_id` is the
 * transfer's wallet). Several of either kind: no id, rather than another record's.
 */
function suffixedIdKey(record: JsonRecord): string | undefined {
  const keys = Object.keys(record).filter(
    (name) => SUFFIXED_ID.test(name) && scalarText(record[name]) !== undefined,
  );
  if (keys.length === 1) return keys[0];
  const own = keys.filter((name) => !REFERENCE_ID_KEYS.has(name));
  return own.length === 1 ? own[0] : undefined;
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function camelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
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

/** Where the next page of a list is, as far as its reply says. */
export type NextPage =
  /** `stated`: the reply says it is the last page, rather than saying nothing of paging. */
  | { kind: 'end'; stated: boolean }
  /** Query parameters that ask for the next page, sent back as the reply names them. */
  | { kind: 'more'; params: Record<string, string> }
  | { kind: 'unfollowable'; why: UnfollowableNext };

/** Objects a list reply may keep its paging fields in, besides the reply itself. */
const PAGING_PLACES = ['meta', 'pagination', 'paging', 'page_info', 'pageInfo', 'links', '_links'];
const LINK_KEYS = [
  'next',
  'next_url',
  'nextUrl',
  'next_link',
  'nextLink',
  'next_page_url',
  'next_page',
];
/** Opaque cursors, sent back as `cursor`: the name a reply's `next_cursor` implies. */
const CURSOR_KEYS = ['next_cursor', 'nextCursor', 'next', 'cursor'];
const TOKEN_KEYS = ['next_page_token', 'nextPageToken'];
const MORE_KEYS = ['has_more', 'hasMore', 'has_next_page', 'hasNextPage'];
const END_CURSOR_KEYS = ['end_cursor', 'endCursor'];
const PAGE_KEYS = ['page', 'current_page', 'currentPage', 'page_number', 'pageNumber'];
const PAGE_COUNT_KEYS = ['total_pages', 'totalPages', 'last_page', 'lastPage', 'page_count'];

/**
 * The next page of a list, from the usual paging fields of its reply: a next link (only its
 * query is used, and only when it points at the same list), a cursor (`next_cursor` → `cursor`,
 * `next_page_token` → `page_token`), a page number (`page` of `total_pages`, or `next_page`),
 * or `has_more` with the last record's id (`starting_after`). A bare array, or a reply with none
 * of these fields, is the whole list.
 */
export function nextPageOf(body: unknown, items: readonly unknown[], listPath: string): NextPage {
  if (!isRecord(body)) return { kind: 'end', stated: false };
  const places = [body, ...PAGING_PLACES.map((key) => body[key]).filter(isRecord)];
  const first = <T>(find: (place: JsonRecord) => T | undefined): T | undefined => {
    for (const place of places) {
      const found = find(place);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const link = first((place) => nextLink(place, listPath));
  if (link) return link;
  if (first((place) => firstValue(place, MORE_KEYS, (value) => value === false)) !== undefined) {
    return { kind: 'end', stated: true };
  }
  const more = first((place) => firstValue(place, MORE_KEYS, (value) => value === true));
  const cursor =
    first((place) => firstText(place, CURSOR_KEYS)) ??
    (more ? first((place) => firstText(place, END_CURSOR_KEYS)) : undefined);
  if (cursor !== undefined) return { kind: 'more', params: { cursor } };
  const token = first((place) => firstText(place, TOKEN_KEYS));
  if (token !== undefined) return { kind: 'more', params: { page_token: token } };
  const page = first((place) => nextPageNumber(place));
  if (page !== undefined) return { kind: 'more', params: { page: String(page) } };
  if (!more) {
    // A paging field there, though it leads nowhere (a null cursor, the last page of N), says so.
    const paging = [...LINK_KEYS, ...CURSOR_KEYS, ...TOKEN_KEYS, ...PAGE_COUNT_KEYS];
    return {
      kind: 'end',
      stated: places.some((place) => paging.some((key) => Object.hasOwn(place, key))),
    };
  }
  const lastId = recordIdentity(items.at(-1)).id;
  return lastId === undefined
    ? { kind: 'unfollowable', why: { code: 'no_way_to_ask' } }
    : { kind: 'more', params: { starting_after: lastId } };
}

/** A link (`next`, `links.next`, `_links.next.href`…) to the next page of the same list. */
function nextLink(place: JsonRecord, listPath: string): NextPage | undefined {
  for (const key of LINK_KEYS) {
    const value = place[key];
    const text = scalarText(isRecord(value) ? value.href : value);
    if (text === undefined || !/^(https?:\/\/|\/|\?)/i.test(text)) continue;
    const url = new URL(text, 'http://list.invalid');
    if (!url.pathname.replace(/\/+$/, '').endsWith(listPath)) {
      // Kept with the finding: a provider's path may hold an account number.
      return { kind: 'unfollowable', why: { code: 'other_address', path: scrub(url.pathname) } };
    }
    return { kind: 'more', params: Object.fromEntries(url.searchParams) };
  }
  return undefined;
}

function nextPageNumber(place: JsonRecord): number | undefined {
  const next = firstValue(place, ['next_page', 'nextPage'], isPageNumber);
  if (next !== undefined) return Number(next);
  const page = firstValue(place, PAGE_KEYS, isPageNumber);
  const count = firstValue(place, PAGE_COUNT_KEYS, isPageNumber);
  if (page === undefined || count === undefined || Number(page) >= Number(count)) return undefined;
  return Number(page) + 1;
}

function isPageNumber(value: unknown): boolean {
  const text = scalarText(value);
  return text !== undefined && /^\d{1,6}$/.test(text);
}

function firstText(place: JsonRecord, keys: readonly string[]): string | undefined {
  const value = firstValue(place, keys, (found) => typeof found === 'string' && found !== '');
  return value === undefined ? undefined : String(value);
}

function firstValue(
  place: JsonRecord,
  keys: readonly string[],
  accept: (value: unknown) => boolean,
): unknown {
  const key = keys.find((name) => accept(place[name]));
  return key === undefined ? undefined : place[key];
}
