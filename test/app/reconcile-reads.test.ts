import { describe, expect, it } from 'vitest';
import { MAX_RECONCILE_PAGES, reconcile, SharedListReads } from '../../src/app/reconcile.ts';
import type { PaymentRequest } from '../../src/domain/approval.ts';
import { ServerError } from '../../src/payments/errors.ts';
import { reconciliationDetailText } from '../../src/slack/text/list-findings.ts';
import { FakePayments } from '../fakes/payments.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { storedRequest } from '../helpers/requests.ts';

/**
 * Reconciliation's reads on a fake provider: what an unreadable, endless or shared list makes
 * of an unknown outcome. (test/app/reconcile.test.ts runs it against the sandbox.)
 */

const NONE_TAKEN = { attributedElsewhere: async () => new Set<string>() };
const FIELDS = { ...EXAMPLE_CALLS.createPayout.body, amount: '11.11' } as Record<string, string>;

/** A payout whose outcome is unknown, approved a minute ago. */
function unknownPayout(id = 1): PaymentRequest {
  const at = new Date(Date.now() - 60_000).toISOString();
  return storedRequest('createPayout', {}, JSON.stringify(FIELDS), {
    id,
    status: 'unknown',
    approvals: [{ userId: 'U0BOB', at }],
    createdAt: at,
  });
}

/** The payout record the request made, as the provider lists it. */
const made = { ...FIELDS, id: 'po_made', status: 'pending', created_at: new Date().toISOString() };

describe('reconcile', () => {
  it('finds the record the write made, with its id: it was executed', async () => {
    const payments = new FakePayments().answer('listPayouts', () => ({ data: [made] }));
    expect(await reconcile(payments, unknownPayout(), NONE_TAKEN)).toMatchObject({
      result: 'found',
      providerId: 'po_made',
    });
  });

  it('never takes a record known as another request’s', async () => {
    const payments = new FakePayments().answer('listPayouts', () => ({ data: [made] }));
    const taken = { attributedElsewhere: async () => new Set(['po_made']) };
    expect((await reconcile(payments, unknownPayout(), taken)).result).toBe('not_found');
  });

  it('calls an unreadable first page a failed check, never "not found"', async () => {
    const payments = new FakePayments().answer('listPayouts', () => {
      throw new ServerError('down', { operationId: 'listPayouts', status: 503 });
    });
    const checked = await reconcile(payments, unknownPayout(), NONE_TAKEN);
    expect(checked.result).toBe('check_failed');
    expect(reconciliationDetailText(checked)).toMatch(/^could not read \/payouts: /);
  });

  it('calls a list read only in part, its next page unreadable, a failed check', async () => {
    const payments = new FakePayments().answer('listPayouts', (_input, call) => {
      if (call === 1)
        return { data: [{ ...made, id: 'po_other', amount: '1.00' }], next_cursor: 'c2' };
      throw new ServerError('down', { operationId: 'listPayouts', status: 503 });
    });
    const checked = await reconcile(payments, unknownPayout(), NONE_TAKEN);
    expect(checked.result).toBe('check_failed');
    expect(reconciliationDetailText(checked)).toContain('page 2 could not be read');
  });

  it('follows the pages a list points to, and reads at most MAX_RECONCILE_PAGES of them', async () => {
    const payments = new FakePayments().answer('listPayouts', (_input, call) => ({
      data: [{ ...made, id: `po_${call}`, amount: '1.00' }],
      next_cursor: `c${call + 1}`,
    }));
    const checked = await reconcile(payments, unknownPayout(), NONE_TAKEN);
    expect(payments.count('listPayouts')).toBe(MAX_RECONCILE_PAGES);
    expect(payments.calls[1]?.input.page).toEqual({ cursor: 'c2' });
    expect(checked.result).toBe('check_failed');
  });

  it('reads each list once for every reconciliation of a sweep', async () => {
    const payments = new FakePayments().answer('listPayouts', () => ({ data: [made] }));
    const requests = [unknownPayout(1), unknownPayout(2)];
    const reads = new SharedListReads(payments, requests);
    for (const request of requests) await reconcile(payments, request, { ...NONE_TAKEN, reads });
    expect(payments.count('listPayouts')).toBe(1);
  });
});
