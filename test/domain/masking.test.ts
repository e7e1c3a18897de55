import { describe, expect, it } from 'vitest';
import {
  maskAccount,
  maskLongNumbers,
  redactForLog,
  redactSensitiveText,
} from '../../src/domain/masking.ts';

describe('masking banking details', () => {
  it('shows only the last four characters', () => {
    expect(maskAccount('000123456789')).toBe('••••6789');
    expect(maskAccount('1234')).toBe('••••');
    expect(maskAccount(undefined)).toBe('••••');
    expect(maskAccount('joao.souza@example.com.br')).toBe('••••');
  });

  it('redacts sensitive fields at any depth for logs', () => {
    const redacted = redactForLog({
      request: {
        body: {
          beneficiary_account: '000123456789',
          beneficiary_name: 'Jane Roe',
          amount: '10.00',
        },
      },
      list: [{ account_number: '987654321' }],
      headers: { 'x-api-key': 'secret' },
    });
    expect(redacted).toEqual({
      request: {
        body: { beneficiary_account: '••••6789', beneficiary_name: '[redacted]', amount: '10.00' },
      },
      list: [{ account_number: '••••4321' }],
      headers: { 'x-api-key': '[redacted]' },
    });
  });

  it('knows banking fields however a reply names them', () => {
    expect(
      redactForLog({
        accountNumber: '123456789',
        'Routing-Number': '021000021',
        bank_account: { number: '5555666677', holder: 'Acme' },
        beneficiaryName: 'Jane Roe',
        external_account_id: 'ea_1',
        accounts: 3,
      }),
    ).toEqual({
      accountNumber: '••••6789',
      'Routing-Number': '••••0021',
      bank_account: '[redacted]',
      beneficiaryName: '[redacted]',
      external_account_id: 'ea_1',
      accounts: 3,
    });
  });

  it('scrubs field=value details inside free text, keeping JSON quoting intact', () => {
    expect(
      redactSensitiveText('payout amount=10 beneficiary_account=000123456789 currency=USD'),
    ).toBe('payout amount=10 beneficiary_account=[redacted] currency=USD');
    expect(redactSensitiveText('{"account_number":"987654321","x":1}')).toBe(
      '{"account_number":"[redacted]","x":1}',
    );
    expect(redactSensitiveText('text=payout+beneficiary_account%3D000123456789&user=U1')).toBe(
      'text=payout+beneficiary_account%3D[redacted]&user=U1',
    );
    expect(redactSensitiveText('beneficiary_name="Jane Roe" amount=1')).toBe(
      'beneficiary_name="[redacted]" amount=1',
    );
  });

  it('masks account-like numbers inside free text it did not write', () => {
    expect(maskLongNumbers('account 000123456789 is closed; amount 12.50 on 2026-11-22')).toBe(
      'account ••••6789 is closed; amount 12.50 on 2026-11-22',
    );
    expect(maskLongNumbers('1250000.00 USDC to 000123456789, fee 0.0000012')).toBe(
      '1250000.00 USDC to ••••6789, fee 0.0000012',
    );
    expect(maskLongNumbers('acct.000123456789 No.12345678 000123456789,000987654321')).toBe(
      'acct.••••6789 No.••••5678 ••••6789,••••4321',
    );
  });

  it('masks grouped account and card numbers and IBAN-like codes', () => {
    expect(
      maskLongNumbers('card 4111 1111 1111 1111, account 0001 2345 6789 or 000-123-456-789'),
    ).toBe('card ••••1111, account ••••6789 or ••••6789');
    expect(
      maskLongNumbers(
        'routing 021-000-021; IBAN DE89 3704 0044 0532 0130 00 or GB29NWBK60161331926819.',
      ),
    ).toBe('routing ••••0021; IBAN ••••3000 or ••••6819.');
    expect(maskLongNumbers('on 2026-11-22 at 12:30, 1 250 000 units, ts 1700000000.000100')).toBe(
      'on 2026-11-22 at 12:30, 1 250 000 units, ts 1700000000.000100',
    );
  });

  it('leaves identifiers that hold digits whole', () => {
    const ids =
      'request req_9922369a3db4dbec, payout po_123456789, wallet wal_1234567, hex 9922369a3db4dbec and a3db4dbec9922369, uuid 123e4567-e89b-12d3-a456-426614174000';
    expect(maskLongNumbers(ids)).toBe(ids);
    expect(maskLongNumbers('req_9922369a3db4dbec for account 000123456789')).toBe(
      'req_9922369a3db4dbec for account ••••6789',
    );
  });
});
