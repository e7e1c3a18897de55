import type {
  FileInput,
  InputBlock,
  KnownBlock,
  ModalView,
  PlainTextInput,
  PlainTextOption,
  StaticSelect,
} from '@slack/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isWrite,
  OPERATION_IDS,
  OPERATIONS,
  type WriteOperationId,
} from '../../../src/domain/operations.ts';
import { takesPurpose } from '../../../src/domain/purpose.ts';
import {
  buildRejectReasonModal,
  buildRequestModal,
  type ModalState,
  type Option,
  type RequestModalOptions,
  readModalValues,
} from '../../../src/slack/blocks/request-modal.ts';
import { VIEW } from '../../../src/slack/interaction-ids.ts';
import { parseRequestForm } from '../../../src/slack/private-metadata.ts';
import { factRows } from './slack-message-checks.ts';

const WRITE_IDS = OPERATION_IDS.filter(isWrite);

const options = (prefix: string, count: number): Option[] =>
  Array.from({ length: count }, (_, index) => ({
    value: `${prefix}_${index}`,
    label: `${prefix} ${index}`,
  }));

const LISTS: RequestModalOptions = {
  wallets: options('wal', 3),
  recipients: options('ext', 3),
  corridors: options('cor', 3),
};

/** Slack's limits for a modal (slack-platform-notes §5), restated rather than imported. */
function expectValidModal(view: ModalView): void {
  expect(view.title.text.length).toBeLessThanOrEqual(24);
  expect(view.submit?.text.length ?? 0).toBeLessThanOrEqual(24);
  expect(view.close?.text.length ?? 0).toBeLessThanOrEqual(24);
  expect(view.private_metadata?.length ?? 0).toBeLessThanOrEqual(3000);
  expect(view.blocks.length).toBeLessThanOrEqual(100);
  for (const block of inputsOf(view)) {
    expect(block.block_id?.length).toBeLessThanOrEqual(255);
    expect(block.label.text.length).toBeLessThanOrEqual(2000);
    const element = block.element as PlainTextInput | StaticSelect | FileInput;
    expect(element.action_id?.length).toBeLessThanOrEqual(255);
    if (element.type === 'file_input') {
      expect(element.max_files).toBeGreaterThanOrEqual(1);
      expect(element.max_files).toBeLessThanOrEqual(10);
    } else if (element.type === 'plain_text_input') {
      expect(element.initial_value?.length ?? 0).toBeLessThanOrEqual(3000);
      expect(element.max_length ?? 0).toBeLessThanOrEqual(3000);
    } else {
      const offered = element.options ?? [];
      expect(offered.length).toBeGreaterThan(0);
      expect(offered.length).toBeLessThanOrEqual(100);
      expect(new Set(offered.map((option) => option.value)).size).toBe(offered.length);
      for (const option of offered) {
        expect(option.text.text.length).toBeGreaterThan(0);
        expect(option.text.text.length).toBeLessThanOrEqual(75);
        expect(option.value?.length).toBeLessThanOrEqual(150);
      }
      if (element.initial_option) expect(offered).toContainEqual(element.initial_option);
    }
  }
  const json = JSON.stringify(view);
  expect(json).not.toContain('undefined');
  expect(json).not.toContain('[object Object]');
}

function inputsOf(view: ModalView): InputBlock[] {
  return view.blocks.filter((block): block is InputBlock => block.type === 'input');
}

function input(view: ModalView, field: string): InputBlock {
  const found = inputsOf(view).find((block) => block.block_id === field);
  if (!found) throw new Error(`no input for ${field}`);
  return found;
}

function modal(operationId: WriteOperationId, extra: Partial<RequestModalOptions> = {}) {
  const view = buildRequestModal(operationId, { ...LISTS, ...extra });
  expectValidModal(view);
  return view;
}

/** What Slack would send back in `view.state` for these values typed or chosen. */
function stateFor(view: ModalView, values: Record<string, string>): ModalState {
  const state: ModalState = { values: {} };
  for (const block of inputsOf(view)) {
    const element = block.element as PlainTextInput | StaticSelect;
    const name = block.block_id ?? '';
    const value = values[name];
    state.values[name] = {
      [element.action_id ?? '']:
        element.type === 'static_select'
          ? { type: 'static_select', selected_option: value === undefined ? null : { value } }
          : { type: 'plain_text_input', value: value ?? null },
    };
  }
  return state;
}

describe('buildRequestModal', () => {
  it.each(WRITE_IDS)(
    '%s has exactly one input per catalogue body field, ids = field name, then a money-moving write its purpose and document',
    (operationId) => {
      const view = modal(operationId);
      const fields = [
        ...OPERATIONS[operationId].bodyFields,
        ...(takesPurpose(operationId) ? ['purpose', 'file'] : []),
      ];
      expect(inputsOf(view).map((block) => block.block_id)).toEqual(fields);
      expect(inputsOf(view).map((block) => block.element.action_id)).toEqual(fields);
      expect(view).toMatchObject({
        type: 'modal',
        callback_id: VIEW.request,
        submit: { text: 'Request approval' },
        close: { text: 'Cancel' },
      });
      expect(parseRequestForm(view.private_metadata ?? '')).toEqual({ operationId, path: {} });
    },
  );

  it('the supporting document is an optional file input of one file, read back as its file id', () => {
    const view = modal('createPayout');
    const document = input(view, 'file');
    expect(document).toMatchObject({
      optional: true,
      label: { text: 'Supporting document' },
      element: { type: 'file_input', action_id: 'file', max_files: 1 },
    });
    expect(document.hint?.text).toContain('not sent to the provider');
    expect(inputsOf(modal('createWallet')).map((block) => block.block_id)).not.toContain('file');
    const state: ModalState = {
      values: {
        amount: { amount: { type: 'plain_text_input', value: '10.00' } },
        file: { file: { type: 'file_input', files: [{ id: 'F0INVOICE1' }] } },
      },
    };
    expect(readModalValues(state)).toEqual({ amount: '10.00', file: 'F0INVOICE1' });
    const none: ModalState = { values: { file: { file: { type: 'file_input', files: [] } } } };
    expect(readModalValues(none)).toEqual({});
  });

  it('the purpose input is optional unless required, at most 200 characters, and read back with the fields', () => {
    const optional = input(modal('createPayout'), 'purpose');
    expect(optional).toMatchObject({ optional: true, label: { text: 'Purpose' } });
    expect(optional.hint?.text).toContain('not sent to the provider');
    expect((optional.element as PlainTextInput).max_length).toBe(200);
    const view = modal('createPayout', { purposeRequired: true });
    expect(input(view, 'purpose').optional).toBe(false);
    expect(readModalValues(stateFor(view, { amount: '5.00', purpose: 'Invoice 2291' }))).toEqual({
      amount: '5.00',
      purpose: 'Invoice 2291',
    });
    const prefilled = modal('createPayout', { values: { purpose: 'Invoice 2291' } });
    expect((input(prefilled, 'purpose').element as PlainTextInput).initial_value).toBe(
      'Invoice 2291',
    );
  });

  it('titles fit in 24 characters and say what is requested', () => {
    expect(modal('createPayout').title.text).toBe('Request a payout');
    for (const operationId of WRITE_IDS) expect(modal(operationId).title.text).not.toBe('');
  });

  it('wallet_id, external_account_id and corridor_id are selects filled from the lists', () => {
    const view = modal('createTransfer');
    for (const [field, prefix] of [
      ['wallet_id', 'wal'],
      ['external_account_id', 'ext'],
      ['corridor_id', 'cor'],
    ] as const) {
      const element = input(view, field).element as StaticSelect;
      expect(element.type).toBe('static_select');
      expect(element.options?.map((option) => option.value)).toEqual([
        `${prefix}_0`,
        `${prefix}_1`,
        `${prefix}_2`,
      ]);
    }
  });

  it('an empty list falls back to a text input with a hint to type the id', () => {
    const view = modal('createTransfer', { wallets: [] });
    const block = input(view, 'wallet_id');
    expect(block.element.type).toBe('plain_text_input');
    expect(block.hint?.text).toBe('No wallets could be listed: type the wallet id.');
  });

  it('a select holds at most 100 options and its hint says how many were left out', () => {
    const view = modal('createPayout', { wallets: options('wal', 250) });
    const block = input(view, 'wallet_id');
    expect((block.element as StaticSelect).options).toHaveLength(100);
    expect(block.hint?.text).toContain('Only the first 100 of 250 wallets are listed');
  });

  it('options Slack would refuse are dropped: empty or over-long values, duplicates; labels are cut to 75', () => {
    const view = modal('createPayout', {
      wallets: [
        { value: '', label: 'empty' },
        { value: 'w'.repeat(151), label: 'too long' },
        { value: 'wal_a', label: 'L'.repeat(300) },
        { value: 'wal_a', label: 'again' },
        { value: 'wal_b', label: '   ' },
      ],
    });
    const offered = (input(view, 'wallet_id').element as StaticSelect).options as PlainTextOption[];
    expect(offered.map((option) => option.value)).toEqual(['wal_a', 'wal_b']);
    expect(offered[0]?.text.text).toHaveLength(75);
    expect(offered[1]?.text.text).toBe('wal_b');
  });

  it('hints: amount asks for a decimal, currency fields show an example', () => {
    const view = modal('createPayout');
    expect(input(view, 'amount').hint?.text).toBe('A decimal like 1250.00');
    expect(input(view, 'currency').hint?.text).toBe('e.g. USDC');
    expect(modal('createTransfer').blocks).toContainEqual(
      expect.objectContaining({
        block_id: 'source_currency',
        hint: expect.objectContaining({ text: 'e.g. USDC' }),
      }),
    );
  });

  it('values pre-fill text inputs verbatim and select the matching option', () => {
    const view = modal('createPayout', { values: { amount: '10000.00', wallet_id: 'wal_2' } });
    expect((input(view, 'amount').element as PlainTextInput).initial_value).toBe('10000.00');
    expect((input(view, 'wallet_id').element as StaticSelect).initial_option).toMatchObject({
      value: 'wal_2',
      text: { text: 'wal 2' },
    });
  });

  it('a pre-filled value missing from the list (or past the first 100) is still offered and selected', () => {
    for (const wallet of ['wal_gone', 'wal_180']) {
      const view = modal('createPayout', {
        wallets: options('wal', 200),
        values: { wallet_id: wallet },
      });
      const element = input(view, 'wallet_id').element as StaticSelect;
      expect(element.initial_option?.value).toBe(wallet);
      expect(element.options).toHaveLength(100);
    }
  });

  it('a pre-fill longer than Slack accepts leaves the input empty instead of breaking the modal', () => {
    const view = modal('createPayout', { values: { beneficiary_name: 'x'.repeat(3001) } });
    expect(
      (input(view, 'beneficiary_name').element as PlainTextInput).initial_value,
    ).toBeUndefined();
  });

  it('the path travels in private_metadata and is shown, never cut: too long is a RangeError', () => {
    const view = modal('updateRecipient', { path: { externalAccountId: 'ext_9' } });
    expect(parseRequestForm(view.private_metadata ?? '')).toEqual({
      operationId: 'updateRecipient',
      path: { externalAccountId: 'ext_9' },
    });
    // Shown as plain text, exactly as typed.
    expect(factRows(view.blocks as KnownBlock[])).toEqual([['*externalAccountId*', 'ext_9']]);
    expect(() =>
      buildRequestModal('updateRecipient', {
        ...LISTS,
        path: { externalAccountId: 'e'.repeat(3000) },
      }),
    ).toThrow(RangeError);
  });

  it('a write without body fields gets a modal with no inputs, still within limits', () => {
    const view = modal('deactivateRecipient', { path: { externalAccountId: 'ext_1' } });
    expect(inputsOf(view)).toEqual([]);
    expect(view.blocks.map((block) => block.type)).toEqual(['section', 'section']);
  });
});

describe('readModalValues', () => {
  it('reads text inputs and selects as field → value, exactly as typed (no trimming)', () => {
    const view = modal('createPayout');
    const typed = {
      wallet_id: 'wal_1',
      amount: ' 10000.00 ',
      currency: 'USD',
      destination_type: 'ach',
    };
    expect(readModalValues(stateFor(view, typed))).toEqual(typed);
  });

  it('leaves out empty, null and missing values', () => {
    const state: ModalState = {
      values: {
        amount: { amount: { type: 'plain_text_input', value: '' } },
        currency: { currency: { type: 'plain_text_input', value: null } },
        wallet_id: { wallet_id: { type: 'static_select', selected_option: null } },
        rail: { rail: { type: 'plain_text_input' } },
      },
    };
    expect(readModalValues(state)).toEqual({});
  });

  it('skips a block or an input that is null, as a forged payload may carry', () => {
    const values = readModalValues(
      JSON.parse(
        '{"values": {"note": null, "amount": {"amount": null}, "currency": {"currency": {"type": "plain_text_input", "value": "USDC"}}}}',
      ),
    );
    expect(values).toEqual({ currency: 'USDC' });
  });

  it('a field named __proto__ comes back as an ordinary field, not a prototype', () => {
    const values = readModalValues({
      values: { x: JSON.parse('{"__proto__": {"type": "plain_text_input", "value": "v"}}') },
    });
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
    expect(Object.keys(values)).toEqual(['__proto__']);
  });

  it('property: whatever is typed into any write modal is read back unchanged', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WRITE_IDS),
        fc.array(fc.string({ minLength: 1, maxLength: 50 }), { minLength: 10, maxLength: 10 }),
        (operationId, typed) => {
          const view = modal(operationId, { wallets: [], recipients: [], corridors: [] });
          const values = Object.fromEntries(
            OPERATIONS[operationId].bodyFields.map((field, index) => [field, typed[index] ?? '']),
          );
          expect(readModalValues(stateFor(view, values))).toEqual(values);
        },
      ),
    );
  });
});

describe('parseModalMetadata', () => {
  it.each([
    '',
    'not json',
    'null',
    '[]',
    '"createPayout"',
    '{}',
    '{"operationId":"createPayout"}',
    '{"operationId":"createPayout","path":[]}',
    '{"operationId":"createPayout","path":null}',
    '{"operationId":"listWallets","path":{}}',
    '{"operationId":"toString","path":{}}',
    '{"operationId":"__proto__","path":{}}',
    '{"operationId":"dropTables","path":{}}',
    '{"operationId":42,"path":{}}',
    '{"operationId":"updateRecipient","path":{"externalAccountId":7}}',
    '{"operationId":"updateRecipient","path":{"walletId":"wal_1"}}',
  ])('refuses forged or broken metadata %j', (metadata) => {
    expect(parseRequestForm(metadata)).toBeUndefined();
  });

  it('property: arbitrary text never throws and is accepted only as a write with known path names', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc
            .record({ operationId: fc.constantFrom(...OPERATION_IDS, 'x'), path: fc.jsonValue() })
            .map((value) => JSON.stringify(value)),
        ),
        (metadata) => {
          const parsed = parseRequestForm(metadata);
          if (parsed === undefined) return;
          expect(isWrite(parsed.operationId)).toBe(true);
          for (const [name, value] of Object.entries(parsed.path)) {
            expect(OPERATIONS[parsed.operationId].pathParams).toContain(name);
            expect(typeof value).toBe('string');
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('buildRejectReasonModal', () => {
  it('asks for one required reason of at most 500 characters, with the request id as metadata', () => {
    const view = buildRejectReasonModal(12);
    expectValidModal(view);
    expect(view).toMatchObject({
      callback_id: VIEW.rejectReason,
      private_metadata: '12',
      title: { text: 'Reject request #12' },
      submit: { text: 'Reject' },
    });
    const [reason] = inputsOf(view);
    expect(reason).toMatchObject({
      block_id: 'reason',
      element: { type: 'plain_text_input', action_id: 'reason', multiline: true, max_length: 500 },
    });
    expect(reason?.optional).not.toBe(true);
  });

  it('the title stays within 24 characters for any request number', () => {
    for (const id of [1, 12_345_678, 123_456_789, Number.MAX_SAFE_INTEGER]) {
      const view = buildRejectReasonModal(id);
      expectValidModal(view);
      expect(view.title.text).toContain(String(id).slice(0, 8));
    }
  });
});
