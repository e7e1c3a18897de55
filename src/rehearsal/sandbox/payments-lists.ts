/**
 * How the sandbox's lists show their records and pages. By default a list is one page of records
 * as they were sent; a `ListView` makes it answer as a real provider might (the spec shows
 * neither response shapes nor paging): pages behind a cursor, a link, a page number or
 * `has_more`, banking numbers masked or cut to their last four digits, amounts in another form,
 * fields under other names.
 */
import { plainDecimal } from '../../domain/decimal.ts';
import { maskAccount } from '../../domain/masking.ts';
import { SandboxError } from './payments-errors.ts';

export type PagingStyle = 'cursor' | 'link' | 'next_url' | 'page' | 'has_more';

export interface ListView {
  /** Records per page; without it every list is one page. */
  pageSize?: number;
  /**
   * How a reply points to its next page (default 'cursor'): `next_cursor` (sent back as
   * `?cursor=`), `links.next` (a URL), `next` (a URL asking `?page=`, the records under
   * `results` beside `count` and `previous`), `page` of `total_pages` (`?page=`), or `has_more`
   * (`?starting_after=` the last id).
   */
  paging?: PagingStyle;
  /** Payouts, transfers and deposits: newest first (default) or oldest first. */
  order?: 'newest_first' | 'oldest_first';
  /**
   * Account and routing numbers: whole (default), masked (`••••6789`), the account as
   * `account_last4: "6789"` only (routing left out), or left out.
   */
  bankingNumbers?: 'whole' | 'masked' | 'last4' | 'hidden';
  /** Amounts in their shortest form: `33.3` for `33.30`. */
  shortAmounts?: boolean;
  /** Names shown instead of the sandbox's own, e.g. `{ beneficiary_account: 'accountNumber' }`. */
  renames?: Readonly<Record<string, string>>;
}

/** The query parameter a paging style asks for its next page with. */
const PAGING_PARAMETER: Readonly<Record<PagingStyle, string>> = {
  cursor: 'cursor',
  link: 'cursor',
  next_url: 'page',
  page: 'page',
  has_more: 'starting_after',
};

export function checkedListView(view: ListView): ListView {
  const { pageSize } = view;
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize > 0)) {
    throw new RangeError('listView.pageSize must be a positive integer');
  }
  return { ...view, renames: { ...view.renames } };
}

/** The paging parameter a list accepts under this view, if it pages. */
export function pagingParameter(view: ListView): string | undefined {
  return view.pageSize === undefined ? undefined : PAGING_PARAMETER[view.paging ?? 'cursor'];
}

export interface ListRequest {
  view: ListView;
  query: ReadonlyMap<string, string>;
  /** The list's URL without its query, for `links.next`. */
  self: string;
}

const ACCOUNT_FIELDS = ['account_number', 'beneficiary_account'];
const ROUTING_FIELDS = ['routing_number', 'beneficiary_routing'];

/**
 * One page of `items` as the view shows it, wrapped as `{ "data": [...] }` (`results` under
 * `next_url` paging) with its paging.
 */
export function listBody(items: readonly unknown[], request: ListRequest, limit?: number): unknown {
  const { view } = request;
  const size = Math.min(
    view.pageSize ?? Number.POSITIVE_INFINITY,
    limit ?? Number.POSITIVE_INFINITY,
  );
  if (view.pageSize === undefined)
    return { data: items.slice(0, limit).map((item) => shown(item, view)) };
  const start = pageStart(items, request, size);
  const data = items.slice(start, start + size).map((item) => shown(item, view));
  const end = start + size;
  const more = end < items.length;
  const cursor = more ? encodeCursor(end) : null;
  switch (view.paging ?? 'cursor') {
    case 'cursor':
      return { data, next_cursor: cursor };
    case 'link': {
      const next = new URLSearchParams(request.query as Map<string, string>);
      if (cursor) next.set('cursor', cursor);
      return { data, links: { next: cursor ? `${request.self}?${next}` : null } };
    }
    case 'next_url': {
      const page = (number: number) => {
        const query = new URLSearchParams(request.query as Map<string, string>);
        query.set('page', String(number));
        return `${request.self}?${query}`;
      };
      const current = start / size + 1;
      return {
        count: items.length,
        next: more ? page(current + 1) : null,
        previous: current > 1 ? page(current - 1) : null,
        results: data,
      };
    }
    case 'page':
      return {
        data,
        page: start / size + 1,
        total_pages: Math.max(1, Math.ceil(items.length / size)),
      };
    case 'has_more':
      return { data, has_more: more };
  }
}

function pageStart(items: readonly unknown[], { view, query }: ListRequest, size: number): number {
  const name = pagingParameter(view) ?? '';
  const value = query.get(name);
  if (value === undefined) return 0;
  const invalid = () =>
    new SandboxError(400, 'INVALID_QUERY_PARAMETER', `${name} does not name a page of this list`);
  switch (name) {
    case 'cursor': {
      const offset = decodeCursor(value);
      if (offset === undefined) throw invalid();
      return offset;
    }
    case 'page': {
      if (!/^[1-9]\d{0,5}$/.test(value)) throw invalid();
      return (Number(value) - 1) * size;
    }
    default: {
      const index = items.findIndex((item) => idOf(item) === value);
      if (index === -1) throw invalid();
      return index + 1;
    }
  }
}

/** Opaque to clients, as a provider's cursor is. */
function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  const match = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? Number(match[1]) : undefined;
}

function idOf(item: unknown): unknown {
  return typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
}

/** A record as the view shows it: numbers masked, cut or left out, amounts shortened, renamed. */
function shown(item: unknown, view: ListView): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const record: Record<string, unknown> = { ...item };
  const numbers = view.bankingNumbers ?? 'whole';
  for (const field of [...ACCOUNT_FIELDS, ...ROUTING_FIELDS]) {
    const value = record[field];
    if (value === undefined || numbers === 'whole') continue;
    if (numbers === 'masked') {
      record[field] = maskAccount(value);
      continue;
    }
    delete record[field];
    if (numbers === 'last4' && ACCOUNT_FIELDS.includes(field)) {
      record.account_last4 = String(value).slice(-4);
    }
  }
  if (view.shortAmounts && typeof record.amount === 'string') {
    record.amount = plainDecimal(record.amount) ?? record.amount;
  }
  for (const [from, to] of Object.entries(view.renames ?? {})) {
    if (!(from in record)) continue;
    record[to] = record[from];
    delete record[from];
  }
  return record;
}
