import type { Reconciliation } from '../../domain/approval.ts';
import type {
  FollowLookError,
  ListExtent,
  ListedRecord,
  ListUnfinished,
  MatchDoubt,
  ReconciliationFinding,
  UnfollowableNext,
} from '../../domain/list-findings.ts';
import { OPERATIONS, type OperationId } from '../../domain/operations.ts';
import { providerErrorText } from './provider-errors.ts';

/**
 * What a read of a list found about a request's record, in a person's words: a check of an
 * unknown outcome (on its card) and a follow-up's look that learnt nothing (in its history).
 */

/** What a check found, or the note of the approver who resolved it by hand. */
export function reconciliationDetailText(reconciliation: Reconciliation): string {
  return reconciliation.finding
    ? reconciliationFindingText(reconciliation.finding)
    : (reconciliation.detail ?? '');
}

export function reconciliationFindingText(finding: ReconciliationFinding): string {
  switch (finding.code) {
    case 'no_list':
      return 'no list shows this operation';
    case 'read_failed':
      return couldNotRead(finding.list, providerErrorText(finding.error));
    case 'not_taken':
      return `${doubtText(finding.doubt, pagesRead(finding.read), finding.read.list)}; check at the provider`;
    case 'not_found':
      return `no record among ${pagesRead(finding.read)} shows it yet; it may still appear — payops checks again`;
    case 'found': {
      const partial =
        finding.partial.length > 0 ? ` (${finding.partial.join(', ')} shown only in part)` : '';
      return `${recordName(finding.record)} in ${pathOf(finding.list)} shows it: it was executed${partial}`;
    }
  }
}

export function followLookErrorText(error: FollowLookError): string {
  switch (error.code) {
    case 'read_failed':
      return couldNotRead(
        error.list,
        error.error ? providerErrorText(error.error) : 'payops failed while reading it',
      );
    case 'look_failed':
      return 'payops failed here';
    case 'partly_read':
      return `not in the part of ${pathOf(error.list)} read: ${unfinishedText(error.unfinished)}`;
    case 'several':
      return `${error.count} records in ${pathOf(error.list)} could be it; payops does not guess`;
    case 'not_taken': {
      const extent = `${error.read.records} records of ${pathOf(error.read.list)} read`;
      return `${doubtText(error.doubt, extent, error.read.list)}; payops does not take it`;
    }
  }
}

/** Why a list was not read to its end. */
export function unfinishedText(unfinished: ListUnfinished): string {
  switch (unfinished.code) {
    case 'page_unread':
      return `page ${unfinished.page} could not be read (${providerErrorText(unfinished.error)})`;
    case 'no_list':
      return `page ${unfinished.page} holds no list payops can read`;
    case 'too_many_records':
      return `payops reads at most ${unfinished.max} records of a list and it holds more`;
    case 'count_mismatch':
      return `the list says it holds ${unfinished.total} records, and its pages showed ${unfinished.seen}`;
    case 'full_page':
      return `page ${unfinished.page} is full (${unfinished.records} records) and says nothing of a next one`;
    case 'unfollowable':
      return `the list goes on and ${unfollowableText(unfinished.next)}`;
    case 'page_repeated':
      return 'the provider pointed to a page already read';
    case 'too_many_pages':
      return `payops reads at most ${unfinished.max} pages and the list goes on`;
  }
}

function unfollowableText(next: UnfollowableNext): string {
  return next.code === 'no_way_to_ask'
    ? 'the list says it has more, but not how to ask for it'
    : `its next page is at another address (${next.path})`;
}

/** Why the records that could be it are not taken; `extent` says what was read of `list`. */
function doubtText(doubt: MatchDoubt, extent: string, list: OperationId): string {
  switch (doubt.code) {
    case 'list_unfinished': {
      // Not seen in part of a list is not "not there", nor is one match proof that no other is.
      const seen =
        doubt.matched === undefined
          ? `no record among ${extent} matches it`
          : `one record (${doubt.matched.id ?? '?'}) matches among ${extent}`;
      return `${seen}, but ${unfinishedText(doubt.unfinished)}`;
    }
    case 'several_match': {
      const ids = doubt.records.map((record) => record.id ?? '?').join(', ');
      return `${doubt.count} records among ${extent} match it equally (${ids})`;
    }
    case 'undated':
      return `${recordName(doubt.record)} in ${pathOf(list)} matches it but shows no creation time, so it may be an earlier payment`;
    case 'created_before':
      return `${recordName(doubt.record)} in ${pathOf(list)} matches it but was created before payops sent it (within the ${doubt.skewMinutes} minutes two clocks may differ by), so it may be an earlier payment`;
  }
}

/** `12 records on 3 pages of /payouts`. */
function pagesRead({ list, records, pages }: ListExtent): string {
  return `${records} records on ${pages} page${pages === 1 ? '' : 's'} of ${pathOf(list)}`;
}

function couldNotRead(list: OperationId, why: string): string {
  return `could not read ${pathOf(list)}: ${why}`;
}

function recordName(record: ListedRecord): string {
  return record.id ?? 'a record';
}

function pathOf(list: OperationId): string {
  return OPERATIONS[list].path;
}
