import type {
  ActionsBlock,
  Button,
  ConfirmationDialog,
  KnownBlock,
  PlainTextElement,
  SectionBlock,
} from '@slack/types';
import {
  fieldsOf,
  type LimitRaise,
  outcomeSettled,
  type PaymentRequest,
  type PreflightCheck,
  type ProviderOutcome,
  type Reconciliation,
  type Replaced,
  type RequestStatus,
  type WindowRaise,
} from '../../domain/approval.ts';
import type { ProviderFollow, StatusOutcome } from '../../domain/follow.ts';
import { maskAccount, maskLongNumbers, sensitiveKind } from '../../domain/masking.ts';
import { OPERATIONS } from '../../domain/operations.ts';
import type { PayeeCheck } from '../../domain/payee.ts';
import { PURPOSE_FIELD } from '../../domain/purpose.ts';
import { waitingOnRequester } from '../../domain/resubmit.ts';
import { mixedScripts, scriptsOf } from '../../domain/write-commands.ts';
import { ACTION, approveButtonValue } from '../interaction-ids.ts';
import { documentLine } from '../text/documents.ts';
import { reconciliationDetailText } from '../text/list-findings.ts';
import { findingText } from '../text/preflight.ts';
import { stepsText } from './approval-steps.ts';
import { followNoticeText, providerStatusLine } from './follow-lines.ts';
import {
  amountText,
  code,
  context as contextBlock,
  counted,
  dateText,
  endSentence,
  escapeMrkdwn,
  type Fact,
  factSections,
  freeText,
  header,
  inlineText,
  joinWithin,
  literal,
  type SlackMessage,
  section,
  sectionsOfLines,
  textWithMentions,
  truncate,
} from './format.ts';

/**
 * The approval message and what the requester is told about it. An approver decides from
 * this message alone, so it states exactly what will be sent: every field of the body, amounts
 * with their exact digits, banking numbers masked `••••1234`, and the payload's fingerprint.
 * Buttons are there only while the request can still be approved.
 */

export interface FreezeNotice {
  reason: string;
  /** Slack user id of who froze payments. */
  by: string;
  /** ISO timestamp. */
  at: string;
}

/** Names the store does not hold, looked up by the caller (wallet list, recipient record). */
export interface CardLabels {
  recipientName?: string | undefined;
  walletLabel?: string | undefined;
  payee?: PayeeCheck | undefined;
  checks?: PreflightCheck[] | undefined;
  windowRaised?: WindowRaise | undefined;
  limitRaised?: LimitRaise | undefined;
  replaces?: Replaced | undefined;
  /** The edited request that replaced it, once superseded. */
  supersededBy?: number | undefined;
}

export interface ApprovalCardContext {
  /** The slash command as configured, for the lines that name one. */
  command: string;
  freeze?: FreezeNotice | undefined;
  /** A pending request past its expiry time is shown without buttons: it can no longer be approved. */
  now: Date;
  labels?: CardLabels | undefined;
}

/**
 * Body fields an approver reads on a line of their own, under these names. (Maps, not object
 * literals: a field named `__proto__` or `constructor` must not find a label.)
 */
export const FIELD_LABELS: ReadonlyMap<string, string> = new Map([
  ['amount', 'Amount'],
  ['wallet_id', 'Wallet'],
  ['external_account_id', 'Recipient'],
  ['beneficiary_name', 'Beneficiary'],
  ['account_owner_name', 'Account owner'],
  ['beneficiary_account', 'Account'],
  ['beneficiary_routing', 'Routing'],
  ['account_number', 'Account number'],
  ['routing_number', 'Routing number'],
  ['destination_address', 'Destination address'],
  ['corridor_id', 'Corridor'],
  ['destination_type', 'Rail'],
  ['destination_payment_rail', 'Rail'],
]);

/** Path parameters name what an operation acts on; said like the body field of the same thing. */
const PATH_LABELS: ReadonlyMap<string, string> = new Map([
  ['externalAccountId', 'Recipient'],
  ['virtualAccountId', 'Deposit account'],
  ['walletId', 'Wallet'],
]);

/** Spec part 2: a payout's currency is `currency`, a transfer's is `source_currency`. */
const AMOUNT_CURRENCY_FIELDS = ['currency', 'source_currency'];

/** Banking fields in the order the confirm dialog looks for "the account" of a recipient. */
const RECIPIENT_ACCOUNT_FIELDS = ['beneficiary_account', 'account_number', 'destination_address'];

/**
 * Far more values, and far more text, than any request payops accepts has (at most 10 values,
 * 1,500 characters in all): a stored request with more was not made through payops' checks,
 * and what does not fit is counted rather than shown.
 */
const MAX_FACTS = 40;
const MAX_FACTS_TEXT = 6000;
/** A purpose whole (at most 200 characters, each `&` `<` `>` escaped to up to 4). */
const PURPOSE_SHOWN = 1_000;
/** Confirm dialog limits (Block Kit reference): title 100, text 300, buttons 30. */
const CONFIRM = { title: 100, text: 300, button: 30 };

// ——— the approval message ———

export function renderApprovalCard(
  request: PaymentRequest,
  context: ApprovalCardContext,
): SlackMessage {
  const labels = context.labels ?? {};
  const blocks: KnownBlock[] = [header(requestTitle(request))];
  if (context.freeze && freezeStops(request)) {
    blocks.push(section(freezeBanner(context.freeze, context.command)));
  }
  blocks.push(section(statusText(request, context.command, context.now)));
  const steps = stepsText(request);
  if (steps) blocks.push(section(steps));
  if (request.follow) blocks.push(section(providerStatusLine(request.follow)));
  blocks.push(...requestBlocks(request, labels));
  if (labels.replaces) blocks.push(section(replacesText(labels.replaces)));
  // What the approver should check before deciding goes once it is decided (or past deciding):
  // left on, a "check it before approving" would read as still to do.
  const deciding = canBeApproved(request, context.now);
  if (labels.payee) blocks.push(section(payeeText(labels.payee, { deciding })));
  if (deciding) blocks.push(...approverWarnings(request, labels));
  if (deciding) blocks.push(decisionButtons(request, labels));
  blocks.push(contextBlock([`Payload fingerprint ${code(request.fingerprint)}`]));
  return { text: fallbackText(request), blocks };
}

/**
 * The payee's tag, which tells two accounts with the same last digits apart, and what this
 * deployment's history says of it: a destination never paid, a name now paid elsewhere.
 */
export function payeeText(payee: PayeeCheck, { deciding }: { deciding: boolean }): string {
  const lines = [`*Payee tag:* ${code(payee.tag)} _(the same account always shows the same tag)_`];
  if (payee.recipientUnread) {
    lines.push(
      "_The recipient's account could not be read from the provider, so this tag is its id's: the same account paid under its number shows another tag._",
    );
  }
  if (!deciding) return lines.join('\n');
  if (payee.newPayee) {
    lines.push(
      ':warning: *New payee:* payops has never paid this destination. Check it with the requester before approving.',
    );
  }
  if (payee.changedFrom.length > 0) {
    const tags = payee.changedFrom
      .slice(0, 5)
      .map((tag) => code(tag))
      .join(', ');
    lines.push(
      `:warning: *Changed details:* this name was paid before at another destination (${tags}). Confirm the new details out of band before approving.`,
    );
  }
  return lines.join('\n');
}

/** Mixed scripts, the checks made when it was requested, a policy window that added up. */
function approverWarnings(request: PaymentRequest, labels: CardLabels): SectionBlock[] {
  const scripts = mixedScriptsText(request);
  return [
    ...(scripts ? [section(scripts)] : []),
    ...(labels.checks?.length ? [section(checksText(labels.checks))] : []),
    ...(labels.windowRaised ? [section(windowText(labels.windowRaised))] : []),
    ...(labels.limitRaised ? [section(limitText(labels.limitRaised))] : []),
  ];
}

/**
 * Values whose words are in scripts not written together (`Ελένη Smith`): accepted, as honest
 * names are, with their scripts named so the approver looks for a look-alike word.
 */
function mixedScriptsText(request: PaymentRequest): string | undefined {
  const values = [
    ...Object.entries(request.path).map(([name, value]) => [PATH_LABELS.get(name) ?? name, value]),
    ...Object.entries(fieldsOf(request)).map(([name, value]) => [
      FIELD_LABELS.get(name) ?? name,
      value,
    ]),
  ];
  const lines = values.flatMap(([label = '', value]) => {
    const scripts = mixedScripts(textOf(value));
    return scripts
      ? [
          `:warning: *${inlineText(label, 60)}:* mixes scripts: ${scripts.join(', ')} — check for look-alike letters before approving.`,
        ]
      : [];
  });
  return lines.length > 0 ? lines.join('\n') : undefined;
}

const CHECK_MARKS = {
  passed: ':white_check_mark:',
  failed: ':warning:',
  unchecked: ':grey_question:',
};
const CHECK_NAMES = {
  wallet: 'Wallet',
  balance: 'Balance',
  recipient: 'Recipient',
  corridor: 'Corridor',
  rail: 'Rail',
} as const;

/**
 * What payops checked by reading when the request was made, each passed, failed (a warning:
 * the approver decides) or not checked, with why.
 */
export function checksText(checks: readonly PreflightCheck[]): string {
  const lines = checks.map((check) => {
    const verdict = check.outcome === 'unchecked' ? 'could not check: ' : '';
    return `${CHECK_MARKS[check.outcome]} *${CHECK_NAMES[check.name]}:* ${verdict}${freeText(findingText(check.finding), 200)}`;
  });
  return [`*Checked when requested:*`, ...lines].join('\n');
}

/** A policy window added earlier requests to this payee: one payment may have been split. */
/** The requester limit a request went past, with the sums it counted. */
export function limitText(raised: LimitRaise): string {
  return `:warning: *Over the requester's limit:* with ${counted(raised.requests, 'earlier request')} from the same requester to any payee in the last ${inlineText(raised.window, 16)}, the total ${amountText(raised.total, raised.currencies.join('/'))} is over the limit of ${amountText(raised.limit)} one requester may request, which raised the approvals needed.`;
}

export function windowText(raised: WindowRaise): string {
  return `:warning: *Adds up:* with ${counted(raised.requests, 'earlier request')} from the same requester to this payee in the last ${inlineText(raised.window, 16)}, the total ${amountText(raised.total, raised.currencies.join('/'))} reaches ${amountText(raised.threshold)}, which raised the approvals needed.`;
}

/**
 * An edited request names the one it replaces and each value changed, masked as the card shows
 * them (the changes were stored so), so the approver sees what the edit did.
 */
export function replacesText(replaced: Replaced): string {
  const label = (field: string) =>
    field === PURPOSE_FIELD
      ? 'Purpose'
      : (FIELD_LABELS.get(field) ?? PATH_LABELS.get(field) ?? field);
  const value = (shown: string | undefined) => (shown === undefined ? '_none_' : code(shown, 120));
  const lines = replaced.changes
    .slice(0, MAX_FACTS)
    .map(
      (change) =>
        `• *${inlineText(label(change.field), 60)}:* ${value(change.before)} → ${value(change.after)}`,
    );
  const what =
    lines.length === 0 ? 'nothing changed but its fingerprint and approvals.' : 'what changed:';
  return [
    `:pencil2: *Replaces #${replaced.id}*, edited and resubmitted by its requester; approvals start again. ${what}`,
    ...lines,
  ].join('\n');
}

/** `#12 · Create a payout · 10000.00 USD`, plain text for headers. */
export function requestTitle(request: PaymentRequest): string {
  const amount = amountOf(fieldsOf(request));
  const parts = [`#${request.id}`, OPERATIONS[request.operationId].summary];
  if (amount) parts.push(truncate(plainLine(`${amount.amount} ${amount.currency ?? ''}`), 80));
  return parts.join(' · ');
}

/**
 * Pending, or claimed and not yet sent: what a freeze stops. A decided request's message does not
 * say "frozen": only pending messages are redrawn at an unfreeze, so it would say so for good.
 */
function freezeStops(request: PaymentRequest): boolean {
  return request.status === 'pending' || request.status === 'executing';
}

/** Pending and not yet past its expiry time: the only state in which Approve can succeed. */
function canBeApproved(request: PaymentRequest, now: Date | undefined): boolean {
  return request.status === 'pending' && !pastExpiry(request, now);
}

function pastExpiry(request: PaymentRequest, now: Date | undefined): boolean {
  const expires = Date.parse(request.expiresAt);
  return now !== undefined && !Number.isNaN(expires) && now.getTime() >= expires;
}

function freezeBanner(freeze: FreezeNotice, command: string): string {
  const reason = freeText(freeze.reason, 500) || '_no reason given_';
  return `:octagonal_sign: *Payments are frozen* by ${person(freeze.by)} ${when(freeze.at)}: ${reason} — approvals that would execute are refused until \`${command} unfreeze\`.`;
}

function fallbackText(request: PaymentRequest): string {
  const amount = amountOf(fieldsOf(request));
  const what = amount ? ` of ${truncate(amountText(amount.amount, amount.currency), 80)}` : '';
  const summary = escapeMrkdwn(OPERATIONS[request.operationId].summary);
  return `#${request.id} ${summary}${what} requested by ${person(request.requesterId)}: ${statusWords(request)}`;
}

/** A few words per status, for fallback texts and lists. */
export function statusWords(request: PaymentRequest): string {
  if (stoppedBeforeSending(request)) return STOPPED_WORDS;
  const settled = request.status === 'submitted' ? settledStatus(request.follow) : undefined;
  return settled
    ? `${SETTLED[settled.outcome].words} at the provider: ${inlineText(settled.status, 40)}`
    : STATUS_WORDS[request.status];
}

const STATUS_WORDS: Readonly<Record<RequestStatus, string>> = {
  pending: 'waiting for approval',
  executing: 'executing',
  submitted: 'submitted to the provider, not settled',
  failed: 'refused by the provider, not executed',
  unknown: 'outcome unknown, do not resubmit',
  rejected: 'rejected',
  cancelled: 'cancelled',
  expired: 'expired',
  superseded: 'superseded by an edited request',
};
const STOPPED_WORDS = 'stopped by payops before sending, nothing sent';

/**
 * A failed write the provider never answered: payops stopped it before the call (a balance
 * re-check, a payload that no longer matches its seal, a freeze, a lost claim) or it never left
 * this process. Only an answer (an HTTP status) is evidence that the provider refused it.
 */
export function stoppedBeforeSending(request: Pick<PaymentRequest, 'status' | 'outcome'>): boolean {
  return request.status === 'failed' && !Number.isInteger(request.outcome?.status);
}

// ——— what exactly is asked ———

/**
 * The request's facts: who asked, the operation and its purpose, then every path parameter and
 * body field in a table whose values are plain text, so each reads exactly as it is sent
 * (banking numbers masked). A value with letters of another script than Latin says so next to
 * its name. The purpose is not a value sent: it is shown apart from them.
 */
export function requestBlocks(request: PaymentRequest, labels: CardLabels = {}): SectionBlock[] {
  const spec = OPERATIONS[request.operationId];
  const lines = [
    `*Requested by:* ${person(request.requesterId)} ${when(request.createdAt)}`,
    `*Operation:* ${inlineText(spec.summary)} ${code(`${spec.method} ${spec.path}`, 120)}`,
    ...(request.purpose === undefined ? [] : [purposeLine(request.purpose)]),
    ...(request.document === undefined ? [] : [documentLine(request.document)]),
  ];
  const facts = requestValues(request, labels);
  const shown = fitting(facts);
  if (facts.length === 0) {
    lines.push('_No body and no parameters: the operation is sent as it is._');
  } else if (shown.length < facts.length) {
    lines.push(
      `_${counted(facts.length - shown.length, 'more value')} not shown: this request did not pass payops' checks; reject it._`,
    );
  }
  return [...sectionsOfLines(lines), ...factSections(shown)];
}

/** What the requester said the money is for; not sent to the provider, so the card says so. */
export function purposeLine(purpose: string): string {
  return `*Purpose:* ${freeText(purpose, PURPOSE_SHOWN)} _(payops's own record; not sent to the provider)_`;
}

/** The first facts, as many as fit in `MAX_FACTS` and `MAX_FACTS_TEXT`. */
function fitting(facts: readonly Fact[]): Fact[] {
  let room = MAX_FACTS_TEXT;
  const shown: Fact[] = [];
  for (const each of facts.slice(0, MAX_FACTS)) {
    room -= each.label.length + each.value.text.length;
    if (room < 0) break;
    shown.push(each);
  }
  return shown;
}

function requestValues(request: PaymentRequest, labels: CardLabels): Fact[] {
  const fields = fieldsOf(request);
  const facts: Fact[] = [];
  for (const [name, value] of Object.entries(request.path)) {
    facts.push(fact(PATH_LABELS.get(name) ?? name, fieldValue(name, value, labels)));
  }
  const amount = amountOf(fields);
  if (amount) facts.push(fact('Amount', plainLine(`${amount.amount} ${amount.currency ?? ''}`)));
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'amount' || (amount && name === amount.currencyField)) continue;
    facts.push(fact(FIELD_LABELS.get(name) ?? name, fieldValue(name, value, labels)));
  }
  return facts;
}

function fact(label: string, shown: string): Fact {
  const scripts = scriptsOf(shown).filter((script) => script !== 'Latin');
  const flag = scripts.length > 0 ? ` _(${scripts.join(', ')} letters)_` : '';
  return { label: `*${inlineText(label, 60) || '(no name)'}*${flag}`, value: literal(shown) };
}

interface Amount {
  amount: string;
  currency: string | undefined;
  /** The body field the currency came from, so it is not listed a second time. */
  currencyField: string | undefined;
}

/** The body's `amount` with its currency, as the requester wrote them. */
export function amountOf(fields: Readonly<Record<string, unknown>>): Amount | undefined {
  if (!Object.hasOwn(fields, 'amount')) return undefined;
  const currencyField = AMOUNT_CURRENCY_FIELDS.find((name) => Object.hasOwn(fields, name));
  return {
    amount: textOf(fields.amount),
    currency: currencyField === undefined ? undefined : textOf(fields[currencyField]),
    currencyField,
  };
}

/** One field's value as shown: banking numbers masked, ids with the name people know. */
function fieldValue(name: string, value: unknown, labels: CardLabels): string {
  // A long run of digits where no banking number belongs (an id typed as an account number)
  // is masked all the same: the card must never carry one whole.
  const text = maskLongNumbers(textOf(value));
  const kind = sensitiveKind(name);
  if (name === 'destination_address') return abbreviatedAddress(textOf(value));
  if (kind === 'banking') return maskAccount(textOf(value));
  if (kind === 'secret') return '(hidden)';
  if (name === 'wallet_id' || name === 'walletId') return named(labels.walletLabel, text);
  if (name === 'external_account_id' || name === 'externalAccountId') {
    return named(labels.recipientName, text);
  }
  return text;
}

/**
 * A crypto destination as its first and last 8 characters: an approver can check it against
 * the intended address, and a look-alike (address poisoning copies the ends a wallet shows,
 * usually 4–6 characters) would need 16 matching characters — out of reach. One of 20 characters
 * or fewer (a name such as `treasury.eth`) is shown whole: cut to its tail, two would look alike.
 */
function abbreviatedAddress(address: string): string {
  return address.length > 20 ? `${address.slice(0, 8)}…${address.slice(-8)}` : address;
}

/** `wal_1 (Acme payroll)`: the id that is sent, then the name people know it by. */
function named(label: string | undefined, id: string): string {
  const name = label === undefined ? '' : plainLine(label);
  return name === '' ? id : `${id} (${name})`;
}

/** Body values are strings (payops stores them so); anything else is shown as its JSON. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

// ——— what happened ———

/** What state the request is in, who did it and when: mrkdwn, one to three lines. */
export function statusText(request: PaymentRequest, command: string, now?: Date): string {
  if (request.status === 'pending' && pastExpiry(request, now)) {
    return `:hourglass: *Past its expiry time* (${when(request.expiresAt)}) with ${approvalsText(request)}: it can no longer be approved.`;
  }
  if (stoppedBeforeSending(request)) {
    return `:octagonal_sign: *payops stopped it before sending: nothing was sent.* Approved by ${approvers(request)}; stopped ${when(request.updatedAt)}.${detailLine(request.outcome)}`;
  }
  return STATUS_TEXTS[request.status](request, command);
}

const STATUS_TEXTS: Readonly<
  Record<RequestStatus, (request: PaymentRequest, command: string) => string>
> = {
  pending: (request) =>
    [
      `*Waiting for approval:* ${approvalsText(request)}. Expires ${when(request.expiresAt)}.`,
      ...waitingLine(request),
    ].join('\n'),
  executing: (request) =>
    `:arrows_counterclockwise: *Executing* — do not act on it elsewhere. Approved by ${approvers(request)}; payops is making its one call to the provider.`,
  submitted: (request) => {
    const settled = settledStatus(request.follow);
    const state = settled
      ? `${SETTLED[settled.outcome].headline} ${code(settled.status)}.`
      : ':white_check_mark: *Submitted to the provider, not settled.*';
    return `${state} Approved by ${approvers(request)}, sent ${when(request.updatedAt)}.${detailLine(latestOutcome(request))}`;
  },
  failed: (request) =>
    `:x: *The provider refused it: nothing was executed.* Approved by ${approvers(request)}, sent ${when(request.updatedAt)}.${detailLine(request.outcome)}`,
  unknown: (request, command) =>
    [
      `:warning: *Outcome unknown — do NOT resubmit.* Approved by ${approvers(request)}, sent ${when(request.updatedAt)}; the provider may or may not have executed it.${detailLine(latestOutcome(request))}`,
      reconciliationText(request.reconciliation, request.follow),
      outcomeSettled(request.reconciliation)
        ? 'A new attempt needs a new request and a new approval.'
        : `The same write cannot be requested again until payops finds it at the provider or an approver who looked there says what happened: \`${command} resolve ${request.id} executed|not-executed &lt;what you checked&gt;\`.`,
    ].join('\n'),
  rejected: (request) =>
    `:no_entry_sign: *Rejected* by ${decider(request)} ${when(request.updatedAt)}: ${reasonText(request)}`,
  cancelled: (request) =>
    `*Cancelled* by the requester ${person(request.decidedBy ?? request.requesterId)} ${when(request.updatedAt)}.`,
  expired: (request) =>
    `:hourglass: *Expired* ${when(request.expiresAt)} with ${approvalsText(request)}: it can no longer be approved.`,
  superseded: (request) =>
    `:leftwards_arrow_with_hook: *Superseded* ${when(request.updatedAt)} by ${replacement(request)}, edited and resubmitted by its requester: it can no longer be approved, and nothing was sent.`,
};

/** An approver's question the requester has not yet been answered past: no approval since. */
function waitingLine(request: PaymentRequest): string[] {
  const question = waitingOnRequester(request);
  if (!question) return [];
  return [
    `:question: *Waiting on the requester* ${person(request.requesterId)}: ${person(question.by)} asked ${when(question.at)}: ${freeText(question.text, 600)}`,
  ];
}

function replacement(request: PaymentRequest): string {
  const by = request.labels?.supersededBy;
  return by === undefined ? 'an edited request' : `request #${by}`;
}

/** `1 of 2: <@U1>`. */
function approvalsText(request: PaymentRequest): string {
  const count = `${request.approvals.length} of ${request.requiredApprovals} approvals`;
  return request.approvals.length === 0 ? count : `${count} (${approvers(request)})`;
}

function approvers(request: PaymentRequest): string {
  const people = request.approvals.map((approval) => person(approval.userId));
  return joinWithin(people, ', ', 600) || '_nobody recorded_';
}

function decider(request: PaymentRequest): string {
  return request.decidedBy ? person(request.decidedBy) : 'an approver';
}

function reasonText(request: PaymentRequest): string {
  return freeText(request.reason ?? '', 600) || '_no reason given_';
}

/** The last status of a followed record, when it says whether the money got there. */
function settledStatus(
  follow: ProviderFollow | undefined,
): { status: string; outcome: StatusOutcome } | undefined {
  const last = follow?.history.at(-1);
  return last?.outcome ? { status: last.status, outcome: last.outcome } : undefined;
}

const SETTLED: Readonly<Record<StatusOutcome, { headline: string; words: string }>> = {
  success: { headline: ':white_check_mark: *Succeeded at the provider:*', words: 'succeeded' },
  failure: { headline: ':x: *Failed at the provider:*', words: 'failed' },
};

/**
 * What the provider answered, less the status it answered with once a later one is known: the
 * provider status line, right under it, tells the latest.
 */
function latestOutcome(request: PaymentRequest): ProviderOutcome | undefined {
  if (request.outcome === undefined || request.follow?.status === undefined) return request.outcome;
  return { ...request.outcome, providerStatus: undefined };
}

/** `\nProvider id `po_1` · status `pending` · request id `req_9``, or nothing when none is known. */
function detailLine(outcome: ProviderOutcome | undefined): string {
  const details = outcomeDetails(outcome);
  return details === '' ? '' : `\n${details}`;
}

function outcomeDetails(outcome: ProviderOutcome | undefined): string {
  if (outcome === undefined) return '';
  return [
    outcome.providerId ? `provider id ${code(outcome.providerId)}` : '',
    outcome.providerStatus ? `provider status ${code(outcome.providerStatus)}` : '',
    Number.isInteger(outcome.status) ? `HTTP ${outcome.status}` : '',
    outcome.code ? `code ${code(outcome.code)}` : '',
    outcome.message ? freeText(outcome.message, 600) : '',
    outcome.requestId ? `request id ${code(outcome.requestId)}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

function reconciliationText(
  reconciliation: Reconciliation | undefined,
  follow?: ProviderFollow | undefined,
): string {
  if (reconciliation === undefined) {
    return 'Reconciliation: not checked yet — payops looks for a matching operation at the provider.';
  }
  const detail = freeText(reconciliationDetailText(reconciliation), 600);
  const tail = detail === '' ? '' : ` ${detail}`;
  if (reconciliation.resolvedBy) {
    const verdict =
      reconciliation.result === 'found'
        ? '*executed*'
        : '*not executed* — the same write may be requested again';
    return `Resolved by ${person(reconciliation.resolvedBy)} ${when(reconciliation.checkedAt)}, who looked at the provider: ${verdict}.${tail}`;
  }
  const checked = `Reconciliation ${when(reconciliation.checkedAt)}:`;
  if (reconciliation.result === 'found') {
    const found = outcomeDetails({
      providerId: reconciliation.providerId,
      // Once followed, the provider status line tells its latest status.
      providerStatus: follow?.status === undefined ? reconciliation.providerStatus : undefined,
    });
    return `${checked} *found* a matching operation, so it was executed${found ? ` (${found})` : ''}.${tail}`;
  }
  if (reconciliation.result === 'not_found') {
    return `${checked} *not found yet* — no matching operation seen at the provider.${tail}`;
  }
  if (reconciliation.result === 'ambiguous') {
    return `${checked} *not proven* — what the provider shows could be this one, but does not show that it is; a person must check at the provider before anything else.${tail}`;
  }
  return `${checked} *the check failed*, so nothing is known yet.${tail}`;
}

// ——— buttons ———

function decisionButtons(request: PaymentRequest, labels: CardLabels): ActionsBlock {
  const approve: Button = {
    type: 'button',
    action_id: ACTION.approve,
    text: plainText('Approve', 75),
    style: 'primary',
    value: approveButtonValue(request),
    confirm: approveConfirm(request, labels),
  };
  const reject: Button = {
    type: 'button',
    action_id: ACTION.reject,
    text: plainText('Reject', 75),
    style: 'danger',
    value: String(request.id),
  };
  const ask: Button = {
    type: 'button',
    action_id: ACTION.ask,
    text: plainText('Ask a question', 75),
    value: String(request.id),
  };
  return { type: 'actions', elements: [approve, reject, ask] };
}

/**
 * The dialog restates amount and recipient, so nobody approves a different payment by habit.
 * It holds 300 characters and never cuts a value to fit: when the recipient does not fit
 * whole, its name and then its details give way to "see the card".
 */
function approveConfirm(request: PaymentRequest, labels: CardLabels): ConfirmationDialog {
  const amount = amountOf(fieldsOf(request));
  const what = `${OPERATIONS[request.operationId].summary}${amount ? ` of ${plainLine(`${amount.amount} ${amount.currency ?? ''}`)}` : ''}`;
  const remaining = request.requiredApprovals - request.approvals.length;
  const effect =
    remaining <= 1
      ? 'Your approval sends it to the provider at once, exactly as shown.'
      : `Your approval is one of ${remaining} still needed.`;
  const wordings = recipientWordings(recipientOf(fieldsOf(request), request.path, labels));
  const texts = [
    ...(wordings.length === 0 ? [`${what}. ${effect}`] : []),
    ...wordings.map((to) => `${what} to ${to}. ${effect}`),
    `Approve exactly what the card shows. ${effect}`,
  ];
  return {
    title: plainText(`Approve request #${request.id}?`, CONFIRM.title),
    // Plain text: Slack parses nothing in it, so the requester's text needs no escaping.
    text: plainText(texts.find((text) => text.length <= CONFIRM.text) ?? effect, CONFIRM.text),
    confirm: plainText('Approve', CONFIRM.button),
    deny: plainText('Back', CONFIRM.button),
    style: 'primary',
  };
}

interface Recipient {
  name: string;
  /** The recipient id and the masked account, as known. */
  details: string[];
}

function recipientOf(
  fields: Readonly<Record<string, unknown>>,
  path: Readonly<Record<string, string>>,
  labels: CardLabels,
): Recipient {
  const name =
    labels.recipientName ?? [fields.beneficiary_name, fields.account_owner_name].find(Boolean);
  const id = fields.external_account_id ?? path.externalAccountId;
  const account = RECIPIENT_ACCOUNT_FIELDS.find((field) => Object.hasOwn(fields, field));
  const details = [
    id === undefined ? '' : plainLine(textOf(id)),
    account === undefined ? '' : maskAccount(textOf(fields[account])),
  ].filter(Boolean);
  return { name: name === undefined ? '' : plainLine(textOf(name)), details };
}

/**
 * From the most to the least complete: `Jane Doe (ext_1, ••••1234)`, `ext_1, ••••1234 (name:
 * see the card)`, `the recipient shown on the card`; none when the write names no recipient.
 */
function recipientWordings({ name, details }: Recipient): string[] {
  const listed = details.join(', ');
  if (name === '' && listed === '') return [];
  const whole = name === '' ? listed : listed === '' ? name : `${name} (${listed})`;
  const nameless = name !== '' && listed !== '' ? [`${listed} (name: see the card)`] : [];
  return [whole, ...nameless, 'the recipient shown on the card'];
}

// ——— the requester's side ———

/** Ephemeral to the requester once the request is stored; its card is on its way to `channelId`. */
export function renderRequesterConfirmation(
  request: PaymentRequest,
  approvalsChannelId: string,
  command: string,
): SlackMessage {
  const title = escapeMrkdwn(requestTitle(request));
  const where = /^[CG][A-Z0-9]+$/.test(approvalsChannelId)
    ? `<#${approvalsChannelId}>`
    : 'the approvals channel';
  const blocks: KnownBlock[] = [
    section(`Request *${title}* created. Its approval card is posted in ${where}.`),
  ];
  if (request.status === 'pending') {
    blocks.push(section(nextSteps(request)));
    blocks.push({ type: 'actions', elements: [cancelButton(request)] });
  } else {
    blocks.push(section(statusText(request, command)));
  }
  return {
    text: `Request #${request.id} created: ${statusWords(request)}`,
    blocks,
  };
}

function nextSteps(request: PaymentRequest): string {
  const needed = Math.max(1, request.requiredApprovals - request.approvals.length);
  const approvals =
    needed === 1
      ? 'one approval, from an approver other than you,'
      : `${needed} approvals, from ${needed} different approvers other than you,`;
  return `*What happens next:* it needs ${approvals} before ${when(request.expiresAt)}. payops then sends it to the provider exactly once and tells you in the approval message's thread. Until then you can cancel it.`;
}

function cancelButton(request: PaymentRequest): Button {
  return {
    type: 'button',
    action_id: ACTION.cancel,
    text: plainText('Cancel request', 75),
    style: 'danger',
    value: String(request.id),
    confirm: {
      title: plainText(`Cancel request #${request.id}?`, CONFIRM.title),
      text: plainText('It will not be sent, and nobody can approve it any more.', CONFIRM.text),
      confirm: plainText('Cancel request', CONFIRM.button),
      deny: plainText('Keep it', CONFIRM.button),
      style: 'danger',
    },
  };
}

/**
 * One line for the request's thread, telling the requester what changed: `event` is the status
 * it moved to, or what was learnt of an unknown outcome (its line says what is known now).
 */
export function renderThreadUpdate(
  request: PaymentRequest,
  event: string = request.status,
): { text: string } {
  const lead = `${person(request.requesterId)} #${request.id}`;
  const status = isStatus(event) ? event : request.status;
  const line =
    status === 'failed' && stoppedBeforeSending(request) ? stoppedLine : THREAD_LINES[status];
  const told = followNoticeText(request.follow, event) ?? line(request);
  return { text: truncate(`${lead} ${told}`, 3000) };
}

function isStatus(event: string): event is RequestStatus {
  return Object.hasOwn(THREAD_LINES, event);
}

const THREAD_LINES: Readonly<Record<RequestStatus, (request: PaymentRequest) => string>> = {
  pending: (request) =>
    request.approvals.length === 0
      ? 'is waiting for approval.'
      : `has ${approvalsText(request)} and is still waiting for approval.`,
  executing: (request) =>
    `was approved by ${approvers(request)} and is being sent to the provider now.`,
  submitted: (request) =>
    endSentence(
      `was approved by ${approvers(request)} and submitted to the provider (not settled)${colon(outcomeDetails(request.outcome))}`,
    ),
  failed: (request) =>
    endSentence(
      `was approved by ${approvers(request)} but the provider refused it, so nothing was executed${colon(outcomeDetails(request.outcome))}`,
    ),
  unknown: (request) =>
    `was approved by ${approvers(request)} but its outcome is unknown: do NOT resubmit. ${reconciliationText(request.reconciliation)}`,
  rejected: (request) => `was rejected by ${decider(request)}: ${reasonText(request)}`,
  cancelled: () => 'was cancelled by its requester.',
  expired: (request) => `expired with ${approvalsText(request)}: it can no longer be approved.`,
  superseded: (request) =>
    `was replaced by ${replacement(request)}, edited and resubmitted: it can no longer be approved.`,
};

function stoppedLine(request: PaymentRequest): string {
  return endSentence(
    `was approved by ${approvers(request)} but payops stopped it before sending, so nothing was sent${colon(outcomeDetails(request.outcome))}`,
  );
}

function colon(details: string): string {
  return details === '' ? '' : `: ${details}`;
}

// ——— small pieces ———

/** `<@U123>`; any other text is escaped, so a stored id can never become a broadcast. */
export function person(userId: string): string {
  return userId.trim() === '' ? '_someone_' : truncate(textWithMentions(userId), 120);
}

/** A stored ISO time as Slack's date token, in each reader's own zone. */
export function when(iso: string): string {
  return dateText(iso) ?? (inlineText(iso, 40) || '_at an unknown time_');
}

/** Text on one line, for plain_text objects (which Slack does not parse). */
function plainLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `emoji: false`: a `:name:` someone typed is shown as typed, not turned into a picture. */
export function plainText(text: string, max: number): PlainTextElement {
  return { type: 'plain_text', text: truncate(plainLine(text), max), emoji: false };
}
