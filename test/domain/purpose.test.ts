import { describe, expect, it } from 'vitest';
import { bodyText } from '../../src/domain/approval.ts';
import { isWrite, OPERATION_IDS, OPERATIONS } from '../../src/domain/operations.ts';
import {
  DEFAULT_PURPOSE_REQUIRED,
  MAX_PURPOSE_LENGTH,
  PURPOSE_FIELD,
  PURPOSE_OPERATIONS,
} from '../../src/domain/purpose.ts';
import {
  type FieldError,
  parseWriteCommand,
  validateWriteFields,
  type WriteRules,
  writeUsageForm,
} from '../../src/domain/write-commands.ts';
import { fieldErrorText } from '../../src/slack/text/commands.ts';
import { EXAMPLE_CALLS, payoutCommand } from '../helpers/payments.ts';

const PAYOUT_FIELDS = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const PAYOUT_TEXT = payoutCommand(PAYOUT_FIELDS);
const REQUIRED: WriteRules = { requirePurpose: new Set(DEFAULT_PURPOSE_REQUIRED) };

function words(errors: FieldError[]): Array<{ field: string | undefined; message: string }> {
  return errors.map((error) => ({ field: error.field, message: fieldErrorText('/pay', error) }));
}

function errorsOfPayout(purpose: string | undefined, rules = REQUIRED) {
  const result = validateWriteFields(
    'createPayout',
    {},
    { ...PAYOUT_FIELDS, [PURPOSE_FIELD]: purpose },
    rules,
  );
  return 'errors' in result ? words(result.errors) : [];
}

describe('the writes that carry a purpose', () => {
  it('are the money-moving writes; payouts and transfers need one by default, routes do not', () => {
    expect(PURPOSE_OPERATIONS.map((id) => OPERATIONS[id].command)).toEqual([
      'transfer',
      'crypto-transfer',
      'payment-route',
      'offramp-route',
      'payout',
    ]);
    expect(DEFAULT_PURPOSE_REQUIRED.map((id) => OPERATIONS[id].command)).toEqual([
      'transfer',
      'crypto-transfer',
      'payout',
    ]);
  });

  it('is never a body field of the catalogue: the provider is sent exactly its fields', () => {
    const writes = OPERATION_IDS.filter(isWrite);
    expect(writes.filter((id) => OPERATIONS[id].bodyFields.includes(PURPOSE_FIELD))).toEqual([]);
  });
});

describe('a purpose typed on the command line', () => {
  it('is read from purpose="…" with quotes, kept apart from the fields and out of the body', () => {
    const parsed = parseWriteCommand(`${PAYOUT_TEXT} purpose="Invoice 2291"`, REQUIRED);
    expect(parsed).toEqual({
      kind: 'intent',
      intent: {
        operationId: 'createPayout',
        path: {},
        fields: PAYOUT_FIELDS,
        purpose: 'Invoice 2291',
      },
    });
    if (parsed.kind !== 'intent') throw new Error('no intent');
    expect(bodyText(parsed.intent)).toBe(JSON.stringify(PAYOUT_FIELDS));
    expect(bodyText(parsed.intent)).not.toContain('Invoice');
  });

  it('is refused when required and missing, with what to type', () => {
    const parsed = parseWriteCommand(PAYOUT_TEXT, REQUIRED);
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind !== 'invalid') return;
    expect(words(parsed.errors)).toEqual([
      {
        field: 'purpose',
        message:
          'purpose: missing — `/pay payout` needs a purpose: what the money is for, e.g. purpose="Invoice 2291". Approvers see it on the card; it is not sent to the provider',
      },
    ]);
  });

  it('may be left out where it is not required; then the intent has none', () => {
    expect(parseWriteCommand(PAYOUT_TEXT)).toEqual({
      kind: 'intent',
      intent: { operationId: 'createPayout', path: {}, fields: PAYOUT_FIELDS },
    });
    const rules: WriteRules = { requirePurpose: new Set(['createTransfer']) };
    expect(parseWriteCommand(PAYOUT_TEXT, rules).kind).toBe('intent');
  });

  it('is taken, optional, by a route; a write that moves no money has no such field', () => {
    const route = parseWriteCommand(
      'offramp-route wallet_id=wal_1 corridor_id=cor_1 external_account_id=ea_1 source_currency=USDC purpose="Payroll route"',
      REQUIRED,
    );
    expect(route.kind === 'intent' && route.intent.purpose).toBe('Payroll route');
    const wallet = parseWriteCommand('create-wallet chain=base purpose="Ops"', REQUIRED);
    expect(wallet.kind === 'invalid' && words(wallet.errors)).toEqual([
      {
        field: 'purpose',
        message: 'purpose: not a field of `/pay create-wallet`. Its fields are chain.',
      },
    ]);
  });

  it('typed alone asks for the form, which starts with it; checked all the same', () => {
    expect(parseWriteCommand('payout purpose="Invoice 2291"', REQUIRED)).toEqual({
      kind: 'modal',
      operationId: 'createPayout',
      path: {},
      purpose: 'Invoice 2291',
    });
    const tooLong = parseWriteCommand(`payout purpose="${'x'.repeat(201)}"`, REQUIRED);
    expect(tooLong.kind === 'invalid' && words(tooLong.errors)).toEqual([
      { field: 'purpose', message: 'purpose: 201 characters long; at most 200' },
    ]);
  });

  it('shows in the usage of the writes that take one', () => {
    expect(writeUsageForm('createPayout').fields).toMatch(/destination_type=… purpose="…"$/);
    expect(writeUsageForm('createWallet').fields).toBe('chain=…');
  });
});

describe('a purpose checked', () => {
  it('is refused past its length, with both lengths', () => {
    expect(errorsOfPayout('x'.repeat(MAX_PURPOSE_LENGTH))).toEqual([]);
    expect(errorsOfPayout('x'.repeat(MAX_PURPOSE_LENGTH + 1))).toEqual([
      { field: 'purpose', message: 'purpose: 201 characters long; at most 200' },
    ]);
  });

  it('is refused with a control character, a line break or an invisible one', () => {
    for (const purpose of ['Invoice\u00002291', 'Invoice\n2291', 'Invoice\u202e2291']) {
      const [error, ...others] = errorsOfPayout(purpose);
      expect(others).toEqual([]);
      expect(error?.field).toBe('purpose');
      expect(error?.message).toMatch(/^purpose: contains an invisible character \(U\+/);
    }
  });

  it('is refused empty, or with spaces the card would not show', () => {
    expect(errorsOfPayout('')).toEqual([
      { field: 'purpose', message: 'purpose: empty — give a value' },
    ]);
    expect(errorsOfPayout(' Invoice')[0]?.message).toBe(
      'purpose: starts or ends with a space — remove it',
    );
  });

  it('is scrubbed as a rejection reason is: long numbers masked, banking details redacted', () => {
    const result = validateWriteFields(
      'createPayout',
      {},
      { ...PAYOUT_FIELDS, purpose: 'Refund to account 000123456789' },
      REQUIRED,
    );
    expect('intent' in result && result.intent.purpose).toBe('Refund to account ••••6789');
  });

  it('comes from the form with the fields, an empty input counting as not given', () => {
    const form = { ...PAYOUT_FIELDS, purpose: undefined };
    const missing = validateWriteFields('createPayout', {}, form, REQUIRED);
    expect('errors' in missing && missing.errors.map((error) => error.field)).toEqual(['purpose']);
    const given = validateWriteFields(
      'createPayout',
      {},
      { ...form, purpose: 'Invoice 2291' },
      REQUIRED,
    );
    expect('intent' in given && given.intent).toEqual({
      operationId: 'createPayout',
      path: {},
      fields: PAYOUT_FIELDS,
      purpose: 'Invoice 2291',
    });
  });
});
