import type { PaymentRequest, Replaced, WriteIntent } from './approval.ts';
import { fieldsOf } from './approval.ts';
import { maskAccount, maskLongNumbers, sensitiveKind } from './masking.ts';
import { PURPOSE_FIELD } from './purpose.ts';

/**
 * Asking and resubmitting. An approver may ask the requester a question instead of rejecting:
 * the request stays pending, waiting on its requester until an approval comes after the
 * question (the approver was answered) or the requester edits and resubmits it. A resubmitted
 * request is a new request (new fingerprint, approvals from zero) that replaces the old one,
 * which ends `superseded` and can never be sent.
 */

/** The question its requester is to answer: asked, and no approval came since. */
export function waitingOnRequester(
  request: Pick<PaymentRequest, 'status' | 'question' | 'approvals'>,
): PaymentRequest['question'] {
  const { question } = request;
  if (request.status !== 'pending' || question === undefined) return undefined;
  const asked = Date.parse(question.at);
  return request.approvals.some((approval) => Date.parse(approval.at) > asked)
    ? undefined
    : question;
}

/**
 * Each path parameter, body field and the purpose that differ between `old` and the edited
 * `intent`, as the card shows values: banking numbers as `••••1234`, secrets hidden, long
 * numbers masked, crypto addresses by their ends.
 */
export function changesFrom(old: PaymentRequest, intent: WriteIntent): Replaced {
  const before = { ...old.path, ...fieldsOf(old), ...purposeOf(old.purpose) };
  const after = { ...intent.path, ...intent.fields, ...purposeOf(intent.purpose) };
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changes = names
    .filter((name) => before[name] !== after[name])
    .map((name) => ({
      field: name,
      before: shown(name, before[name]),
      after: shown(name, after[name]),
    }));
  return { id: old.id, changes };
}

/**
 * The old request's values as the request form takes them: body fields and the purpose, but
 * no banking number or secret, which Slack must never be sent in full: the requester types
 * those again.
 */
export function formValuesOf(old: PaymentRequest): Record<string, string> {
  const fields = Object.entries(fieldsOf(old)).filter(([name]) => {
    const kind = sensitiveKind(name);
    return kind !== 'banking' && kind !== 'secret';
  });
  return { ...Object.fromEntries(fields), ...purposeOf(old.purpose) };
}

function purposeOf(purpose: string | undefined): Record<string, string> {
  return purpose === undefined ? {} : { [PURPOSE_FIELD]: purpose };
}

function shown(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const kind = sensitiveKind(name);
  if (kind === 'banking') return maskAccount(value);
  if (kind === 'secret') return '(hidden)';
  if (name === 'destination_address' && value.length > 20) {
    return `${value.slice(0, 8)}…${value.slice(-8)}`;
  }
  return maskLongNumbers(value);
}
