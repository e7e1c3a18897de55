import { describe, expect, it } from 'vitest';
import {
  canonicalBankingId,
  destinationOf,
  payeeDestinationOf,
  recipientAccountOf,
} from '../../src/domain/payee.ts';
import { Signer } from '../../src/domain/signer.ts';

const signer = new Signer(Buffer.alloc(32, 7));

describe('canonicalBankingId: one form for every spelling of a banking identifier', () => {
  it('drops spaces, dashes, dots and leading zeros, and ignores case and width', () => {
    for (const spelling of [
      '000123456789',
      '0001 2345 6789',
      '000-123-456-789',
      '123.456.789',
      ' 123\t456\u00a0789 ',
      '123–456—789',
      '１２３４５６７８９',
    ]) {
      expect(canonicalBankingId(spelling), spelling).toBe('123456789');
    }
    expect(canonicalBankingId('021000021')).toBe('21000021');
    expect(canonicalBankingId('de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(canonicalBankingId('0000')).toBe('0');
  });

  it('keeps what tells accounts apart', () => {
    expect(canonicalBankingId('123456789')).not.toBe(canonicalBankingId('123456780'));
    expect(canonicalBankingId('1234567890')).not.toBe(canonicalBankingId('123456789'));
  });
});

describe('who a write pays', () => {
  const payout = (account: string, routing: string) =>
    destinationOf({ beneficiary_account: account, beneficiary_routing: routing }, {});

  it('names an account and its routing in their canonical form', () => {
    expect(payout('0001 2345 6789', '021000021')).toBe('account:21000021/123456789');
    expect(payout('123456789', '21000021')).toBe(payout('000-123-456-789', '021-000-021'));
    expect(destinationOf({ external_account_id: 'ea_1' }, {})).toBe('recipient:ea_1');
  });

  it("takes a recipient as the account its record shows in full, else stays the recipient's id", () => {
    const record = { id: 'ea_1', account_number: '000123456789', routing_number: '021000021' };
    const account = recipientAccountOf(record);
    expect(account).toBe('account:21000021/123456789');
    expect(payeeDestinationOf({ external_account_id: 'ea_1' }, {}, account)).toEqual({
      destination: 'account:21000021/123456789',
      recipientUnread: false,
    });
    expect(payeeDestinationOf({ external_account_id: 'ea_1' }, {}, undefined)).toEqual({
      destination: 'recipient:ea_1',
      recipientUnread: true,
    });
    // A write naming an account is paid there, whatever recipient was read.
    expect(
      payeeDestinationOf({ beneficiary_account: '42' }, {}, 'account:21000021/123456789'),
    ).toEqual({ destination: 'account:/42', recipientUnread: false });
  });

  it('reads no account from a record showing it masked, or none', () => {
    for (const masked of ['••••6789', '****6789', 'XXXX6789', 'xxxxxxxx6789', '…6789']) {
      expect(recipientAccountOf({ account_number: masked }), masked).toBeUndefined();
    }
    expect(
      recipientAccountOf({ account_number: '123456789', routing_number: '****0021' }),
    ).toBeUndefined();
    expect(recipientAccountOf({ id: 'ea_1', name: 'Northwind' })).toBeUndefined();
    expect(recipientAccountOf({ account_number: 123456789 })).toBeUndefined();
  });
});

describe('the keys a write is held and counted by', () => {
  const payout = (fields: Record<string, string>) =>
    signer.keysOf({
      operationId: 'createPayout',
      path: {},
      body: JSON.stringify({
        wallet_id: 'wal_1',
        amount: '25.50',
        currency: 'USDC',
        beneficiary_name: 'Jane Roe',
        beneficiary_account: '000123456789',
        beneficiary_routing: '021000021',
        ...fields,
      }),
    });

  it('the same payout spelt with spaces, dashes or without zeros has one hold key and one tag', () => {
    const first = payout({});
    for (const account of ['0001 2345 6789', '000-123-456-789', '123456789']) {
      const again = payout({ beneficiary_account: account, beneficiary_routing: '21000021' });
      expect(again, account).toEqual(first);
    }
  });

  it('another name or rail is another write but the same payment; another amount, wallet or currency is not', () => {
    const first = payout({});
    const renamed = payout({ beneficiary_name: 'J. Roe', destination_type: 'wire' });
    expect(renamed.holdKey).not.toBe(first.holdKey);
    expect(renamed.paymentKey).toBe(first.paymentKey);
    expect(payout({ amount: '25.5000' }).paymentKey).toBe(first.paymentKey);
    const others: Array<Record<string, string>> = [
      { amount: '25.51' },
      { wallet_id: 'wal_2' },
      { currency: 'USD' },
    ];
    for (const other of others) {
      expect(payout(other).paymentKey).not.toBe(first.paymentKey);
    }
  });

  it('a transfer to the recipient whose account it is makes the same payment, once its account is read', () => {
    const transfer = {
      operationId: 'createTransfer' as const,
      path: {},
      body: JSON.stringify({
        wallet_id: 'wal_1',
        external_account_id: 'ea_1',
        amount: '25.50',
        source_currency: 'USDC',
        corridor_id: 'cor_1',
      }),
    };
    const read = signer.keysOf(transfer, 'account:21000021/123456789');
    expect(read.payeeTag).toBe(payout({}).payeeTag);
    expect(read.paymentKey).toBe(payout({}).paymentKey);
    expect(signer.keysOf(transfer).paymentKey).not.toBe(payout({}).paymentKey);
  });

  it('a write paying no one has a hold key only', () => {
    const keys = signer.keysOf({
      operationId: 'createWallet',
      path: {},
      body: JSON.stringify({ chain: 'ethereum' }),
    });
    expect(keys.payeeTag).toBeUndefined();
    expect(keys.paymentKey).toBeUndefined();
    expect(keys.holdKey).toMatch(/^[0-9a-f]{32}$/);
  });
});
