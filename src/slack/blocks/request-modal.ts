import type {
  InputBlock,
  ModalView,
  PlainTextInput,
  PlainTextOption,
  SectionBlock,
  StaticSelect,
} from '@slack/types';
import { DOCUMENT_FIELD, MAX_DOCUMENT_BYTES } from '../../domain/document.ts';
import { OPERATIONS, type OperationSpec, type WriteOperationId } from '../../domain/operations.ts';
import { MAX_PURPOSE_LENGTH, PURPOSE_FIELD, takesPurpose } from '../../domain/purpose.ts';
import { isRecord } from '../../payments/response-shape.ts';
import { VIEW } from '../interaction-ids.ts';
import { formatRequestForm } from '../private-metadata.ts';
import { FIELD_LABELS, plainText } from './approval-card.ts';
import { code, escapeMrkdwn, factSections, inlineText, literal, section } from './format.ts';

/**
 * The modals of a write request: the form a requester fills in when `/pay <write>` came with
 * no fields, and the reason an approver gives for a rejection. Inputs carry the spec's own
 * field names as block and action ids, so what comes back is `field → value` as typed.
 */

/** A choice offered in a select, read from the provider by the caller. */
export interface Option {
  value: string;
  label: string;
}

export interface RequestModalOptions {
  wallets: Option[];
  recipients: Option[];
  corridors: Option[];
  /** Path parameters already given in the command, e.g. `{ externalAccountId: 'ext_1' }`. */
  path?: Record<string, string> | undefined;
  /** Values to pre-fill, by field name. */
  values?: Record<string, string> | undefined;
  /** Where the command was typed: the requester's answer goes there. */
  channelId?: string | undefined;
  /** Whether a money-moving write's purpose must be given (`PAYOPS_REQUIRE_PURPOSE`). */
  purposeRequired?: boolean | undefined;
  /** The pending request this form edits and resubmits (its values pre-filled). */
  supersedes?: number | undefined;
}

/** What a view_submission carries in `view.state` (slack-platform-notes §2). */
export interface ModalState {
  values: Record<
    string,
    Record<
      string,
      {
        type: string;
        value?: string | null;
        selected_option?: { value: string } | null;
        /** A file input's: the files uploaded with it. */
        files?: Array<{ id?: unknown }> | null;
      }
    >
  >;
}

/** Slack limits (slack-platform-notes §5, Block Kit reference for option values). */
const LIMIT = {
  title: 24,
  button: 24,
  metadata: 3000,
  input: 3000,
  labelOrHint: 2000,
  options: 100,
  optionText: 75,
  optionValue: 150,
  placeholder: 150,
};

const REASON_MAX_LENGTH = 500;

/** Modal titles: at most 24 characters, so each is written out rather than cut from a summary. */
const TITLES: Readonly<Record<WriteOperationId, string>> = {
  createWallet: 'Create a wallet',
  createDepositAccount: 'New deposit account',
  deactivateDepositAccount: 'Deactivate deposit acct',
  reactivateDepositAccount: 'Reactivate deposit acct',
  createRecipient: 'New recipient',
  updateRecipient: 'Update a recipient',
  deactivateRecipient: 'Deactivate a recipient',
  reactivateRecipient: 'Reactivate a recipient',
  createTransfer: 'Request a transfer',
  createCryptoTransfer: 'Crypto transfer',
  createPaymentRoute: 'Crypto payment route',
  createOfframpRoute: 'Off-ramp payment route',
  createPayout: 'Request a payout',
};

type ListName = 'wallets' | 'recipients' | 'corridors';

/** Fields chosen from a list the caller read from the provider. */
const CHOICES: ReadonlyMap<string, { list: ListName; noun: string }> = new Map([
  ['wallet_id', { list: 'wallets', noun: 'wallet' }],
  ['external_account_id', { list: 'recipients', noun: 'recipient' }],
  ['corridor_id', { list: 'corridors', noun: 'corridor' }],
] as const);

const CURRENCY_FIELDS: ReadonlySet<string> = new Set([
  'currency',
  'source_currency',
  'destination_currency',
]);

// ——— the request form ———

/**
 * The form for one write: an input per body field of the catalogue. The operation and the path
 * travel in `private_metadata`; a path too long to fit there (3000 characters) is refused with
 * a RangeError rather than cut, since a cut id would name another thing.
 */
export function buildRequestModal(
  operationId: WriteOperationId,
  options: RequestModalOptions,
): ModalView {
  const spec: OperationSpec = OPERATIONS[operationId];
  const path = options.path ?? {};
  const values = options.values ?? {};
  const { supersedes } = options;
  const metadata = formatRequestForm({
    operationId,
    path,
    channelId: options.channelId,
    supersedes,
  });
  if (metadata.length > LIMIT.metadata) {
    throw new RangeError(
      `The path parameters are too long for a modal (${metadata.length} of ${LIMIT.metadata} characters).`,
    );
  }
  return {
    type: 'modal',
    callback_id: VIEW.request,
    private_metadata: metadata,
    title: plainText(
      supersedes === undefined ? TITLES[operationId] : `Edit request #${supersedes}`,
      LIMIT.title,
    ),
    submit: plainText(supersedes === undefined ? 'Request approval' : 'Resubmit', LIMIT.button),
    close: plainText('Cancel', LIMIT.button),
    blocks: [
      ...introBlocks(spec, path),
      ...(supersedes === undefined
        ? []
        : [
            section(
              `Submitting makes a new request that replaces #${supersedes}: a new fingerprint, approvals from zero, and its approvers shown what you changed. Banking numbers are not shown again: type them again.`,
            ),
          ]),
      ...spec.bodyFields.map((name) =>
        fieldInput(name, Object.hasOwn(values, name) ? values[name] : undefined, options),
      ),
      ...(takesPurpose(operationId)
        ? [purposeInput(values, options.purposeRequired === true), documentInput(supersedes)]
        : []),
    ],
  };
}

/** The purpose: payops's own field, last and apart from the body's, which are sent. */
function purposeInput(values: Readonly<Record<string, string>>, required: boolean): InputBlock {
  const initial = Object.hasOwn(values, PURPOSE_FIELD) ? values[PURPOSE_FIELD] : undefined;
  return {
    type: 'input',
    block_id: PURPOSE_FIELD,
    label: plainText('Purpose', LIMIT.labelOrHint),
    element: textElement(PURPOSE_FIELD, initial, MAX_PURPOSE_LENGTH),
    hint: plainText(
      'What it pays for, e.g. Invoice 2291. Approvers see it; it is not sent to the provider.',
      LIMIT.labelOrHint,
    ),
    optional: !required,
  };
}

/**
 * A supporting document, optional: one file, read by payops once when the form is submitted
 * (src/domain/document.ts). Slack's file input needs the `files:read` scope.
 */
function documentInput(supersedes: number | undefined): InputBlock {
  const kept =
    supersedes === undefined ? '' : ` Left empty, the document of #${supersedes} is kept.`;
  return {
    type: 'input',
    block_id: DOCUMENT_FIELD,
    label: plainText('Supporting document', LIMIT.labelOrHint),
    element: { type: 'file_input', action_id: DOCUMENT_FIELD, max_files: 1 },
    hint: plainText(
      `An invoice or a contract, at most ${MAX_DOCUMENT_BYTES / (1024 * 1024)} MB. Approvers see its name, a link and its SHA-256; it is not sent to the provider.${kept}`,
      LIMIT.labelOrHint,
    ),
    optional: true,
  };
}

/** What is asked, then the path parameters already given, shown exactly as typed. */
function introBlocks(spec: OperationSpec, path: Readonly<Record<string, string>>): SectionBlock[] {
  const given = spec.pathParams.map((name) => ({
    label: `*${escapeMrkdwn(name)}*`,
    value: Object.hasOwn(path, name) ? literal(path[name] as string) : literal('(not given)'),
  }));
  return [
    section(
      `*${inlineText(spec.summary)}* ${code(`${spec.method} ${spec.path}`, 120)}\npayops sends exactly what you enter. Nothing is sent until another person approves it.`,
    ),
    ...factSections(given),
  ];
}

function fieldInput(
  name: string,
  initial: string | undefined,
  options: RequestModalOptions,
): InputBlock {
  const choice = CHOICES.get(name);
  const listed = choice ? options[choice.list] : [];
  const offered = choice ? selectOptions(listed, initial) : [];
  const label = FIELD_LABELS.get(name);
  const element =
    choice && offered.length > 0
      ? selectElement(name, choice.noun, offered, initial)
      : textElement(name, initial);
  return {
    type: 'input',
    block_id: name,
    label: plainText(
      label && label.toLowerCase() !== name ? `${label} (${name})` : name,
      LIMIT.labelOrHint,
    ),
    element,
    hint: plainText(hintFor(name, listed.length, offered.length), LIMIT.labelOrHint),
  };
}

function hintFor(name: string, listed: number, offered: number): string {
  const choice = CHOICES.get(name);
  if (choice && offered === 0) {
    return `No ${choice.noun}s could be listed: type the ${choice.noun} id.`;
  }
  if (choice && listed > LIMIT.options) {
    return `Only the first ${LIMIT.options} of ${listed} ${choice.noun}s are listed; for another one, run the command with ${name}=…`;
  }
  if (name === 'amount') return 'A decimal like 1250.00';
  if (CURRENCY_FIELDS.has(name)) return 'e.g. USDC';
  return `Sent as ${name}, exactly as typed.`;
}

function textElement(
  name: string,
  initial: string | undefined,
  maxLength = LIMIT.input,
): PlainTextInput {
  const element: PlainTextInput = {
    type: 'plain_text_input',
    action_id: name,
    max_length: maxLength,
  };
  // Slack refuses the whole view over an initial value that is too long; the field is left empty.
  if (initial !== undefined && initial !== '' && initial.length <= maxLength) {
    element.initial_value = initial;
  }
  return element;
}

function selectElement(
  name: string,
  noun: string,
  offered: PlainTextOption[],
  initial: string | undefined,
): StaticSelect {
  const element: StaticSelect = {
    type: 'static_select',
    action_id: name,
    placeholder: plainText(`Choose a ${noun}`, LIMIT.placeholder),
    options: offered,
  };
  const chosen = offered.find((option) => option.value === initial);
  if (chosen) element.initial_option = chosen;
  return element;
}

/**
 * At most 100 options, with distinct values Slack accepts. The pre-filled value comes first,
 * even when the list did not hold it, so it is never silently replaced by another choice.
 */
function selectOptions(listed: readonly Option[], initial: string | undefined): PlainTextOption[] {
  const usable = (value: string) => value !== '' && value.length <= LIMIT.optionValue;
  const byValue = new Map<string, Option>();
  if (initial !== undefined && usable(initial)) {
    byValue.set(
      initial,
      listed.find((item) => item.value === initial) ?? { value: initial, label: initial },
    );
  }
  for (const item of listed) {
    if (usable(item.value) && !byValue.has(item.value)) byValue.set(item.value, item);
  }
  return [...byValue.values()].slice(0, LIMIT.options).map((item) => ({
    text: plainText(item.label.trim() === '' ? item.value : item.label, LIMIT.optionText),
    value: item.value,
  }));
}

/**
 * `field → value` exactly as typed or chosen; empty inputs are left out. The state comes in a
 * payload, so a block or input that is not an object (`null`) is skipped, not read.
 */
export function readModalValues(state: ModalState): Record<string, string> {
  const entries: Array<[string, string]> = [];
  for (const block of Object.values(state.values)) {
    if (!isRecord(block)) continue;
    for (const [field, input] of Object.entries(block)) {
      if (!isRecord(input)) continue;
      const value =
        input.type === 'static_select'
          ? input.selected_option?.value
          : input.type === 'file_input'
            ? input.files?.[0]?.id
            : input.value;
      if (typeof value === 'string' && value !== '') entries.push([field, value]);
    }
  }
  // fromEntries defines own properties: a field named `__proto__` stays a field.
  return Object.fromEntries(entries);
}

// ——— rejecting ———

/** Asks the rejecting approver why; the requester reads the reason in the thread. */
export function buildRejectReasonModal(requestId: number): ModalView {
  const full = `Reject request #${requestId}`;
  return {
    type: 'modal',
    callback_id: VIEW.rejectReason,
    private_metadata: String(requestId),
    title: plainText(full.length <= LIMIT.title ? full : `Reject #${requestId}`, LIMIT.title),
    submit: plainText('Reject', LIMIT.button),
    close: plainText('Back', LIMIT.button),
    blocks: [
      {
        type: 'input',
        block_id: 'reason',
        label: plainText('Why is it rejected?', LIMIT.labelOrHint),
        element: {
          type: 'plain_text_input',
          action_id: 'reason',
          multiline: true,
          max_length: REASON_MAX_LENGTH,
        },
        hint: plainText(
          'The requester sees this in the approval message and its thread.',
          LIMIT.labelOrHint,
        ),
      },
    ],
  };
}

// ——— asking ———

/** Asks an approver's question; the requester reads it in the request's thread. */
export function buildAskQuestionModal(requestId: number): ModalView {
  return {
    type: 'modal',
    callback_id: VIEW.askQuestion,
    private_metadata: String(requestId),
    title: plainText(`Ask about #${requestId}`, LIMIT.title),
    submit: plainText('Ask', LIMIT.button),
    close: plainText('Back', LIMIT.button),
    blocks: [
      {
        type: 'input',
        block_id: 'question',
        label: plainText('Your question for the requester', LIMIT.labelOrHint),
        element: {
          type: 'plain_text_input',
          action_id: 'question',
          multiline: true,
          max_length: REASON_MAX_LENGTH,
        },
        hint: plainText(
          'Posted in the request’s thread, mentioning its requester. The request stays pending.',
          LIMIT.labelOrHint,
        ),
      },
    ],
  };
}

/**
 * A modal holding one line of text, no submit button: what a form opens as while payops reads
 * what it needs (a trigger_id lives about 3 s), or what it becomes when the person may not go on.
 */
export function buildNoticeModal(text: string): ModalView {
  return {
    type: 'modal',
    title: plainText('payops', LIMIT.title),
    close: plainText('Close', LIMIT.button),
    blocks: [section(text)],
  };
}
