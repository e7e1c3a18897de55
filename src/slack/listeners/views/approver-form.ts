import type { ViewOutput } from '@slack/bolt';
import { checkFreeText } from '../../../domain/free-text.ts';
import { parseRejectForm, type RejectForm } from '../../private-metadata.ts';
import { freeTextProblemText } from '../../text/commands.ts';

/**
 * An approver's form about a request with one free-text input (a rejection's reason, a
 * question): the request and where its button was clicked, and the text checked as free text;
 * else the error to show under the input.
 */
export function readApproverForm(
  view: ViewOutput,
  field: 'reason' | 'question',
  words: { unknownRequest: string; empty: string },
): { form: RejectForm; text: string } | { error: string } {
  const form = parseRejectForm(view.private_metadata);
  const checked = checkFreeText(view.state.values[field]?.[field]?.value ?? '');
  if (!form) return { error: words.unknownRequest };
  if ('error' in checked) return { error: freeTextProblemText(field, checked.error) };
  if (!checked.text) return { error: words.empty };
  return { form, text: checked.text };
}
