import type { OperationId } from './operations.ts';
import type { ProviderErrorFacts } from './provider-error.ts';

/**
 * What a read of a list found about a request's record, as data: a reconciliation's finding, a
 * follow-up's look that learnt nothing. Stored with the request; src/slack/text/list-findings.ts
 * words them.
 */

/** How much of a list was read: `records` records on `pages` pages of `list`. */
export interface ListExtent {
  list: OperationId;
  records: number;
  pages: number;
}

/** Why a list was not read to its end. */
export type ListUnfinished =
  /** Page `page` failed (`error`): a later page, since a failed first page fails the read. */
  | { code: 'page_unread'; page: number; error: ProviderErrorFacts }
  | { code: 'no_list'; page: number }
  /** It holds more than the `max` records payops keeps of one list. */
  | { code: 'too_many_records'; max: number }
  /** It announced `total` records; its pages showed `seen`. */
  | { code: 'count_mismatch'; total: number; seen: number }
  /** Page `page` came back full (`records`) and said nothing of a next one. */
  | { code: 'full_page'; page: number; records: number }
  | { code: 'unfollowable'; next: UnfollowableNext }
  | { code: 'page_repeated' }
  /** It goes on past the `max` pages payops reads. */
  | { code: 'too_many_pages'; max: number };

/** Why a list that goes on cannot be followed to its next page. */
export type UnfollowableNext =
  /** It says it has more, but not how to ask for it. */
  | { code: 'no_way_to_ask' }
  /** Its next page is at another address (`path`). */
  | { code: 'other_address'; path: string };

/** A listed record, by the provider's id when it shows one. */
export interface ListedRecord {
  id?: string | undefined;
}

/** Why the records that could be a request's effect are not taken for it. */
export type MatchDoubt =
  /** Part of the list was read: `matched`, the one record that matched in it, if one did. */
  | { code: 'list_unfinished'; matched?: ListedRecord | undefined; unfinished: ListUnfinished }
  /** `count` records match equally: `records`, up to five of them. */
  | { code: 'several_match'; count: number; records: ListedRecord[] }
  /** The one record that matches shows no creation time. */
  | { code: 'undated'; record: ListedRecord }
  /** The one record that matches was created up to `skewMinutes` before the call. */
  | { code: 'created_before'; record: ListedRecord; skewMinutes: number };

/** What a check of an unknown outcome found (`Reconciliation.finding`). */
export type ReconciliationFinding =
  /** No list shows the operation's effect. */
  | { code: 'no_list' }
  | { code: 'read_failed'; list: OperationId; error: ProviderErrorFacts }
  | { code: 'not_taken'; read: ListExtent; doubt: MatchDoubt }
  | { code: 'not_found'; read: ListExtent }
  /** `record` in `list` shows it; `partial`, the request's fields it shows only in part. */
  | { code: 'found'; list: OperationId; record: ListedRecord; partial: string[] };

/** Why a follow-up's look learnt nothing (`ProviderFollow.lastError`). */
export type FollowLookError =
  /** The read of `list` failed: the provider's `error`, or none when payops failed to ask. */
  | { code: 'read_failed'; list: OperationId; error?: ProviderErrorFacts | undefined }
  /** payops failed looking for this one record in a list it read. */
  | { code: 'look_failed' }
  /** Not in the part of `list` read. */
  | { code: 'partly_read'; list: OperationId; unfinished: ListUnfinished }
  /** `count` records of `list` could be it. */
  | { code: 'several'; list: OperationId; count: number }
  | { code: 'not_taken'; read: ListExtent; doubt: MatchDoubt };
