import { describe, expect, it } from 'vitest';
import type { ListExtent, ListUnfinished } from '../../../src/domain/list-findings.ts';
import {
  followLookErrorText,
  reconciliationDetailText,
  reconciliationFindingText,
  unfinishedText,
} from '../../../src/slack/text/list-findings.ts';

const read: ListExtent = { list: 'listPayouts', records: 12, pages: 3 };
const timeout = { code: 'payments.timeout' } as const;
const TIMEOUT_WORDS = 'The Payments API did not answer in time. Try again in a moment.';

describe('what a check of an unknown outcome found, in words', () => {
  it('names the record that shows it, and the fields it shows only in part', () => {
    expect(
      reconciliationFindingText({
        code: 'found',
        list: 'listPayouts',
        record: { id: 'po_1' },
        partial: ['beneficiary_account', 'beneficiary_name'],
      }),
    ).toBe(
      'po_1 in /payouts shows it: it was executed (beneficiary_account, beneficiary_name shown only in part)',
    );
    expect(
      reconciliationFindingText({ code: 'found', list: 'listPayouts', record: {}, partial: [] }),
    ).toBe('a record in /payouts shows it: it was executed');
  });

  it('says what it read when it found nothing, and that a failed read is no answer', () => {
    expect(reconciliationFindingText({ code: 'not_found', read })).toBe(
      'no record among 12 records on 3 pages of /payouts shows it yet; it may still appear — payops checks again',
    );
    expect(
      reconciliationFindingText({ code: 'not_found', read: { ...read, records: 1, pages: 1 } }),
    ).toBe(
      'no record among 1 records on 1 page of /payouts shows it yet; it may still appear — payops checks again',
    );
    expect(
      reconciliationFindingText({ code: 'read_failed', list: 'listPayouts', error: timeout }),
    ).toBe(`could not read /payouts: ${TIMEOUT_WORDS}`);
    expect(reconciliationFindingText({ code: 'no_list' })).toBe('no list shows this operation');
  });

  it('says why what could be it is not taken, and to check at the provider', () => {
    expect(
      reconciliationFindingText({
        code: 'not_taken',
        read,
        doubt: { code: 'several_match', count: 2, records: [{ id: 'po_1' }, {}] },
      }),
    ).toBe(
      '2 records among 12 records on 3 pages of /payouts match it equally (po_1, ?); check at the provider',
    );
    expect(
      reconciliationFindingText({
        code: 'not_taken',
        read,
        doubt: { code: 'undated', record: { id: 'po_1' } },
      }),
    ).toBe(
      'po_1 in /payouts matches it but shows no creation time, so it may be an earlier payment; check at the provider',
    );
    expect(
      reconciliationFindingText({
        code: 'not_taken',
        read,
        doubt: { code: 'created_before', record: {}, skewMinutes: 2 },
      }),
    ).toBe(
      'a record in /payouts matches it but was created before payops sent it (within the 2 minutes two clocks may differ by), so it may be an earlier payment; check at the provider',
    );
    expect(
      reconciliationFindingText({
        code: 'not_taken',
        read,
        doubt: {
          code: 'list_unfinished',
          matched: { id: 'po_1' },
          unfinished: { code: 'page_repeated' },
        },
      }),
    ).toBe(
      'one record (po_1) matches among 12 records on 3 pages of /payouts, but the provider pointed to a page already read; check at the provider',
    );
  });

  it("shows an approver's note when a person resolved it", () => {
    expect(
      reconciliationDetailText({
        checkedAt: '2026-03-01T11:05:00.000Z',
        result: 'not_found',
        resolvedBy: 'U0CAROL',
        detail: 'no payout in the dashboard',
      }),
    ).toBe('no payout in the dashboard');
  });
});

describe('why a list was not read to its end, in words', () => {
  it.each<[ListUnfinished, string]>([
    [
      { code: 'page_unread', page: 2, error: timeout },
      `page 2 could not be read (${TIMEOUT_WORDS})`,
    ],
    [{ code: 'no_list', page: 1 }, 'page 1 holds no list payops can read'],
    [
      { code: 'too_many_records', max: 5000 },
      'payops reads at most 5000 records of a list and it holds more',
    ],
    [
      { code: 'count_mismatch', total: 120, seen: 1 },
      'the list says it holds 120 records, and its pages showed 1',
    ],
    [
      { code: 'full_page', page: 1, records: 50 },
      'page 1 is full (50 records) and says nothing of a next one',
    ],
    [
      { code: 'unfollowable', next: { code: 'no_way_to_ask' } },
      'the list goes on and the list says it has more, but not how to ask for it',
    ],
    [
      { code: 'unfollowable', next: { code: 'other_address', path: '/v2/transfers' } },
      'the list goes on and its next page is at another address (/v2/transfers)',
    ],
    [{ code: 'page_repeated' }, 'the provider pointed to a page already read'],
    [{ code: 'too_many_pages', max: 10 }, 'payops reads at most 10 pages and the list goes on'],
  ])('%j', (unfinished, words) => {
    expect(unfinishedText(unfinished)).toBe(words);
  });
});

describe('why a follow-up look learnt nothing, in words', () => {
  it('a failed read: the provider error, or payops failing to read', () => {
    expect(followLookErrorText({ code: 'read_failed', list: 'listPayouts', error: timeout })).toBe(
      `could not read /payouts: ${TIMEOUT_WORDS}`,
    );
    expect(followLookErrorText({ code: 'read_failed', list: 'listPayouts' })).toBe(
      'could not read /payouts: payops failed while reading it',
    );
    expect(followLookErrorText({ code: 'look_failed' })).toBe('payops failed here');
  });

  it('a record not taken: never a guess, never "gone" from part of a list', () => {
    expect(followLookErrorText({ code: 'several', list: 'listPayouts', count: 2 })).toBe(
      '2 records in /payouts could be it; payops does not guess',
    );
    expect(
      followLookErrorText({
        code: 'partly_read',
        list: 'listPayouts',
        unfinished: { code: 'too_many_pages', max: 10 },
      }),
    ).toBe('not in the part of /payouts read: payops reads at most 10 pages and the list goes on');
    expect(
      followLookErrorText({
        code: 'not_taken',
        read,
        doubt: { code: 'undated', record: { id: 'po_1' } },
      }),
    ).toBe(
      'po_1 in /payouts matches it but shows no creation time, so it may be an earlier payment; payops does not take it',
    );
  });
});
