import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyText } from '../../src/domain/approval.ts';
import { READ_COMMAND_WORDS } from '../../src/domain/commands.ts';
import { sensitiveKind } from '../../src/domain/masking.ts';
import {
  isWrite,
  OPERATION_IDS,
  OPERATIONS,
  type WriteOperationId,
} from '../../src/domain/operations.ts';
import {
  deceptionProblem,
  type FieldError,
  isWriteCommandWord,
  MAX_AMOUNT_DECIMALS,
  MAX_AMOUNT_WHOLE_DIGITS,
  MAX_BODY_LENGTH,
  MAX_IDENTIFIER_LENGTH,
  MAX_VALUE_LENGTH,
  mixedScripts,
  parseWriteCommand,
  validateWriteFields,
  WRITE_COMMAND_WORDS,
  type WriteParse,
} from '../../src/domain/write-commands.ts';
import { fieldErrorText } from '../../src/slack/text/commands.ts';

const WRITES = OPERATION_IDS.filter(isWrite);

const PAYOUT = {
  wallet_id: 'wal_1',
  amount: '10.00',
  currency: 'USDC',
  beneficiary_name: 'Jane Roe',
  beneficiary_account: '000123456789',
  beneficiary_routing: '021000021',
  destination_type: 'ach',
};

/** `/pay` text for a field map, every value quoted so spaces survive. */
function commandText(word: string, fields: Record<string, string>, words: string[] = []): string {
  const typed = Object.entries(fields).map(([name, value]) => `${name}="${value}"`);
  return [word, ...words, ...typed].join(' ');
}

/** An error as the person is told it under the default command name. */
interface WordedError {
  field: string | undefined;
  message: string;
}

function worded(error: FieldError): WordedError {
  return { field: error.field, message: fieldErrorText('/pay', error) };
}

function errorsOf(parse: WriteParse | ReturnType<typeof validateWriteFields>): WordedError[] {
  if ('errors' in parse) return parse.errors.map(worded);
  throw new Error(`expected errors, got ${JSON.stringify(parse)}`);
}

/** The errors of a payout whose fields are all valid except `changes`. */
function payoutErrors(changes: Record<string, string | undefined>): WordedError[] {
  return errorsOf(validateWriteFields('createPayout', {}, { ...PAYOUT, ...changes }));
}

function accepted(changes: Record<string, string>): boolean {
  return 'intent' in validateWriteFields('createPayout', {}, { ...PAYOUT, ...changes });
}

function messageFor(field: string, changes: Record<string, string | undefined>): string {
  const errors = payoutErrors(changes);
  expect(errors.map((error) => error.field)).toEqual([field]);
  return (errors[0] as WordedError).message;
}

describe('write command words', () => {
  it('are the /pay words of the 13 write operations, in catalogue order', () => {
    expect(WRITE_COMMAND_WORDS).toEqual(WRITES.map((id) => OPERATIONS[id].command));
    expect(WRITE_COMMAND_WORDS).toHaveLength(13);
    expect(WRITE_COMMAND_WORDS).toContain('payout');
    expect(WRITE_COMMAND_WORDS).toContain('deactivate-recipient');
  });

  it('are recognised in any case, and no read word is one', () => {
    expect(isWriteCommandWord('Payout')).toBe(true);
    expect(isWriteCommandWord('create-wallet')).toBe(true);
    for (const word of READ_COMMAND_WORDS) expect(isWriteCommandWord(word)).toBe(false);
  });
});

describe('parseWriteCommand', () => {
  it('turns a complete payout into an intent with every value exactly as typed', () => {
    const parse = parseWriteCommand(
      'payout wallet_id=wal_1 amount=10.00 currency=usdc beneficiary_name="Jane Roe = Jr" beneficiary_account=000123 beneficiary_routing=021000021 destination_type=ACH',
    );
    expect(parse).toEqual({
      kind: 'intent',
      intent: {
        operationId: 'createPayout',
        path: {},
        fields: {
          wallet_id: 'wal_1',
          amount: '10.00',
          currency: 'usdc',
          beneficiary_name: 'Jane Roe = Jr',
          beneficiary_account: '000123',
          beneficiary_routing: '021000021',
          destination_type: 'ACH',
        },
      },
    });
  });

  it('fills the path parameters from the words after the command word', () => {
    expect(parseWriteCommand('deactivate-recipient ea_123')).toEqual({
      kind: 'intent',
      intent: {
        operationId: 'deactivateRecipient',
        path: { externalAccountId: 'ea_123' },
        fields: {},
      },
    });
    expect(parseWriteCommand('update-recipient ea_123 account_owner_name="New Name"')).toEqual({
      kind: 'intent',
      intent: {
        operationId: 'updateRecipient',
        path: { externalAccountId: 'ea_123' },
        fields: { account_owner_name: 'New Name' },
      },
    });
  });

  it('asks for a form when an operation with body fields is given none', () => {
    expect(parseWriteCommand('payout')).toEqual({
      kind: 'modal',
      operationId: 'createPayout',
      path: {},
    });
    expect(parseWriteCommand('UPDATE-RECIPIENT ea_9')).toEqual({
      kind: 'modal',
      operationId: 'updateRecipient',
      path: { externalAccountId: 'ea_9' },
    });
  });

  it('asks for no form before the path id is given and valid', () => {
    expect(errorsOf(parseWriteCommand('update-recipient'))).toEqual([
      {
        field: 'externalAccountId',
        message: 'externalAccountId: missing — write `/pay update-recipient <externalAccountId>`',
      },
    ]);
    expect(errorsOf(parseWriteCommand('update-recipient "ea 9"')).map((e) => e.field)).toEqual([
      'externalAccountId',
    ]);
  });

  it('refuses fields on writes that have no body: they take only the path id', () => {
    const errors = errorsOf(parseWriteCommand('deactivate-deposit-account va_1 reason=old'));
    expect(errors).toEqual([
      {
        field: 'reason',
        message:
          'reason: `/pay deactivate-deposit-account` takes no fields, only <virtualAccountId>',
      },
    ]);
  });

  it('refuses a word too many, showing the usage', () => {
    const [error, ...others] = errorsOf(parseWriteCommand('reactivate-recipient ea_1 ea_2'));
    expect(others).toEqual([]);
    expect(error?.field).toBeUndefined();
    expect(error?.message).toContain('`ea_2` is one word too many');
    expect(error?.message).toContain('Usage: `/pay reactivate-recipient <externalAccountId>`');
  });

  it('stray words and options are each named on one line, with the usage once', () => {
    const errors = errorsOf(parseWriteCommand('payout 10.00 EUR to bob --now --dry'));
    expect(errors.map((error) => error.message.split('. Usage')[0])).toEqual([
      '`10.00 EUR to bob` are words too many for `/pay payout`',
      '`--now --dry`: write commands take no options — give fields as name=value',
    ]);
  });

  it('never takes a word after a field as the id: it names the field whose value needs quotes', () => {
    const errors = errorsOf(parseWriteCommand('update-recipient account_owner_name=Jane van Roe'));
    expect(errors).toEqual([
      {
        field: 'account_owner_name',
        message:
          'account_owner_name: a value with spaces must be quoted — write account_owner_name="…" with the whole value inside the quotes',
      },
      {
        field: 'externalAccountId',
        message: 'externalAccountId: missing — write `/pay update-recipient <externalAccountId>`',
      },
    ]);
  });

  it('refuses a field given twice, naming it', () => {
    const errors = errorsOf(parseWriteCommand(`${commandText('payout', PAYOUT)} amount=20.00`));
    expect(errors).toEqual([
      { field: 'amount', message: 'amount: given more than once — give it once' },
    ]);
  });

  it('treats a field named __proto__ as an unknown field like any other', () => {
    const errors = errorsOf(parseWriteCommand(`${commandText('payout', PAYOUT)} __proto__=x`));
    expect(errors.map((error) => error.field)).toEqual(['__proto__']);
  });

  it('refuses --options: fields are name=value', () => {
    const errors = errorsOf(parseWriteCommand(`${commandText('payout', PAYOUT)} --force`));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/^`--force`: write commands take no options/);
  });

  it('passes on the tokenizer’s complaint about the text', () => {
    expect(errorsOf(parseWriteCommand('payout beneficiary_name="Jane'))).toEqual([
      { field: undefined, message: 'A quote (") is opened but never closed.' },
    ]);
  });

  it('refuses a text that does not start with a write command word', () => {
    for (const text of ['', 'wallets', 'amount=5', '--sync']) {
      const errors = errorsOf(parseWriteCommand(text));
      expect(errors).toHaveLength(1);
      expect(errors[0]?.message).toMatch(/^Start with a write command: `create-wallet`/);
    }
  });

  it('reports every problem at once, each naming its field', () => {
    const errors = errorsOf(
      parseWriteCommand(
        'payout wallet_id="wal 1" amout=5 amount=1,000 currency=US$ beneficiary_name="" beneficiary_account=1 destination_type=ach destination_type=wire',
      ),
    );
    expect(errors.map((error) => error.field).sort()).toEqual(
      [
        'destination_type',
        'amout',
        'wallet_id',
        'amount',
        'currency',
        'beneficiary_name',
        'beneficiary_routing',
      ].sort(),
    );
    expect(errors.find((error) => error.field === 'amount')?.message).toBe(
      'amount: `1,000` is not a plain decimal amount — write 1000',
    );
  });
});

describe('validateWriteFields', () => {
  it('makes an intent of every write whose path and fields are valid', () => {
    for (const id of WRITES) {
      expect(validateWriteFields(id, pathFor(id), validFields(id))).toEqual({
        intent: { operationId: id, path: pathFor(id), fields: validFields(id) },
      });
    }
  });

  it('requires every field of the spec’s example, for every write', () => {
    for (const id of WRITES) {
      for (const missing of OPERATIONS[id].bodyFields) {
        const fields = Object.fromEntries(
          Object.entries(validFields(id)).filter(([name]) => name !== missing),
        );
        const errors = errorsOf(validateWriteFields(id, pathFor(id), fields));
        expect(errors).toEqual([
          {
            field: missing,
            message: `${missing}: missing (every field is needed)`,
          },
        ]);
      }
    }
  });

  it('counts an undefined value (an empty form input) as missing', () => {
    expect(messageFor('beneficiary_name', { beneficiary_name: undefined })).toMatch(
      /^beneficiary_name: missing/,
    );
  });

  it('refuses empty and blank values', () => {
    expect(messageFor('beneficiary_name', { beneficiary_name: '' })).toBe(
      'beneficiary_name: empty — give a value',
    );
    expect(messageFor('beneficiary_name', { beneficiary_name: '   ' })).toBe(
      'beneficiary_name: empty — give a value',
    );
  });

  it('refuses spacing the approval message could not show as it is sent', () => {
    const refusals: Record<string, string> = {
      ' Jane Roe': 'starts or ends with a space — remove it',
      'Jane Roe ': 'starts or ends with a space — remove it',
      'Jane  Roe': 'has two spaces in a row — use one',
      'Jane\u00a0Roe': 'contains a special space (no-break, thin or wide) — type an ordinary space',
      'Jane\u2009Roe': 'contains a special space (no-break, thin or wide) — type an ordinary space',
    };
    for (const [beneficiary_name, problem] of Object.entries(refusals)) {
      expect(messageFor('beneficiary_name', { beneficiary_name })).toBe(
        `beneficiary_name: ${problem}`,
      );
    }
    const result = validateWriteFields('createPayout', {}, { ...PAYOUT, beneficiary_name: 'J R' });
    expect('intent' in result && result.intent.fields.beneficiary_name).toBe('J R');
  });

  it('refuses unknown fields by name, suggesting the closest known one', () => {
    expect(messageFor('amout', { amout: '5' })).toBe(
      'amout: not a field of `/pay payout` — did you mean amount? Its fields are wallet_id, amount, currency, beneficiary_name, beneficiary_account, beneficiary_routing, destination_type.',
    );
    expect(messageFor('memo', { memo: 'rent' })).toBe(
      'memo: not a field of `/pay payout`. Its fields are wallet_id, amount, currency, beneficiary_name, beneficiary_account, beneficiary_routing, destination_type.',
    );
  });

  it('accepts amounts only as positive plain decimal strings', () => {
    for (const amount of ['1', '0.01', '10000', '1250.50', `0.${'0'.repeat(17)}1`]) {
      expect(validateWriteFields('createPayout', {}, { ...PAYOUT, amount })).toHaveProperty(
        'intent',
      );
    }
    const refusals: Record<string, string> = {
      '1,000': '`1,000` is not a plain decimal amount — write 1000',
      '1,234,567.89': '`1,234,567.89` is not a plain decimal amount — write 1234567.89',
      '+5': '`+5` is not a plain decimal amount — write 5',
      '007.5': '`007.5` is not a plain decimal amount — write 7.5',
      '.5': '`.5` is not a plain decimal amount — write 0.5',
      '5.': '`5.` is not a plain decimal amount — write 5',
      '0': '`0` is zero — an amount must be more than zero',
      '0.00': '`0.00` is zero — an amount must be more than zero',
      '-10': '`-10` is negative — write a positive amount, no sign',
      '1e3': '`1e3` uses an exponent — write the digits out, e.g. 1000 for 1e3',
      '1,5':
        '`1,5` is not a plain decimal amount — write digits with at most one decimal point (no commas, spaces, signs or exponent), like 1250.50',
      '10 USD':
        '`10 USD` is not a plain decimal amount — write digits with at most one decimal point (no commas, spaces, signs or exponent), like 1250.50',
      NaN: '`NaN` is not a plain decimal amount — write digits with at most one decimal point (no commas, spaces, signs or exponent), like 1250.50',
      [`1.${'0'.repeat(MAX_AMOUNT_DECIMALS)}1`]: `\`1.0000000000000000001\` has 19 decimals; at most ${MAX_AMOUNT_DECIMALS}`,
      [`1${'0'.repeat(MAX_AMOUNT_WHOLE_DIGITS)}.5`]: `\`1${'0'.repeat(MAX_AMOUNT_WHOLE_DIGITS)}.5\` has 16 digits before the decimal point; at most ${MAX_AMOUNT_WHOLE_DIGITS}`,
    };
    for (const [amount, problem] of Object.entries(refusals)) {
      expect(messageFor('amount', { amount })).toBe(`amount: ${problem}`);
    }
  });

  it('accepts currency codes of 3 to 6 letters and sends them in the case typed', () => {
    for (const currency of ['USD', 'usdc', 'Eur', 'ABCDEF']) {
      const result = validateWriteFields('createPayout', {}, { ...PAYOUT, currency });
      expect('intent' in result && result.intent.fields.currency).toBe(currency);
    }
    for (const currency of ['US', 'US$', 'ABCDEFG', 'U S D', '840']) {
      expect(messageFor('currency', { currency })).toBe(
        `currency: \`${currency}\` is not a currency code — write 3 to 6 letters, like USD or USDC`,
      );
    }
    const route = validateWriteFields(
      'createPaymentRoute',
      {},
      {
        wallet_id: 'wal_1',
        source_currency: 'usdc',
        destination_payment_rail: 'base',
        destination_currency: 'eu-rc',
        destination_address: '0xabc',
      },
    );
    expect(errorsOf(route).map((error) => error.field)).toEqual(['destination_currency']);
  });

  it('accepts identifiers without white space or / of at most 128 characters', () => {
    const longest = 'w'.repeat(MAX_IDENTIFIER_LENGTH);
    expect(
      validateWriteFields('createPayout', {}, { ...PAYOUT, wallet_id: longest }),
    ).toHaveProperty('intent');
    expect(messageFor('wallet_id', { wallet_id: 'wal 1' })).toBe(
      'wallet_id: `wal 1` contains white space — an id is one word',
    );
    expect(messageFor('wallet_id', { wallet_id: 'wal\u00a01' })).toMatch(/contains white space/);
    expect(messageFor('wallet_id', { wallet_id: 'a/b' })).toBe(
      'wallet_id: `a/b` contains `/` — an id never does',
    );
    expect(messageFor('wallet_id', { wallet_id: `${longest}w` })).toBe(
      'wallet_id: 129 characters long; an id has at most 128',
    );
  });

  it('applies the identifier rules to path ids, refusing . and .. too', () => {
    for (const [id, problem] of [
      ['..', '`..` is not an id'],
      ['.', '`.` is not an id'],
      ['ea/1', '`ea/1` contains `/` — an id never does'],
      ['', 'empty — give a value'],
    ]) {
      expect(
        errorsOf(
          validateWriteFields('deactivateRecipient', { externalAccountId: id as string }, {}),
        ),
      ).toEqual([{ field: 'externalAccountId', message: `externalAccountId: ${problem}` }]);
    }
  });

  it('refuses a path parameter the operation does not have', () => {
    expect(
      errorsOf(
        validateWriteFields(
          'deactivateRecipient',
          { externalAccountId: 'ea_1', walletId: 'w' },
          {},
        ),
      ),
    ).toEqual([
      { field: 'walletId', message: 'walletId: `/pay deactivate-recipient` takes no walletId' },
    ]);
  });

  it('accepts a country only as two letters', () => {
    const recipient = validFields('createRecipient');
    for (const country of ['US', 'de']) {
      expect(validateWriteFields('createRecipient', {}, { ...recipient, country })).toHaveProperty(
        'intent',
      );
    }
    for (const country of ['USA', 'U', 'U1']) {
      expect(
        errorsOf(validateWriteFields('createRecipient', {}, { ...recipient, country })),
      ).toEqual([
        {
          field: 'country',
          message: `country: \`${country}\` is not a two-letter country code — write e.g. US or DE`,
        },
      ]);
    }
  });

  it(`limits every value to ${MAX_VALUE_LENGTH} characters`, () => {
    const longest = 'x'.repeat(MAX_VALUE_LENGTH);
    expect(
      validateWriteFields('createPayout', {}, { ...PAYOUT, beneficiary_name: longest }),
    ).toHaveProperty('intent');
    expect(messageFor('beneficiary_name', { beneficiary_name: `${longest}x` })).toBe(
      'beneficiary_name: 501 characters long; at most 500',
    );
  });

  it(`limits all values of a request together to ${MAX_BODY_LENGTH} characters`, () => {
    const long = 'x'.repeat(MAX_VALUE_LENGTH);
    const fields = { ...PAYOUT, beneficiary_name: long, destination_type: long };
    expect(validateWriteFields('createPayout', {}, fields)).toHaveProperty('intent');
    const tooMuch = { ...fields, beneficiary_account: long };
    const total = Object.values(tooMuch).join('').length;
    expect(total).toBeGreaterThan(MAX_BODY_LENGTH);
    expect(messageFor('beneficiary_name', tooMuch)).toBe(
      `beneficiary_name: the values together are ${total} characters long; at most ${MAX_BODY_LENGTH} — shorten this one (${MAX_VALUE_LENGTH})`,
    );
  });

  it('refuses control characters and invisible text-direction marks in any value', () => {
    for (const sneaky of [
      'a\nb',
      'a\tb',
      'a\u0000b',
      'a\u0085b',
      'Jane\u202eeoR',
      'a\u2066b',
      'a\u200bb',
      'a\ufeff',
      'Ac\u00adme',
      'a\u200db',
      'a\u2060b',
      'a\ufe0fb',
      'a\u{e0041}b',
      '\u2800Jane',
      'Ja\ufffcne',
      'Ja\ufffdne',
      'a\u{f8ff}b',
      'a\u17b4b',
    ]) {
      const [invisible = ''] = /[^a-zA-Z]/u.exec(sneaky) ?? [];
      const code = (invisible.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      expect(messageFor('beneficiary_name', { beneficiary_name: sneaky })).toBe(
        `beneficiary_name: contains an invisible character (U+${code}: a line break, tab, text-direction mark or blank) — retype it`,
      );
    }
  });

  it('refuses combining marks that strike, stack or hide letters, not accents or other scripts', () => {
    expect(messageFor('beneficiary_name', { beneficiary_name: 'M\u0336allory' })).toBe(
      'beneficiary_name: contains a combining mark (U+0336) that strikes through, stacks on or hides letters — type the accented letter itself',
    );
    for (const sneaky of [
      'Ja\u0334ne',
      'Jane\u20dd',
      'Jane \u0301Roe',
      '\u0308Jane',
      'Jo\u0301\u0301se',
    ]) {
      expect(messageFor('beneficiary_name', { beneficiary_name: sneaky })).toMatch(
        /contains a combining mark \(U\+[0-9A-F]{4}\)/,
      );
    }
    // An accent typed decomposed composes to one letter; Hindi and Arabic need their marks.
    for (const name of ['José', 'Jose\u0301', 'Zoë', 'मोहन', 'محمد', 'Đặng Thị']) {
      expect(accepted({ beneficiary_name: name })).toBe(true);
    }
  });

  it('refuses styled and full-width look-alikes of plain letters and digits', () => {
    expect(messageFor('beneficiary_name', { beneficiary_name: '𝖩𝖺𝗇𝖾 Roe' })).toBe(
      'beneficiary_name: contains `𝖩` (U+1D5A9), a look-alike of `J` — type the ordinary character',
    );
    expect(messageFor('beneficiary_account', { beneficiary_account: '0001２3456789' })).toBe(
      'beneficiary_account: contains `２` (U+FF12), a look-alike of `2` — type the ordinary character',
    );
  });

  it('refuses a word mixing scripts; words in different scripts, or one script alone, are fine', () => {
    expect(messageFor('beneficiary_name', { beneficiary_name: 'Jаne Roe' })).toBe(
      'beneficiary_name: mixes Latin and Cyrillic letters in `Jаne` (`а` U+0430 is Cyrillic) — a letter from another script makes one word pass for another; write each word in one script',
    );
    for (const sneaky of ['Jane Rое', 'Αlice', 'Ꭺlice', 'Ελένη Smith-Jаne']) {
      expect(messageFor('beneficiary_name', { beneficiary_name: sneaky })).toMatch(
        /^beneficiary_name: mixes /,
      );
    }
    for (const name of [
      'Иван Петров',
      'Ελένη Παππά',
      '山田たろう',
      '김민준',
      'Tシャツ商店',
      "O'Brien-Smith",
      'Jane 🙂',
      'Ελένη Smith',
      'Jane Рое',
    ]) {
      expect(accepted({ beneficiary_name: name })).toBe(true);
    }
  });

  it('names the scripts of a value whose words mix scripts not written together', () => {
    expect(mixedScripts('Ελένη Smith')).toEqual(['Greek', 'Latin']);
    expect(mixedScripts('Jane Рое')).toEqual(['Latin', 'Cyrillic']);
    for (const value of ['Jane Roe', 'Иван Петров', 'Tシャツ商店', '김민준 Kim', '12 Main St']) {
      expect(mixedScripts(value)).toBeUndefined();
    }
  });

  it('ids and bank numbers are plain ASCII: a look-alike letter in one is refused, a backtick is not', () => {
    expect(messageFor('wallet_id', { wallet_id: 'wаl_1' })).toMatch(
      /^wallet_id: mixes Latin and Cyrillic/,
    );
    expect(messageFor('wallet_id', { wallet_id: 'кошелек' })).toBe(
      'wallet_id: `кошелек` contains `к` (U+043A) — an id is written in plain ASCII letters, digits and signs; retype it',
    );
    expect(messageFor('beneficiary_account', { beneficiary_account: 'счет12345' })).toMatch(
      /^beneficiary_account: contains `с` \(U\+0441\) — a bank or wallet number is written in plain ASCII/,
    );
    expect(accepted({ wallet_id: 'wal`1', beneficiary_account: 'DE89 3704 0044' })).toBe(true);
    // Grouped digits slip past the masking of long numbers: a bank number is never echoed.
    const grouped = messageFor('beneficiary_account', {
      beneficiary_account: '1234 5678 9012 345é',
    });
    expect(grouped).toContain('contains `é` (U+00E9)');
    expect(grouped).not.toMatch(/1234|5678|9012/);
  });

  it('puts the intent’s fields in catalogue order, whatever the order given', () => {
    const reversed = Object.fromEntries(Object.entries(PAYOUT).reverse());
    const result = validateWriteFields('createPayout', {}, reversed);
    expect('intent' in result && Object.keys(result.intent.fields)).toEqual(
      OPERATIONS.createPayout.bodyFields,
    );
  });
});

function pathFor(id: WriteOperationId): Record<string, string> {
  return Object.fromEntries(OPERATIONS[id].pathParams.map((name) => [name, 'id_1']));
}

/** Fields that pass validation, for changing one at a time. */
function validFields(id: WriteOperationId): Record<string, string> {
  const sample = (name: string) =>
    name === 'amount'
      ? '10.00'
      : name.endsWith('currency')
        ? 'USD'
        : name === 'country'
          ? 'US'
          : 'x_1';
  return Object.fromEntries(OPERATIONS[id].bodyFields.map((name) => [name, sample(name)]));
}

describe('properties', () => {
  const writeId = fc.constantFrom(...WRITES);
  const anyText = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.constantFrom('1,000', '1e3', '-1', '0', 'USD', 'a/b', '..', ' ', 'x'.repeat(501)),
  );

  it('the validator never throws, and every error names a field', () => {
    fc.assert(
      fc.property(
        writeId,
        fc.dictionary(fc.string({ maxLength: 12 }), anyText),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.option(anyText, { nil: undefined })),
        (id, path, fields) => {
          const bodyFields = Object.fromEntries(
            OPERATIONS[id].bodyFields.map((name) => [name, fields[name] ?? 'x']),
          );
          const result = validateWriteFields(id, path, { ...bodyFields, ...fields });
          for (const error of 'errors' in result ? result.errors.map(worded) : []) {
            expect(typeof error.field).toBe('string');
            expect(error.message.startsWith(`${(error.field as string).slice(0, 40)}`)).toBe(true);
          }
        },
      ),
    );
  });

  it('the parser never throws on a typed field map, and every error names a field', () => {
    const fieldName = fc.oneof(
      fc.constantFrom(...new Set(WRITES.flatMap((id) => OPERATIONS[id].bodyFields))),
      fc.stringMatching(/^[a-z_][a-z0-9_]{0,15}$/),
    );
    const typedValue = anyText.map((text) => text.replace(/["\p{Cc}]/gu, ''));
    fc.assert(
      fc.property(
        writeId,
        fc.array(fc.tuple(fieldName, typedValue), { minLength: 1, maxLength: 10 }),
        (id, pairs) => {
          const text = [
            OPERATIONS[id].command,
            ...OPERATIONS[id].pathParams.map(() => 'id_1'),
            ...pairs.map(([name, value]) => `${name}="${value}"`),
          ].join(' ');
          const parse = parseWriteCommand(text);
          if (parse.kind !== 'invalid') return;
          for (const error of parse.errors) expect(typeof error.field).toBe('string');
        },
      ),
    );
  });

  /** A value each field accepts; free text may carry any visible character, single spaces inside. */
  function validValue(field: string): fc.Arbitrary<string> {
    if (field === 'amount') {
      return fc
        .tuple(
          fc.bigInt({ min: 1n, max: 10n ** 24n }),
          fc.integer({ min: 0, max: MAX_AMOUNT_DECIMALS }),
        )
        .map(([units, scale]) => {
          const digits = units.toString().padStart(scale + 1, '0');
          return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
        })
        .filter((amount) => (amount.split('.')[0] as string).length <= MAX_AMOUNT_WHOLE_DIGITS);
    }
    if (field.endsWith('currency')) return fc.stringMatching(/^[A-Za-z]{3,6}$/);
    if (field === 'country') return fc.stringMatching(/^[A-Za-z]{2}$/);
    if (field.endsWith('_id')) return fc.stringMatching(/^[A-Za-z0-9_.:-]{3,40}$/);
    // Bank and wallet numbers are plain ASCII; quotes end a value.
    if (sensitiveKind(field) === 'banking') return fc.stringMatching(/^[!#-~]{1,40}$/);
    return fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter(
      (text) =>
        text.trim() === text &&
        text !== '' &&
        !text.includes('  ') &&
        // Quotes end a value; other spaces than ' ' and deceptive characters are refused.
        !/["\p{Zs}]/u.test(text.replaceAll(' ', '')) &&
        deceptionProblem(text) === undefined,
    );
  }

  it('intent fields are in catalogue order whatever the typing order, and the body is exactly the typed values', () => {
    const typedWrite = writeId
      .filter((id) => OPERATIONS[id].bodyFields.length > 0)
      .chain((id) =>
        fc.record({
          id: fc.constant(id),
          values: fc.tuple(...OPERATIONS[id].bodyFields.map(validValue)),
          order: fc.shuffledSubarray([...OPERATIONS[id].bodyFields.keys()], {
            minLength: OPERATIONS[id].bodyFields.length,
          }),
        }),
      );
    fc.assert(
      fc.property(typedWrite, ({ id, values, order }) => {
        const spec = OPERATIONS[id];
        const typed = order.map((index) => [
          spec.bodyFields[index] as string,
          values[index] as string,
        ]);
        const text = [
          spec.command,
          ...spec.pathParams.map(() => 'id_1'),
          ...typed.map(([name, value]) => `${name}="${value}"`),
        ].join(' ');
        const parse = parseWriteCommand(text);
        if (parse.kind !== 'intent') throw new Error(JSON.stringify(parse));
        expect(Object.keys(parse.intent.fields)).toEqual(spec.bodyFields);
        const body = bodyText(parse.intent);
        expect(body).toBe(
          JSON.stringify(
            Object.fromEntries(spec.bodyFields.map((name, index) => [name, values[index]])),
          ),
        );
        expect(JSON.parse(body as string)).toEqual(Object.fromEntries(typed));
      }),
    );
  });
});
