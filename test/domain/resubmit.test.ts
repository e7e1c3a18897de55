import { describe, expect, it } from 'vitest';
import { sensitiveKind } from '../../src/domain/masking.ts';
import { changesFrom, formValuesOf, waitingOnRequester } from '../../src/domain/resubmit.ts';
import { storedRequest } from '../helpers/requests.ts';

const OLD = storedRequest(
  'createPayout',
  {},
  JSON.stringify({
    wallet_id: 'wal_1',
    amount: '25.50',
    currency: 'USDC',
    beneficiary_account: '000123456789',
    beneficiary_name: 'Jane Roe',
  }),
  { purpose: 'Invoice 2291' },
);
const QUESTION = { by: 'U0CAROL', at: '2026-03-01T11:00:00.000Z', text: 'Which invoice?' };

describe('waitingOnRequester', () => {
  it('is the question while the request is pending and no approval came after it', () => {
    expect(waitingOnRequester({ ...OLD, question: QUESTION })).toEqual(QUESTION);
    const before = { userId: 'U0BOB', at: '2026-03-01T10:30:00.000Z' };
    expect(waitingOnRequester({ ...OLD, question: QUESTION, approvals: [before] })).toEqual(
      QUESTION,
    );
  });

  it('ends with an approval after the question, or once the request is no longer pending', () => {
    const after = { userId: 'U0BOB', at: '2026-03-01T11:30:00.000Z' };
    expect(waitingOnRequester({ ...OLD, question: QUESTION, approvals: [after] })).toBeUndefined();
    expect(
      waitingOnRequester({ ...OLD, question: QUESTION, status: 'superseded' }),
    ).toBeUndefined();
    expect(waitingOnRequester(OLD)).toBeUndefined();
  });
});

describe('changesFrom', () => {
  it('lists each value changed, the purpose too, masked as the card shows them', () => {
    const replaced = changesFrom(OLD, {
      operationId: 'createPayout',
      path: {},
      fields: {
        wallet_id: 'wal_1',
        amount: '30.00',
        currency: 'USDC',
        beneficiary_account: '000987654321',
        beneficiary_name: 'Jane Roe',
      },
      purpose: 'Invoice 2292',
    });
    expect(replaced).toEqual({
      id: OLD.id,
      changes: [
        { field: 'amount', before: '25.50', after: '30.00' },
        { field: 'beneficiary_account', before: '••••6789', after: '••••4321' },
        { field: 'purpose', before: 'Invoice 2291', after: 'Invoice 2292' },
      ],
    });
    expect(JSON.stringify(replaced)).not.toContain('000987654321');
  });

  it('a field added or left out has no value on the side it is missing from', () => {
    const replaced = changesFrom(OLD, {
      operationId: 'createPayout',
      path: {},
      fields: {
        wallet_id: 'wal_1',
        amount: '25.50',
        currency: 'USDC',
        beneficiary_name: 'Jane Roe',
      },
    });
    expect(replaced.changes).toEqual([
      { field: 'beneficiary_account', before: '••••6789', after: undefined },
      { field: 'purpose', before: 'Invoice 2291', after: undefined },
    ]);
  });

  it("the form is filled with the old request's fields and purpose", () => {
    expect(formValuesOf(OLD)).toMatchObject({ amount: '25.50', purpose: 'Invoice 2291' });
    // Slack is never sent a banking number in full: the form asks for it again.
    for (const name of Object.keys(formValuesOf(OLD))) {
      expect(sensitiveKind(name), name).not.toBe('banking');
    }
  });
});
