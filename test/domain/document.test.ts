import { describe, expect, it } from 'vitest';
import { bodyText } from '../../src/domain/approval.ts';
import {
  DOCUMENT_FIELD,
  documentName,
  documentSealFact,
  isSlackFileId,
  MAX_DOCUMENT_NAME,
} from '../../src/domain/document.ts';
import { parseWriteCommand, validateWriteFields } from '../../src/domain/write-commands.ts';
import { fieldErrorText } from '../../src/slack/text/commands.ts';
import { EXAMPLE_CALLS, payoutCommand } from '../helpers/payments.ts';

const PAYOUT_FIELDS = EXAMPLE_CALLS.createPayout.body as Record<string, string>;

describe('a supporting document named on a write', () => {
  it('is payops’s own field: taken out of the fields, so the body and its bytes stay the catalogue’s', () => {
    const parsed = parseWriteCommand(payoutCommand({ ...PAYOUT_FIELDS, file: 'F0INVOICE1' }));
    if (parsed.kind !== 'intent') throw new Error(`not an intent: ${JSON.stringify(parsed)}`);
    expect(parsed.intent.documentFileId).toBe('F0INVOICE1');
    expect(parsed.intent.fields).toEqual(PAYOUT_FIELDS);
    expect(bodyText(parsed.intent)).toBe(JSON.stringify(PAYOUT_FIELDS));
    expect(bodyText(parsed.intent)).not.toContain('F0INVOICE1');
  });

  it('is named by a Slack file id, or refused with what to give', () => {
    const result = validateWriteFields(
      'createPayout',
      {},
      {
        ...PAYOUT_FIELDS,
        [DOCUMENT_FIELD]: 'invoice.pdf',
      },
    );
    if (!('errors' in result)) throw new Error('accepted a file name as a file id');
    expect(result.errors.map((error) => error.field)).toEqual([DOCUMENT_FIELD]);
    expect(fieldErrorText('/pay', result.errors[0] as never)).toContain('is not a Slack file id');
    expect(['F0123ABC', 'F07ZZ9QK2'].every(isSlackFileId)).toBe(true);
    expect(['f0123abc', 'F01', 'U0123ABC', 'F0123ABC/x', ''].some(isSlackFileId)).toBe(false);
  });

  it('is a body field like any other on a write that takes no purpose', () => {
    const result = validateWriteFields('createWallet', {}, { chain: 'solana', file: 'F0123ABC' });
    expect('errors' in result && result.errors.map((error) => error.field)).toEqual(['file']);
  });

  it('keeps a file’s name on one line, scrubbed and cut; a seal fact no purpose can spell', () => {
    expect(documentName('Invoice\u0000 2291\n(final).pdf')).toBe('Invoice 2291 (final).pdf');
    expect(documentName('iban 123456789012 copy.pdf')).not.toContain('123456789012');
    expect([...documentName('a'.repeat(500))]).toHaveLength(MAX_DOCUMENT_NAME);
    expect(documentName(' \u0007 ')).toBe('unnamed file');
    expect(documentSealFact({ fileId: 'F0123ABC', sha256: 'ab'.repeat(32) })).toBe(
      `document:F0123ABC:${'ab'.repeat(32)}`,
    );
  });
});
