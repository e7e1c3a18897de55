import { describe, expect, it } from 'vitest';
import {
  filledView,
  formFields,
  initialFormValues,
  missingFields,
  readAnswer,
  readAssignments,
  stateValues,
} from '../../../src/rehearsal/demo/demo-form.ts';
import { viewToText } from '../../../src/rehearsal/demo/to-text.ts';

const plain = (text: string) => ({ type: 'plain_text', text });
const option = (value: string, label = value) => ({ text: plain(label), value });
const input = (blockId: string, element: Record<string, unknown>, extra = {}) => ({
  type: 'input',
  block_id: blockId,
  label: plain(blockId),
  element: { action_id: blockId, ...element },
  ...extra,
});

const view = {
  type: 'modal',
  title: plain('Everything'),
  submit: plain('Send'),
  blocks: [
    { type: 'section', text: plain('Not an input') },
    input('note', { type: 'plain_text_input', initial_value: 'rent' }),
    input('wallet', {
      type: 'static_select',
      options: [option('wal_eth', 'ethereum (wal_eth)'), option('wal_sol', 'solana (wal_sol)')],
    }),
    input(
      'tags',
      { type: 'multi_static_select', options: [option('a'), option('b')] },
      {
        optional: true,
      },
    ),
    input('rail', { type: 'radio_buttons', options: [option('ach'), option('wire')] }),
    input('flags', { type: 'checkboxes', options: [option('x'), option('y')] }, { optional: true }),
    input('count', { type: 'number_input', is_decimal_allowed: false }),
    input('on', { type: 'datepicker', initial_date: '2026-01-02' }),
    input('who', { type: 'users_select' }, { optional: true }),
    input('people', { type: 'multi_users_select' }, { optional: true }),
  ],
};

describe('a modal as a form', () => {
  const fields = formFields(view);

  it('has a field per input, named by its action_id, with its initial values', () => {
    expect(fields.map((field) => field.name)).toEqual([
      'note',
      'wallet',
      'tags',
      'rail',
      'flags',
      'count',
      'on',
      'who',
      'people',
    ]);
    expect(Object.fromEntries(initialFormValues(fields))).toMatchObject({
      note: ['rent'],
      wallet: [],
      on: ['2026-01-02'],
    });
    expect(missingFields(fields, initialFormValues(fields)).map((field) => field.name)).toEqual([
      'wallet',
      'rail',
      'count',
    ]);
  });

  it("sends each element's state in the shape Slack sends it, empty ones included", () => {
    const values = initialFormValues(fields);
    for (const [name, typed] of [
      ['wallet', 'solana'],
      ['tags', 'a, b'],
      ['rail', '2'],
      ['count', '3'],
      ['people', 'U0ALICE,U0BOB'],
    ] as const) {
      const field = fields.find((candidate) => candidate.name === name);
      const answer = field && readAnswer(field, typed);
      if (answer === undefined || 'error' in answer) throw new Error(`${name}: ${typed}`);
      values.set(name, answer);
    }
    expect(stateValues(fields, values)).toEqual({
      note: { note: { type: 'plain_text_input', value: 'rent' } },
      wallet: {
        wallet: { type: 'static_select', selected_option: option('wal_sol', 'solana (wal_sol)') },
      },
      tags: { tags: { type: 'multi_static_select', selected_options: [option('a'), option('b')] } },
      rail: { rail: { type: 'radio_buttons', selected_option: option('wire') } },
      flags: { flags: { type: 'checkboxes', selected_options: [] } },
      count: { count: { type: 'number_input', value: '3' } },
      on: { on: { type: 'datepicker', selected_date: '2026-01-02' } },
      who: { who: { type: 'users_select', selected_user: null } },
      people: { people: { type: 'multi_users_select', selected_users: ['U0ALICE', 'U0BOB'] } },
    });
  });

  it('a choice is its value, its label, the start of one label, or its number; anything else is refused', () => {
    const wallet = fields.find((field) => field.name === 'wallet');
    if (wallet === undefined) throw new Error('no wallet field');
    for (const typed of ['wal_sol', 'SOLANA (wal_sol)', 'sol', '2']) {
      expect(readAnswer(wallet, typed)).toEqual(['wal_sol']);
    }
    expect(readAnswer(wallet, 'polygon')).toEqual({
      error:
        '"polygon" is not one of wallet\'s choices: 1) ethereum (wal_eth), 2) solana (wal_sol).',
    });
  });

  it('name=value on one line: quoted values, unquoted words running on, unknown names refused', () => {
    expect(readAssignments(fields, 'note="two  spaces" count=4 rail=ach')).toEqual([
      ['note', ['two  spaces']],
      ['count', ['4']],
      ['rail', ['ach']],
    ]);
    expect(readAssignments(fields, 'note=Wrong account number count=1')).toEqual([
      ['note', ['Wrong account number']],
      ['count', ['1']],
    ]);
    expect(readAssignments(fields, 'amount=1')).toEqual({
      error:
        'This form has no field amount. Its fields: note, wallet, tags, rail, flags, count, on, who, people.',
    });
    expect(readAssignments(fields, 'hello note=1')).toEqual({
      error: 'Type each field as name=value, e.g. note=…',
    });
  });

  it('renders as filled in', () => {
    const values = initialFormValues(fields);
    values.set('note', ['paid twice']);
    values.set('wallet', ['wal_eth']);
    const lines = viewToText(filledView(view, fields, values)).lines;
    expect(lines).toContain('• note: paid twice');
    expect(lines).toContain(
      '• wallet: one of: ethereum (wal_eth) | solana (wal_sol), chosen: ethereum (wal_eth)',
    );
  });
});
